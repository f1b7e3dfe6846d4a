package census

import (
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// versioned is one binding of lane a at a version, with the atoms its diagnostics name.
type versioned struct {
	fixture, version, outcome string
	atoms                     []string
}

func fixCensus(t *testing.T, fb contract.FixedBy, rows []versioned) result.Gate {
	t.Helper()
	m := model()
	l := m.Lanes["a"]
	l.Versions = []string{"1", "2"}
	m.Lanes["a"] = l
	fb.Name, fb.Lane = "profiles.p.fixedBy[0]", "a"
	m.Profiles["p"] = contract.Profile{NullPolicy: "strict", FixedBy: []contract.FixedBy{fb}}
	c, err := testNew(m, "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for rep := 1; rep <= 3; rep++ {
			reading := result.Reading{
				Binding:    result.Binding{Position: result.Position{Fixture: r.fixture, Lane: "a", LaneVersion: r.version, Configuration: "default", Stage: "A2"}, Task: "P"},
				Repetition: rep, Origin: "captured", Outcome: r.outcome, File: "obs.jsonl", Line: rep,
			}
			for _, a := range r.atoms {
				reading.Diagnostics = append(reading.Diagnostics, result.Diagnostic{"atom": a, "path": "", "kind": "missing"})
			}
			if err := c.Add(reading); err != nil {
				t.Fatal(err)
			}
		}
	}
	return mustReport(t, c).Gate
}

func TestFixedBy(t *testing.T) {
	fixAtF1 := contract.FixedBy{Doc: "the fix", From: "1", To: "2", Fixtures: []string{"F1"}, Atoms: []string{"x.lost"}}
	reversed := fixAtF1
	reversed.From, reversed.To = "2", "1"
	tests := []struct {
		name        string
		clause      contract.FixedBy
		rows        []versioned
		verdict     string
		status      string
		remaining   int
		regressions int
	}{
		{
			name:   "the atom disappears and nothing regresses: fixed",
			clause: fixAtF1,
			rows: []versioned{
				{"F1", "1", result.Unmet, []string{"x.lost"}}, {"F1", "2", result.Pass, nil},
				{"F3", "1", result.Pass, nil}, {"F3", "2", result.Pass, nil},
			},
			verdict: result.VerdictSatisfied, status: result.FixFixed,
		},
		{
			name:   "an unmet binding that no longer names the atom counts as fixed",
			clause: fixAtF1,
			rows: []versioned{
				{"F1", "1", result.Unmet, []string{"x.lost", "y.other"}}, {"F1", "2", result.Unmet, []string{"y.other"}},
			},
			verdict: result.VerdictSatisfied, status: result.FixFixed,
		},
		{
			name:   "the versions named the other way round: nothing to fix at from, and the loss comes back",
			clause: reversed,
			rows: []versioned{
				{"F1", "1", result.Unmet, []string{"x.lost"}}, {"F1", "2", result.Pass, nil},
			},
			verdict: result.VerdictUnmet, status: result.FixUnmet, remaining: 1, regressions: 1,
		},
		{
			name:   "the atom remains: unmet",
			clause: fixAtF1,
			rows: []versioned{
				{"F1", "1", result.Unmet, []string{"x.lost"}}, {"F1", "2", result.Unmet, []string{"x.lost"}},
			},
			verdict: result.VerdictUnmet, status: result.FixUnmet, remaining: 1,
		},
		{
			name:   "the fixed version fails to run: the fix is not shown",
			clause: fixAtF1,
			rows: []versioned{
				{"F1", "1", result.Unmet, []string{"x.lost"}}, {"F1", "2", result.ExecutionFailed, nil},
			},
			verdict: result.VerdictUnmet, status: result.FixUnmet, remaining: 1,
		},
		{
			name:   "the fix lands but another fixture regresses: unmet",
			clause: fixAtF1,
			rows: []versioned{
				{"F1", "1", result.Unmet, []string{"x.lost"}}, {"F1", "2", result.Pass, nil},
				{"F3", "1", result.Pass, nil}, {"F3", "2", result.Unmet, []string{"z.broken"}},
			},
			verdict: result.VerdictUnmet, status: result.FixUnmet, regressions: 1,
		},
		{
			name:   "a version without records: selected nothing",
			clause: fixAtF1,
			rows: []versioned{
				{"F1", "1", result.Unmet, []string{"x.lost"}},
			},
			verdict: result.VerdictSelectedNothing, status: result.FixSelectedNothing,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := fixCensus(t, tt.clause, tt.rows)
			if g.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s", g.Verdict, tt.verdict)
			}
			if len(g.FixedBy) != 1 {
				t.Fatalf("%d fixedBy results, want 1", len(g.FixedBy))
			}
			f := g.FixedBy[0]
			if f.Status != tt.status || len(f.Remaining) != tt.remaining || len(f.Regressions) != tt.regressions {
				t.Errorf("status %s, %d remaining, %d regressions; want %s, %d, %d (%+v)", f.Status, len(f.Remaining), len(f.Regressions), tt.status, tt.remaining, tt.regressions, f)
			}
		})
	}
}
