package report

import (
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// SARIF writes the report as a SARIF 2.1.0 log, the format code-scanning services read. Each
// binding that did not pass is one result per atom its diagnostics name (rule "<task>/<atom>"),
// or one result under rule "<task>" when it has no diagnostic (an execution failure, an unstable
// binding); the level is "error" when the gate's requirements do not allow the outcome, "note"
// when no requirement gates the binding. Each result is located at the first repetition's record:
// its .jsonl file and line. A built-in record is given relative to the base "BUILTIN", which the
// log describes as the files inside the contractcheck binary. The log of a run that failed before
// it could give a verdict (result.Report.Failure) has no result and an invocation whose execution
// was not successful, with the failure as its notification (failure.go).
type SARIF struct {
	ToolVersion string
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	// Invocations is written for a failed run only (sarifFailure).
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]any    `json:"properties"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	Name             string       `json:"name"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifArtifactLoc struct {
	URI         string        `json:"uri,omitempty"`
	URIBaseID   string        `json:"uriBaseId,omitempty"`
	Description *sarifMessage `json:"description,omitempty"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifMessage    `json:"message"`
	Locations  []sarifLocation `json:"locations,omitempty"`
	Properties map[string]any  `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           sarifRegion      `json:"region"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// SARIFSchema is the $schema a SARIF log names.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// Output implements Outputter.
func (s SARIF) Output(w io.Writer, r *result.Report) error {
	violated := violatedBindings(r)
	type pending struct {
		rule, level, text string
		res               *result.Result
	}
	var found []pending
	rules := map[string]bool{}
	builtin := false
	for _, res := range r.Each() {
		if noFinding(res.Outcome) {
			continue
		}
		level := "note"
		if violated[bindingID(res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)] {
			level = "error"
		} else if res.Required {
			continue // gated, and the requirement allows this outcome
		}
		if len(res.Records) > 0 && strings.HasPrefix(res.Records[0].File, BuiltinPrefix) {
			builtin = true
		}
		where := fmt.Sprintf("%s %s %s %s %s %s", res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)
		if len(res.Diagnostics) == 0 {
			rules[res.Task] = true
			text := where + ": " + res.Outcome
			if res.Error != "" {
				text += ": " + oneLine(res.Error)
			}
			found = append(found, pending{res.Task, level, text, res})
			continue
		}
		byAtom := map[string][]string{}
		for _, d := range res.Diagnostics {
			atom := fmt.Sprint(d["atom"])
			byAtom[atom] = append(byAtom[atom], FormatDiagnostic(d))
		}
		for _, atom := range slices.Sorted(maps.Keys(byAtom)) {
			rule := res.Task + "/" + atom
			rules[rule] = true
			found = append(found, pending{rule, level, where + ": " + strings.Join(byAtom[atom], "; "), res})
		}
	}
	ids := slices.Sorted(maps.Keys(rules))
	index := map[string]int{}
	driver := sarifDriver{Name: "contractcheck", Version: s.ToolVersion,
		InformationURI: "https://github.com/contractcheck/contractcheck", Rules: []sarifRule{}}
	for i, id := range ids {
		index[id] = i
		task, atom, hasAtom := strings.Cut(id, "/")
		desc := "Task " + task + " did not pass"
		if hasAtom {
			desc = "Task " + task + ": atom " + atom + " not kept"
		}
		driver.Rules = append(driver.Rules, sarifRule{ID: id, Name: strings.NewReplacer("/", "-", ".", "-", "_", "-").Replace(id), ShortDescription: sarifMessage{desc}})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{},
		Properties: map[string]any{"profile": r.Profile, "nullPolicy": r.NullPolicy, "verdict": r.Gate.Verdict}}
	if r.Failure != nil {
		run.Invocations = sarifFailure(r)
	}
	if builtin {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{"BUILTIN": {URI: "builtin:/",
			Description: &sarifMessage{"The files embedded in the contractcheck binary (contractcheck export writes them)."}}}
	}
	for _, p := range found {
		res := p.res
		out := sarifResult{RuleID: p.rule, RuleIndex: index[p.rule], Level: p.level, Message: sarifMessage{p.text},
			Properties: map[string]any{"fixture": res.Fixture, "lane": res.Lane, "laneVersion": res.LaneVersion,
				"configuration": res.Configuration, "stage": res.Stage, "task": res.Task, "outcome": res.Outcome, "origin": res.Origin}}
		if len(res.Records) > 0 {
			rec := res.Records[0]
			loc := sarifArtifactLoc{URI: uriReference(rec.File)}
			if rest, ok := strings.CutPrefix(rec.File, BuiltinPrefix); ok {
				loc = sarifArtifactLoc{URI: uriReference(rest), URIBaseID: "BUILTIN"}
			}
			out.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: loc, Region: sarifRegion{StartLine: rec.Line}}}}
		}
		run.Results = append(run.Results, out)
	}
	sort.SliceStable(run.Results, func(i, j int) bool { return run.Results[i].Level == "error" && run.Results[j].Level != "error" })
	return WriteJSON(w, sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// uriReference is a record file's path as the URI reference SARIF's artifactLocation.uri is: a
// space, a '#' or a '%' in a directory name is percent-encoded.
func uriReference(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}
