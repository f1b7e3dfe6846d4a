package probe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/contractcheck/contractcheck/internal/laneout"
	"github.com/contractcheck/contractcheck/internal/safeio"

	"github.com/contractcheck/contractcheck/internal/result"
)

// record is one observation record (laneout.Record, shared with contractcheck record).
type record = laneout.Record

// recordsFor builds the records of one fixture repetition: each stage's exposure, a captured
// carrier where the command reported one (H4: item), and for a failed run execution_failed at
// the first observed stage without a carrier and not_reached after it.
func recordsFor(o *Options, lane laneDef, f fixture, rep int, obs []observation, item []byte, failure error) ([]record, error) {
	carriers := map[string][]byte{}
	reported := map[string]string{} // stages the command reported failed, with its message
	for _, ob := range obs {
		_, dup := carriers[ob.Stage]
		if _, dupErr := reported[ob.Stage]; dup || dupErr {
			return nil, fmt.Errorf("the command reported stage %s more than once for %s", ob.Stage, f.id)
		}
		if ob.Error != "" {
			reported[ob.Stage] = ob.Error
			continue
		}
		carriers[ob.Stage] = ob.Carrier
	}
	if failure == nil {
		carriers["H4"] = item
		for _, st := range Stages {
			if _, failed := reported[st]; !failed && lane.exposure[st] == "observed" && carriers[st] == nil {
				failure = fmt.Errorf("lane %s observes %s, but the command reported no %s carrier (POST it to CONTRACTCHECK_OBSERVE_URL)", o.Lane, st, st)
				break
			}
		}
	}
	var out []record
	failed := false
	for _, st := range Stages {
		r := record{Position: result.Position{Fixture: f.id, Lane: o.Lane, LaneVersion: o.Version, Configuration: o.Configuration, Stage: st}, Repetition: rep, SourceSha256: f.sha, Origin: "captured"}
		switch exp := lane.exposure[st]; {
		case exp != "observed":
			r.State = exp
		case reported[st] != "":
			r.State, r.Error = "execution_failed", "the command reported: "+reported[st]
		case failed:
			r.State = "not_reached"
		case failure != nil && carriers[st] == nil:
			r.State, r.Error, failed = "execution_failed", failure.Error(), true
		default:
			var c bytes.Buffer
			if err := json.Compact(&c, carriers[st]); err != nil {
				return nil, fmt.Errorf("stage %s: the carrier is not JSON: %w", st, err)
			}
			r.State, r.Carrier = "captured", c.Bytes()
		}
		out = append(out, r)
	}
	return out, nil
}

// encodeRecord writes one record as a JSON line (laneout.Encode).
func encodeRecord(r record) ([]byte, error) { return laneout.Encode(r) }

// ManifestFile and LaneFile are the files a probe keeps beside its records: what it probed, and
// the lane definitions and profile generated from that.
const (
	ManifestFile = "probe.json"
	LaneFile     = "probe.cue"
)

// ProfileName is the profile probe.cue defines: every probed fixture reached the model.
const ProfileName = "probe"

// manifest is probe.json: every lane probed into the directory.
type manifest struct {
	ProbeVersion int                     `json:"probeVersion"`
	Lanes        map[string]manifestLane `json:"lanes"`
}

// manifestLane is one probed lane: the provider its H4 follows (empty when a layer declares the
// lane), whether H4 is the whole body, and its versions with their configurations.
type manifestLane = laneout.Lane

// readManifest reads the output directory's probe.json. A directory that does not exist, or is
// empty, has none; a non-empty directory without one is not a probe's output and is refused.
func readManifest(dir string) (*manifest, error) {
	m := &manifest{ProbeVersion: 1, Lanes: map[string]manifestLane{}}
	found, err := generator.ReadManifest(dir, m)
	if err != nil && onlyTraffic(dir) { // a probe that failed before its records wrote its traffic (traffic.go)
		found, err = false, nil
	}
	switch {
	case err != nil:
		return nil, result.Inputf("probe: %v", err)
	case found && (m.ProbeVersion != 1 || m.Lanes == nil):
		return nil, result.Inputf("probe: %s: not a probe manifest (probeVersion 1)", filepath.Join(dir, ManifestFile))
	}
	return m, nil
}

