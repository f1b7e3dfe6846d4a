package check

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestMCPPythonControl checks the second control lane, the official MCP Python SDK's
// ClientSession (captured): it must pass every binding except where the SDK itself changes the
// result, and each such place is listed here with the reason, so a new one fails the test instead
// of passing unnoticed, and a fixed one does too.
func TestMCPPythonControl(t *testing.T) {
	findings := map[string]string{
		// pydantic's JSON parser reads a number with a fraction as a Python float: the source's
		// 0.1000000000000000055511151231257827 becomes 0.1.
		"C02 D1 T2 unmet": "structured.value altered /unitCostRatio",
		// mcp 1.29 types structuredContent as dict[str, Any] | None: the array structuredContent of
		// revision 2026-07-28 fails validation, so call_tool raises and no result exists.
		"X01 D1 T1 execution_failed": "ValidationError",
		"X01 D1 T2 execution_failed": "ValidationError",
	}
	r, err := Run(context.Background(), inputs.Options{Profile: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := instrument.Load(context.Background(), inputs.Options{Profile: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	if l := in.Model.Lanes["mcp-python"]; !l.Control || l.Origin != "captured" {
		t.Fatalf("mcp-python: control %v, origin %q; want a captured control lane", l.Control, l.Origin)
	}
	seen := map[string]bool{}
	passes := 0
	for _, res := range r.Each() {
		if res.Lane != "mcp-python" || res.Stage != "D1" {
			continue
		}
		if res.Repetitions != 3 {
			t.Errorf("%s %s %s: %d repetitions, want 3", res.Fixture, res.Stage, res.Task, res.Repetitions)
		}
		if res.Outcome == result.Pass {
			passes++
			continue
		}
		key := fmt.Sprintf("%s %s %s %s", res.Fixture, res.Stage, res.Task, res.Outcome)
		want, listed := findings[key]
		if !listed {
			t.Errorf("mcp-python %s: not a listed SDK finding: %v %s", key, res.Diagnostics, res.Error)
			continue
		}
		seen[key] = true
		var got []string
		for _, d := range res.Diagnostics {
			got = append(got, fmt.Sprintf("%v %v %v", d["atom"], d["kind"], d["path"]))
		}
		sort.Strings(got)
		if text := strings.Join(got, "; ") + res.Error; !strings.Contains(text, want) {
			t.Errorf("mcp-python %s: %q does not say %q", key, text, want)
		}
	}
	for key := range findings {
		if !seen[key] {
			t.Errorf("mcp-python %s: the listed SDK finding no longer occurs", key)
		}
	}
	want := 0
	for _, f := range in.Model.Fixtures {
		for _, task := range f.Tasks {
			if in.Model.Tasks[task].AtStage("D1") {
				want++
			}
		}
	}
	if passes+len(findings) != want {
		t.Errorf("mcp-python: %d passes and %d findings, want a D1 result for each of the %d catalogued fixture tasks", passes, len(findings), want)
	}
}

// TestPythonLanesCaptured checks that check reports the seed study's Python frameworks that run
// here as captured: openai-agents 0.22.0 at D1–H4 in its three configurations and agent-framework
// 1.13.0 at A2–H4, every binding collapsed from three repetitions.
func TestPythonLanesCaptured(t *testing.T) {
	r, err := Run(context.Background(), inputs.Options{Profile: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ lane, version, configuration, stage string }
	seen := map[key]int{}
	for _, res := range r.Each() {
		if res.Lane != "openai-agents" && res.Lane != "agent-framework" {
			continue
		}
		if res.Origin != "captured" || res.Repetitions != 3 {
			t.Errorf("%s %s %s %s %s %s: origin %s in %d repetitions, want captured in 3", res.Lane, res.LaneVersion, res.Configuration, res.Fixture, res.Stage, res.Task, res.Origin, res.Repetitions)
		}
		if res.Outcome == result.Pass || res.Outcome == result.Unmet {
			seen[key{res.Lane, res.LaneVersion, res.Configuration, res.Stage}]++
		}
	}
	var want []key
	for _, cfg := range []string{"default", "use-structured-content", "application-context"} {
		for _, st := range []string{"D1", "A2", "M3", "H4"} {
			want = append(want, key{"openai-agents", "0.22.0", cfg, st})
		}
	}
	for _, st := range []string{"A2", "M3", "H4"} {
		want = append(want, key{"agent-framework", "1.13.0", "default", st})
	}
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("no pass or unmet binding for %v", k)
		}
	}
}
