package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixedByProfile gates the reported fixes on the captured records: the built-in profile
// reported-fixes (buggy → fixed) is satisfied, and the same clauses named the other way round
// (fixed → buggy), or on a pair where the loss remains, are unmet.
func TestFixedByProfile(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := cli(t, "check", "--profile", "reported-fixes", "--format", "json")
	if code != 0 {
		t.Fatalf("reported-fixes: exit %d, want 0: %s", code, stderr)
	}
	var rep struct {
		Gate struct {
			Verdict string `json:"verdict"`
			FixedBy []struct {
				Name, Status string
				Before       int
			} `json:"fixedBy"`
		} `json:"gate"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Gate.Verdict != "satisfied" || len(rep.Gate.FixedBy) != 2 {
		t.Fatalf("verdict %s with %d fixedBy results, want satisfied with 2", rep.Gate.Verdict, len(rep.Gate.FixedBy))
	}
	for _, f := range rep.Gate.FixedBy {
		if f.Status != "fixed" || f.Before == 0 {
			t.Errorf("%s: %s with %d bindings to fix, want fixed with some", f.Name, f.Status, f.Before)
		}
	}

	layer := filepath.Join(t.TempDir(), "reversed")
	write(t, filepath.Join(layer, "reversed.cue"), `package contracts

profiles: {
	"fixes-reversed": {
		doc:        "The reported fixes named from the fixed to the buggy version."
		nullPolicy: "strict"
		require: [_controlPasses]
		fixedBy: [{doc: "mcp-go backwards", lane: "mcp-go", from: "v0.38.0", to: "v0.37.0", fixtures: ["R02"], tasks: ["T2"], atoms: ["structured.state"]},
			{doc: "adk-go backwards", lane: "adk-go", from: "v1.7.0", to: "v1.6.1", fixtures: ["R04"], atoms: ["block.count"]}]
	}
	"fix-with-regression": {
		doc:        "openai-agents-js #1070 is fixed from 0.5.4 to 0.14.3, but the upgrade regresses T1 on empty content."
		nullPolicy: "strict"
		require: [_controlPasses]
		fixedBy: [{doc: "openai-agents-js #1070", lane: "openai-agents-js", from: "0.5.4", to: "0.14.3", configurations: ["default"], fixtures: ["R07"], tasks: ["TP"], atoms: ["request.accepted"]}]
	}
	"fix-not-landed": {
		doc:        "mcp-go #566 is open: isError false is still dropped from v0.38.0 to v1.2.1."
		nullPolicy: "strict"
		require: [_controlPasses]
		fixedBy: [{doc: "mcp-go #566", lane: "mcp-go", from: "v0.38.0", to: "v1.2.1", fixtures: ["R03"], tasks: ["T3"], atoms: ["error.decision"]}]
	}
}
`)
	for _, profile := range []string{"fixes-reversed", "fix-not-landed", "fix-with-regression"} {
		code, stdout, stderr := cli(t, "check", "--contracts", layer, "--profile", profile)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (unmet): %s%s", profile, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "fixed-by ✗") || !strings.Contains(stdout, "not fixed") {
			t.Errorf("%s: the text report does not show the unmet clause:\n%s", profile, stdout)
		}
		if profile == "fix-with-regression" && !strings.Contains(stdout, "regressed: X09 default A2 T1: pass → unmet") {
			t.Errorf("%s: the regression on empty content is not shown:\n%s", profile, stdout)
		}
	}
}

// reportedJSON is the JSON report of check --suite reported on the built-in data, run once for the
// tests that read it; a gate that is not met (exit 1) is a report too.
func reportedJSON(t *testing.T) string {
	t.Helper()
	code, stdout, stderr := cliShared(t, "check", "--suite", "reported", "--format", "json")
	if code > 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return stdout
}

// TestReportedTable checks that `check --suite reported` gives, per report, each captured side's
// outcome: the buggy side unmet on the report's atoms and the fixed side pass where both run.
func TestReportedTable(t *testing.T) {
	t.Parallel()
	stdout := reportedJSON(t)
	var rep struct {
		Reported []struct {
			Fixture string
			Buggy   struct{ Version, Outcome string }
			Fixed   struct{ Version, Outcome string }
		} `json:"reported"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rep.Reported {
		got[r.Fixture] = r.Buggy.Outcome + " → " + r.Fixed.Outcome
	}
	for fixture, want := range map[string]string{
		"R02": "unmet → pass", // mcp-go #522
		"R04": "unmet → pass", // adk-go #1352
		"R07": "unmet → pass", // openai-agents-js #1070
		"R03": "unmet → not captured",
		"R10": "not captured → pass",
	} {
		if got[fixture] != want {
			t.Errorf("%s: %q, want %q", fixture, got[fixture], want)
		}
	}
	if len(rep.Reported) < 10 {
		t.Errorf("%d reported losses, want at least 10", len(rep.Reported))
	}
}

// TestReportedModelFeatures shows each model feature the reports needed, on its fixture: the slot
// inside a JSON text (R01 at langchain-mcp-adapters-js M3: the structured value is read inside the
// content string, and found rounded), block.delivery (R06 at adk-go v1.7.0: the image reaches the
// model as text) and provider acceptance (R07 at openai-agents-js 0.5.4: the Responses API's schema
// refuses raw base64 as an image_url, and accepts 0.14.3's data URL).
func TestReportedModelFeatures(t *testing.T) {
	t.Parallel()
	stdout := reportedJSON(t)
	var rep struct {
		Results []struct {
			Fixture, Lane, LaneVersion, Configuration, Stage, Task, Outcome string
			Diagnostics                                                     []map[string]any
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	find := func(fixture, lane, version, stage, task string) (string, []string) {
		for _, r := range rep.Results {
			if r.Fixture == fixture && r.Lane == lane && r.LaneVersion == version && r.Configuration == "default" && r.Stage == stage && r.Task == task {
				var ds []string
				for _, d := range r.Diagnostics {
					ds = append(ds, d["atom"].(string)+" "+d["kind"].(string))
				}
				return r.Outcome, ds
			}
		}
		t.Fatalf("no result for %s %s %s %s %s", fixture, lane, version, stage, task)
		return "", nil
	}
	contains := func(ds []string, want string) bool {
		for _, d := range ds {
			if d == want {
				return true
			}
		}
		return false
	}
	if _, ds := find("R01", "langchain-mcp-adapters-js", "1.1.4", "M3", "T2"); !contains(ds, "structured.value altered") || contains(ds, "structured.state missing") {
		t.Errorf("R01 langchain-mcp-adapters-js M3 T2: %v, want the rounded value read inside the JSON text (structured.value altered), not a missing slot", ds)
	}
	if _, ds := find("R06", "adk-go", "v1.7.0", "H4", "TM"); !contains(ds, "block.delivery altered") {
		t.Errorf("R06 adk-go v1.7.0 H4 TM: %v, want block.delivery altered (the image reaches the model as text)", ds)
	}
	if o, _ := find("R06", "direct", "v1", "H4", "TM"); o != "pass" {
		t.Errorf("R06 direct H4 TM: %s, want pass", o)
	}
	if _, ds := find("R07", "openai-agents-js", "0.5.4", "H4", "TP"); !contains(ds, "request.accepted altered") {
		t.Errorf("R07 openai-agents-js 0.5.4 H4 TP: %v, want request.accepted altered", ds)
	}
	if o, _ := find("R07", "openai-agents-js", "0.14.3", "H4", "TP"); o != "pass" {
		t.Errorf("R07 openai-agents-js 0.14.3 H4 TP: %s, want pass", o)
	}
}

// TestVersionOrigins lets one lane mix a captured version with a documented reconstructed one: a
// record's origin must be its version's, as the lane's versionOrigins says.
func TestVersionOrigins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	layer := filepath.Join(dir, "origins")
	write(t, filepath.Join(layer, "origins.cue"), "package contracts\n\nlanes: \"go-sdk\": versionOrigins: \"v1.7.0\": \"reconstructed\"\n")
	rec := builtinLine(t, "fixtures/observations/go-sdk/v1.7.0/default.jsonl", `"fixture":"R01"`, `"stage":"D1"`, `"repetition":1`)
	tests := []struct {
		name, record string
		code         int
		want         string
	}{
		{name: "the version's own origin is accepted", record: strings.Replace(rec, `"origin":"captured"`, `"origin":"reconstructed","basis":[{"rule":"structuredContent decodes through float64","file":"mcp/protocol.go","function":"CallToolResult.UnmarshalJSON","version":"v1.7.0"}]`, 1), code: 0},
		{name: "the lane's origin is refused for an overridden version", record: rec, code: 2, want: "/origin: lane go-sdk v1.7.0 is reconstructed, but the record says captured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := filepath.Join(t.TempDir(), "obs")
			write(t, filepath.Join(obs, "go-sdk.jsonl"), tt.record+"\n")
			code, stdout, stderr := cli(t, "check", "--contracts", layer, "--observations", obs, "--format", "json")
			if tt.code == 0 {
				if code > 2 || !strings.Contains(stdout, `"origin": "reconstructed"`) {
					t.Errorf("exit %d; the reconstructed record was not read as such: %s", code, stderr)
				}
				return
			}
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}
