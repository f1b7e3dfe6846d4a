package check

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// reportedJSON is the check of the built-in reported suite (check --suite reported), run once for
// the tests that read it, as its JSON report holds its reported table and results; a gate that is
// not met (exit 1) is a report too.
func reportedJSON(t *testing.T) []byte {
	t.Helper()
	b, err := reported()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var reported = sync.OnceValues(func() ([]byte, error) {
	r, err := Run(context.Background(), inputs.Options{Scope: result.Scope{Suites: []string{"reported"}}})
	if err != nil {
		return nil, err
	}
	if code := r.ExitCode(); code > 1 {
		return nil, fmt.Errorf("exit %d: %+v", code, r.Gate)
	}
	var results []*result.Result
	for _, res := range r.Each() {
		results = append(results, res)
	}
	return json.Marshal(map[string]any{"reported": r.Reported, "results": results})
})

// TestReportedTable checks that the check of the reported suite (`check --suite reported`) gives, per report, each captured side's
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
	if err := json.Unmarshal(stdout, &rep); err != nil {
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
	if err := json.Unmarshal(stdout, &rep); err != nil {
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
