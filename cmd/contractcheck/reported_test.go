package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestFixedByProfile gates the reported fixes on the captured records: the built-in profile
// reported-fixes (buggy → fixed) is satisfied, and the same clauses named the other way round
// (fixed → buggy), or on a pair where the loss remains, are unmet. Each run is scoped to what its
// clauses read (the reported suite; the lane of the regressed fix, whose regression is outside
// that suite, and the control lane), not the whole built-in set: a clause judges its lane's
// versions over the run's scope.
func TestFixedByProfile(t *testing.T) {
	t.Parallel()
	stdout, _ := cliOK(t, "check", "--profile", "reported-fixes", "--format", "json", "--suite", "reported")
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
	testkit.WriteFile(t, filepath.Join(layer, "reversed.cue"), `package contracts

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

	for _, tc := range []struct {
		profile string
		scope   []string
	}{
		{profile: "fixes-reversed", scope: []string{"--suite", "reported"}},
		{profile: "fix-not-landed", scope: []string{"--suite", "reported"}},
		{profile: "fix-with-regression", scope: []string{"--lane", "openai-agents-js", "--lane", "direct"}},
	} {
		profile := tc.profile
		code, stdout, stderr := cli(t, append([]string{"check", "--contracts", layer, "--profile", profile}, tc.scope...)...)
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

// TestVersionOrigins lets one lane mix a captured version with a documented reconstructed one: a
// record's origin must be its version's, as the lane's versionOrigins says.
func TestVersionOrigins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	layer := filepath.Join(dir, "origins")
	testkit.WriteFile(t, filepath.Join(layer, "origins.cue"), "package contracts\n\nlanes: \"go-sdk\": versionOrigins: \"v1.7.0\": \"reconstructed\"\n")
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
			testkit.WriteFile(t, filepath.Join(obs, "go-sdk.jsonl"), tt.record+"\n")
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
