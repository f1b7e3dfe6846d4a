// Command reconstruct derives the carriers of frameworks that cannot run here (langchain-mcp-adapters
// 0.3.2 and google-adk at the study's version: their sources cannot be had) by applying each
// framework's conversion rules, rule by rule, to every fixture. Every record it writes has origin
// "reconstructed" and a basis per rule: the file, the function and the version of the framework
// source the rule follows.
//
// The reconstructions of openai-agents and agent-framework are kept beside them, but their lanes
// are captured by running the frameworks (examples/capture/python): they are not written by
// default or listed by -list, and reality_test.go checks them record by record against the
// captured carriers, as a measure of how far a reconstruction can be trusted.
//
// Usage:
//
//	reconstruct -fixtures fixtures/sources -out fixtures/observations [LANE...]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

// Stage is what a lane's rules make of a fixture at one stage.
type Stage struct {
	Stage string
	// State is "captured" (a reconstructed carrier), "execution_failed" (the framework raises:
	// Err says what), "not_reached", "not_observable" or "not_applicable".
	State   string
	Carrier any
	Err     string
	Basis   []record.Basis
}

// Lane is one reconstructed framework: its version, configurations and rules.
type Lane struct {
	ID      string
	Version string
	// Configurations lists the configurations and the fixtures each applies to (nil: every fixture).
	Configurations map[string]func(id string) bool
	// Reconstruct applies the framework's rules to one fixture under one configuration and returns
	// every stage the lane declares, in order. src is the fixture decoded with json.Number numbers.
	Reconstruct func(configuration string, f record.Fixture, src map[string]any) []Stage
	// CapturedBy, when set, names the capture program whose records are the lane's observations:
	// the reconstruction is only checked against them (reality_test.go), never written unless
	// named on the command line.
	CapturedBy string
}

// lanes is the registry; each framework's file adds itself in an init function.
var lanes = map[string]*Lane{}

func register(l *Lane) { lanes[l.ID] = l }

// structuredFixtures are the catalog's structured fixtures (contracts/fixtures.cue: families
// structured, structured-stress, structured-2026, numbers and visibility, and content-edge X09):
// those a lane's structured-content configuration (openai-agents use-structured-content,
// langchain-mcp-adapters append-structured-content) applies to.
var structuredFixtures = map[string]bool{
	"C01": true, "C03": true, "C05": true, "C06": true, "X12": true, // structured
	"C02": true, "C04": true, // structured-stress
	"X01": true, "X02": true, "X03": true, // structured-2026
	"X08": true, // numbers
	"X09": true, // content-edge: empty content with structuredContent
	// visibility
	"V01": true, "V02": true, "V03": true, "V04": true,
}

// isStructured says whether a fixture is one of structuredFixtures.
func isStructured(id string) bool { return structuredFixtures[id] }

// basisOf makes the bases of one library version: a rule read in a file's function.
func basisOf(version string) func(rule, file, function string) record.Basis {
	return func(rule, file, function string) record.Basis {
		return record.Basis{Rule: rule, File: file, Function: function, Version: version}
	}
}

func main() {
	fixtures := flag.String("fixtures", "fixtures/sources", "directory of <suite>/<id>.json sources")
	out := flag.String("out", "fixtures/observations", "observations directory to write <lane>/<version>/<configuration>.jsonl into")
	list := flag.Bool("list", false, "print the reconstructed lanes, one per line, and exit")
	flag.Parse()
	if *list {
		for _, id := range reconstructedIDs() {
			fmt.Println(id)
		}
		return
	}
	if err := run(*fixtures, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "reconstruct:", err)
		os.Exit(1)
	}
}

func run(dir, out string, only []string) error {
	fs, err := record.Fixtures(dir)
	if err != nil {
		return err
	}
	ids := only
	if len(ids) == 0 {
		ids = reconstructedIDs()
	}
	for _, id := range ids {
		l, ok := lanes[id]
		if !ok {
			return fmt.Errorf("unknown lane %q", id)
		}
		if err := write(l, fs, out); err != nil {
			return fmt.Errorf("lane %s: %w", id, err)
		}
	}
	return nil
}

// reconstructedIDs lists, sorted, the lanes whose observations are reconstructed: every
// registered lane that no capture program covers.
func reconstructedIDs() []string {
	var ids []string
	for _, id := range sortedLaneIDs() {
		if lanes[id].CapturedBy == "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// sortedLaneIDs lists every registered lane, sorted.
func sortedLaneIDs() []string {
	ids := make([]string, 0, len(lanes))
	for id := range lanes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func write(l *Lane, fs []record.Fixture, out string) error {
	configs := make([]string, 0, len(l.Configurations))
	for c := range l.Configurations {
		configs = append(configs, c)
	}
	sort.Strings(configs)
	for _, cfg := range configs {
		var buf bytes.Buffer
		w := &record.Writer{W: &buf, Lane: l.ID, LaneVersion: l.Version, Configuration: cfg, Repetition: 1, Origin: "reconstructed"}
		applies := l.Configurations[cfg]
		for _, f := range fs {
			if applies != nil && !applies(f.ID) {
				continue
			}
			src, err := decode(f.Bytes)
			if err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
			}
			for _, st := range l.Reconstruct(cfg, f, src) {
				if err := w.Reconstructed(f, st.Stage, st.State, st.Carrier, st.Err, st.Basis); err != nil {
					return err
				}
			}
		}
		path := filepath.Join(out, l.ID, l.Version, cfg+".jsonl")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// decode reads a fixture with exact numbers, as a Python framework's json.loads would keep them
// (Python ints are arbitrary precision; floats are not, which a rule must model where it matters).
func decode(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}
