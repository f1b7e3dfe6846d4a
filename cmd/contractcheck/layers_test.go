package main

import (
	"encoding/json"
	"io/fs"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// adkLines returns the built-in adk-go v1.7.0 records of a fixture, rewritten to another version
// and configuration: the records of a framework upgrade the built-in lane does not declare.
func adkLines(t *testing.T, fixture, version, configuration string) string {
	t.Helper()
	data, err := fs.ReadFile(contractcheck.Builtin, "fixtures/observations/adk-go/v1.7.0/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, `"fixture":"`+fixture+`"`) || !strings.Contains(l, `"repetition":1,`) {
			continue
		}
		l = strings.Replace(l, `"laneVersion":"v1.7.0"`, `"laneVersion":"`+version+`"`, 1)
		l = strings.Replace(l, `"configuration":"default"`, `"configuration":"`+configuration+`"`, 1)
		b.WriteString(l + "\n")
	}
	if b.Len() == 0 {
		t.Fatalf("no adk-go v1.7.0 record of %s", fixture)
	}
	return b.String()
}

// TestLayerExtendsBuiltinLane gates a framework upgrade without copying the built-in lane: a layer
// adds a version (extraVersions) and a configuration to adk-go, and records at that version and
// configuration are accepted and judged with the built-in lane's bindings, as the v1.7.0 records
// they were copied from are. Without the layer they are refused.
func TestLayerExtendsBuiltinLane(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	layer := filepath.Join(dir, "upgrade")
	testkit.WriteFile(t, filepath.Join(layer, "upgrade.cue"), `package contracts

lanes: "adk-go": {
	extraVersions: "v1.8.0": doc: "The upgrade this layer gates."
	configurations: "own-client": doc: "mcptoolset.Config{Client} set to a caller's *mcp.Client."
}

profiles: "adk-go-upgrade": {
	doc:        "Every adk-go binding is judged; the report says how."
	nullPolicy: "strict"
	require: [{
		doc: "Any outcome: the test compares them with the v1.7.0 records'."
		lanes: ["adk-go"]
		outcomes: ["pass", "unmet", "execution_failed", "not_reached", "not_applicable", "not_observable", "unstable"]
	}]
}
`)

	tests := []struct {
		name, version, configuration string
		contracts                    []string
		code                         int
		want                         string
	}{
		{name: "an added version", version: "v1.8.0", configuration: "default", contracts: []string{"--contracts", layer, "--profile", "adk-go-upgrade"}},
		{name: "an added configuration", version: "v1.7.0", configuration: "own-client", contracts: []string{"--contracts", layer, "--profile", "adk-go-upgrade"}},
		{name: "an undeclared version without the layer", version: "v1.8.0", configuration: "default", code: 2, want: `lane adk-go has no version "v1.8.0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := filepath.Join(t.TempDir(), "obs")
			testkit.WriteFile(t, filepath.Join(obs, "adk-go.jsonl"), adkLines(t, "C01", tt.version, tt.configuration))
			testkit.WriteFile(t, filepath.Join(obs, "adk-go-v1.7.0.jsonl"), adkLines(t, "C01", "v1.7.0", "default"))
			args := append([]string{"check", "--observations", obs, "--format", "json"}, tt.contracts...)
			code, stdout, stderr := cli(t, args...)
			if tt.code != 0 {
				if code != tt.code || !strings.Contains(stderr, tt.want) {
					t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
				}
				return
			}
			if code > 1 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var rep struct {
				Results []struct {
					Fixture, Lane, LaneVersion, Configuration, Stage, Task, Outcome string
				} `json:"results"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("report: %v\n%s", err, stdout)
			}
			// stage and task → outcome, of the copied records and of the v1.7.0 ones.
			got, base := map[string]string{}, map[string]string{}
			for _, r := range rep.Results {
				switch {
				case r.Lane != "adk-go":
				case r.LaneVersion == tt.version && r.Configuration == tt.configuration:
					got[r.Stage+" "+r.Task] = r.Outcome
				case r.LaneVersion == "v1.7.0" && r.Configuration == "default":
					base[r.Stage+" "+r.Task] = r.Outcome
				}
			}
			if len(got) == 0 || !maps.Equal(got, base) {
				t.Errorf("adk-go %s %s outcomes %v, want those of v1.7.0 default %v", tt.version, tt.configuration, got, base)
			}
		})
	}
}

// TestLayerGuardHostileFileName: the refusal of a layer that redeclares a built-in hidden name
// names the user's file, whatever its name holds, and the terminal receives it escaped.
func TestLayerGuardHostileFileName(t *testing.T) {
	t.Parallel()
	for _, c := range hostile.Cases() {
		if c.Name == "long" || c.Name == "empty" || strings.ContainsAny(c.S, "/\x00") || !utf8.ValidString(c.S) {
			continue // not a file name this system can hold, or one the layer reader refuses first
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "mine")
			testkit.WriteFile(t, filepath.Join(dir, hostile.ID(c, 40)+".cue"), "package contracts\n\n_lcBlocks: text: fields: uri: path: \"/extras/uri\"\n")
			code, _, stderr := cli(t, "check", "--contracts", dir)
			if code != 2 || !strings.Contains(stderr, ":3:1: hidden name _lcBlocks: declared by an earlier layer at builtin:contracts/lane_langchain-mcp-adapters.cue:13:1") {
				t.Errorf("exit %d, stderr %q; want 2 and the hidden name's refusal", code, stderr)
			}
			testkit.TerminalSafe(t, "stderr", stderr, true)
		})
	}
}