// write merges the records into the output directory all or nothing: the lane version's record
// file keeps the records of fixtures this run did not probe, and probe.json and probe.cue are
// written anew from the manifest.
//
// It returns the files written and the fixtures the lane version's record file then holds, this
// probe's and those kept from earlier ones, sorted.
func (o *Options) write(man *manifest, lane laneDef, provider string, fixtures []fixture, records []record) ([]string, []string, error) {
	if err := safeio.CheckOutputDir(o.Output, inputDirs(o)); err != nil {
		return nil, nil, result.Inputf("probe: %v", err)
	}
	rel := o.Lane + "/" + o.Version + "/" + o.Configuration + ".jsonl"
	probed := map[string]bool{}
	for _, f := range fixtures {
		probed[f.id] = true
	}
	var lines [][]byte
	var held []string // the fixtures of the records kept from earlier probes
	old, err := os.ReadFile(filepath.Join(o.Output, filepath.FromSlash(rel)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("probe: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(old))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r struct {
			Fixture string `json:"fixture"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, nil, result.Inputf("probe: %s: a line that is not a record: %v", filepath.Join(o.Output, rel), err)
		}
		if !probed[r.Fixture] {
			lines = append(lines, append(slices.Clone(line), '\n'))
			if !slices.Contains(held, r.Fixture) {
				held = append(held, r.Fixture)
			}
		}
	}
	for _, r := range records {
		b, err := encodeRecord(r)
		if err != nil {
			return nil, nil, fmt.Errorf("probe: encode record: %w", err)
		}
		lines = append(lines, b)
	}
	sort.SliceStable(lines, func(i, j int) bool { return recordKey(lines[i]) < recordKey(lines[j]) })

	ml := man.Lanes[o.Lane]
	if ml.Versions == nil {
		ml.Versions = map[string][]string{}
	}
	switch {
	case lane.declared:
		ml.Declared, ml.Provider = true, ""
	case provider == "":
		// The API is unknown in this probe: the lane keeps the binding an earlier probe into
		// the directory found (its records need it), or none.
		ml.Declared = false
	case ml.Provider != "" && ml.Provider != provider:
		return nil, nil, result.Inputf("probe: lane %s was probed into %s with provider %s before, not %s: one lane has one H4 binding (use another --lane or --output)", o.Lane, o.Output, ml.Provider, provider)
	default:
		ml.Declared, ml.Provider = false, provider
	}
	if len(ml.Versions) > 0 && ml.Body != o.Body {
		return nil, nil, result.Inputf("probe: lane %s was probed into %s with H4 as the %s before: keep --h4-body as it was", o.Lane, o.Output, map[bool]string{true: "whole body", false: "item"}[ml.Body])
	}
	ml.Body = o.Body
	if !slices.Contains(ml.Versions[o.Version], o.Configuration) {
		ml.Versions[o.Version] = append(ml.Versions[o.Version], o.Configuration)
		slices.Sort(ml.Versions[o.Version])
	}
	man.Lanes[o.Lane] = ml
	manData, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("probe: %w", err)
	}
	lf, err := laneFile(man)
	if err != nil {
		return nil, nil, err
	}
	files := map[string][]byte{
		rel:          bytes.Join(lines, nil),
		ManifestFile: append(manData, '\n'),
		LaneFile:     lf,
	}
	if err := safeio.WriteTree(o.Output, files); err != nil {
		return nil, nil, fmt.Errorf("probe: write %s: %w", o.Output, err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for id := range probed {
		if !slices.Contains(held, id) {
			held = append(held, id)
		}
	}
	slices.Sort(held)
	return names, held, nil
}

// recordKey orders records by fixture, repetition and stage.
func recordKey(line []byte) string {
	var r struct {
		Fixture    string `json:"fixture"`
		Repetition int    `json:"repetition"`
		Stage      string `json:"stage"`
	}
	_ = json.Unmarshal(line, &r)
	return fmt.Sprintf("%s\x00%09d\x00%d", r.Fixture, r.Repetition, slices.Index(Stages, r.Stage))
}

// inputDirs are the directories of the user's layers, which the output must not be or hold.
func inputDirs(o *Options) []string {
	var out []string
	for _, d := range o.Inputs.Inputs() {
		if d.Local != "" {
			out = append(out, d.Local)
		}
	}
	return out
}

// generator is what probe.cue says of itself.
var generator = laneout.Generator{
	Tool: "probe", Manifest: ManifestFile, File: LaneFile, Profile: ProfileName, Done: "Probed",
	LaneDoc: func(provider string) string {
		return "Probed with contractcheck probe: the command ran against the fixture MCP server and a fake " + provider + " provider. H4 is the provider request item that carries the tool result, read through the provider's generic binding; the other stages were not reported."
	},
	StageDoc:   "Not reported by the command (contractcheck probe's observe hook).",
	ProfileDoc: "Every probed fixture reached the model: the command ran, called the tool and sent the result on (written by contractcheck probe; gate your own contracts with a profile of your own).",
	RequireDoc: "Each probed lane's H4 was captured: judged pass or unmet, never execution_failed.",
	Judge:      "--observations DIR --contracts DIR --profile probe",
	Reached:    []string{"H4"},
}

// laneFile is probe.cue: a lane for every probed lane no layer declares (H4 the provider's
// generic binding, the other stages not observable) and the profile probe.
func laneFile(m *manifest) ([]byte, error) { return generator.LaneFile(m.Lanes) }
