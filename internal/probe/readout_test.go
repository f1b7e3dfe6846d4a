package probe

import (
	"context"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/result"
)

// judged checks what a probe of the test agent in mode wrote, over the visibility fixtures, as
// `contractcheck check --observations OUT --contracts OUT --profile probe` does.
func judged(t *testing.T, mode string) *result.Report {
	t.Helper()
	o := probeOpts(t, "agent", []string{"TESTAGENT_MODE=" + mode, "TESTAGENT_API=openai-responses", "TESTAGENT_STREAM=0", "TESTAGENT_TRANSPORT=http"}, "V0*")
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	in := o.Inputs
	in.Contracts = append(append([]string(nil), in.Contracts...), o.Output)
	in.Observations = []string{o.Output}
	in.Profile = ProfileName
	in.Scope = result.Scope{Lanes: []string{o.Lane}, Fixtures: o.Inputs.Scope.Fixtures}
	r, err := check.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if r.VisibilityGroups() != 1 {
		t.Fatalf("visibility %+v, want one H4 group", r.VisibilityReadout())
	}
	return r
}

// TestReadoutOfClientHabits probes test agents that send their model what real clients send in
// place of a tool result (issue 40), and reads the visibility readout and the probe profile's
// gate off their records.
func TestReadoutOfClientHabits(t *testing.T) {
	t.Parallel()
	// gemini-cli's habit: each result's text between two tag lines. The readout finds the text as
	// whole lines of it (line), on the error result too: content-only, on error the content.
	t.Run("tag lines", func(t *testing.T) {
		v := judged(t, "tag-lines").Visibility.At(0)
		if v.Category != "content-only" || v.OnError != "content" || v.NothingServed() {
			t.Errorf("visibility %s, want content-only with the content on error", v.Summary())
		}
		for _, f := range v.Fixtures {
			want := "line"
			if f.Fixture == "V02" {
				want = "empty"
			}
			if f.Channels["content"] != want || f.Channels["structured"] != "none" {
				t.Errorf("%s: channels %v, want content %s and no structured value", f.Fixture, f.Channels, want)
			}
		}
	})

	// An agent that sends its own error in place of every result (a client rejecting what it was
	// served): every record carries nothing of it, and the probe profile's gate is unmet although
	// every binding is judged pass or unmet.
	t.Run("nothing served", func(t *testing.T) {
		r := judged(t, "reject-result")
		if v := r.Visibility.At(0); !v.NothingServed() || v.Category != "neither" {
			t.Fatalf("visibility %s %+v, want neither with nothing served", v.Summary(), v)
		}
		g := r.Gate
		if g.Satisfied || g.Verdict != result.VerdictUnmet || len(g.Violations) != 0 {
			t.Errorf("gate %s with %d violations, want unmet by visibility.reached alone", g.Verdict, len(g.Violations))
		}
		if len(g.Reached) != 1 || len(g.Reached[0].Unreached) != 1 || len(g.Reached[0].Unreached[0].Records) != 4 ||
			g.Reached[0].Name != "profiles.probe.visibility.reached" {
			t.Errorf("reached %+v, want acme-agent's H4 group unreached with its 4 records", g.Reached)
		}
	})
}
