package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Text writes the report for a reader at a terminal: per task a matrix of fixtures by lane and
// stage, then every unmet binding with its diagnostics, the boundaries, the divergence census and
// the gate.
type Text struct{}

// marks are the matrix cells, one per outcome.
var marks = map[string]string{
	Pass:            "✓",
	Unmet:           "✗",
	ExecutionFailed: "E",
	NotReached:      "·",
	NotApplicable:   "–",
	NotObservable:   "?",
	Unstable:        "~",
}

var stageOrder = []string{"D1", "A2", "M3", "H4"}

// Output implements Outputter.
func (Text) Output(w io.Writer, r *Report) error {
	bw := &strings.Builder{}
	fmt.Fprintf(bw, "contractcheck: profile %s (null policy %s)\n", r.Profile, r.NullPolicy)
	fmt.Fprintf(bw, "legend: ✓ pass  ✗ unmet  E execution_failed  · not_reached  – not_applicable  ? not_observable  ~ unstable\n")
	writeMatrices(bw, r)
	writeUnmet(bw, r)
	writeBoundaries(bw, r)
	writeDivergences(bw, r)
	writeUpgrades(bw, r)
	s := r.Summary
	fmt.Fprintf(bw, "\nsummary: %d pass, %d unmet, %d execution_failed, %d not_reached, %d not_applicable, %d not_observable, %d unstable\n",
		s.Pass, s.Unmet, s.ExecutionFailed, s.NotReached, s.NotApplicable, s.NotObservable, s.Unstable)
	writeGate(bw, r)
	// Matrix columns are padded; trailing blanks are trimmed so the output diffs cleanly.
	out := bufio.NewWriter(w)
	for _, line := range strings.SplitAfter(bw.String(), "\n") {
		trimmed := strings.TrimRight(line, " \n")
		if strings.HasSuffix(line, "\n") {
			trimmed += "\n"
		}
		out.WriteString(trimmed)
	}
	return out.Flush()
}

func laneKey(r *Result) string { return r.Lane + " " + r.LaneVersion + " " + r.Configuration }

func writeMatrices(w io.Writer, r *Report) {
	byTask := map[string][]*Result{}
	for i := range r.Results {
		res := &r.Results[i]
		byTask[res.Task] = append(byTask[res.Task], res)
	}
	for _, task := range sortedKeys(byTask) {
		results := byTask[task]
		lanes := map[string]bool{}
		cells := map[[3]string]string{} // fixture, lane key, stage
		var fixtures []string
		seen := map[string]bool{}
		for _, res := range results {
			lanes[laneKey(res)] = true
			cells[[3]string{res.Fixture, laneKey(res), res.Stage}] = marks[res.Outcome]
			if !seen[res.Fixture] {
				seen[res.Fixture] = true
				fixtures = append(fixtures, res.Fixture)
			}
		}
		sort.Strings(fixtures)
		laneKeys := sortedKeys(lanes)
		fmt.Fprintf(w, "\n%s (%s, compartment %s)\n", task, roleOf(results), results[0].Compartment)
		width := 7
		for _, f := range fixtures {
			width = max(width, len(f))
		}
		cols := make([]int, len(laneKeys))
		fmt.Fprintf(w, "  %-*s", width, "fixture")
		for i, lk := range laneKeys {
			cols[i] = max(11, len([]rune(lk)))
			fmt.Fprintf(w, " │ %-*s", cols[i], lk)
		}
		fmt.Fprintf(w, "\n  %-*s", width, "")
		for i := range laneKeys {
			fmt.Fprintf(w, " │ %-*s", cols[i], strings.Join(stageOrder, " "))
		}
		fmt.Fprintln(w)
		for _, f := range fixtures {
			fmt.Fprintf(w, "  %-*s", width, f)
			for c, lk := range laneKeys {
				row := make([]string, len(stageOrder))
				for i, st := range stageOrder {
					m, ok := cells[[3]string{f, lk, st}]
					if !ok {
						m = " "
					}
					row[i] = m + " "
				}
				fmt.Fprintf(w, " │ %-*s", cols[c], strings.TrimRight(strings.Join(row, " "), " "))
			}
			fmt.Fprintln(w)
		}
	}
}

// roleOf names the task's role; a primary task on a family reported apart says so.
func roleOf(results []*Result) string {
	roles := map[string]bool{}
	for _, r := range results {
		roles[r.Role] = true
	}
	return strings.Join(sortedKeys(roles), "/")
}

func writeUnmet(w io.Writer, r *Report) {
	header := false
	for i := range r.Results {
		res := &r.Results[i]
		if res.Outcome != Unmet && res.Outcome != Unstable && res.Outcome != ExecutionFailed {
			continue
		}
		if !header {
			fmt.Fprintf(w, "\nunmet, failed and unstable bindings:\n")
			header = true
		}
		fmt.Fprintf(w, "  %s %s %s %s %s %s [%s]: %s\n", res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task, res.Compartment, res.Outcome)
		if res.Error != "" {
			fmt.Fprintf(w, "      error: %s\n", res.Error)
		}
		for _, d := range res.Diagnostics {
			fmt.Fprintf(w, "      %s\n", FormatDiagnostic(d))
		}
		for _, v := range res.Variants {
			fmt.Fprintf(w, "      repetitions %v: %s\n", v.Repetitions, v.Outcome)
			for _, d := range v.Diagnostics {
				fmt.Fprintf(w, "        %s\n", FormatDiagnostic(d))
			}
		}
	}
}

// FormatDiagnostic renders a diagnostic on one line: atom, path, kind, expected and observed.
func FormatDiagnostic(d Diagnostic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v", d["atom"])
	if p, _ := d["path"].(string); p != "" {
		fmt.Fprintf(&b, " %s", p)
	}
	fmt.Fprintf(&b, " %v", d["kind"])
	if v, ok := d["expected"]; ok {
		fmt.Fprintf(&b, ": expected %s", short(v))
	}
	if v, ok := d["observed"]; ok {
		fmt.Fprintf(&b, ", observed %s", short(v))
	}
	return b.String()
}

func short(v any) string {
	b, err := strictjson.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

func writeBoundaries(w io.Writer, r *Report) {
	if len(r.Localizations) == 0 {
		return
	}
	fmt.Fprintf(w, "\nboundaries (a pass followed by an unmet):\n")
	for _, l := range r.Localizations {
		fmt.Fprintf(w, "  %s %s %s %s %s: %s → %s (%s)\n", l.Fixture, l.Lane, l.LaneVersion, l.Configuration, l.Task, l.From, l.To, l.Kind)
	}
}

func writeDivergences(w io.Writer, r *Report) {
	c := r.CapturedDivergences
	fmt.Fprintf(w, "\ndivergences, captured lanes only: %d unique, %d manifestations; guard %d; apart %d\n", len(c.Unique), c.Manifestations, len(c.Guard), len(c.Apart))
	d := r.Divergences
	fmt.Fprintf(w, "divergences, all lanes (reconstructed included): %d unique, %d manifestations", len(d.Unique), d.Manifestations)
	if len(d.ByFamily) > 0 {
		var parts []string
		for _, f := range sortedKeys(d.ByFamily) {
			parts = append(parts, fmt.Sprintf("%s %d", f, d.ByFamily[f]))
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "; guard %d; apart %d\n", len(d.Guard), len(d.Apart))
	for _, list := range []struct {
		name string
		divs []Divergence
	}{{"primary", d.Unique}, {"guard", d.Guard}, {"apart", d.Apart}} {
		for _, v := range list.divs {
			fmt.Fprintf(w, "  %s %s %s (%s) at %s\n", list.name, v.Fixture, v.Task, v.Family, strings.Join(v.Stages, " "))
		}
	}
	if len(d.LeaveOneOut) > 0 {
		var parts []string
		for _, l := range sortedKeys(d.LeaveOneOut) {
			parts = append(parts, fmt.Sprintf("%s %d", l, d.LeaveOneOut[l]))
		}
		fmt.Fprintf(w, "  leave one lane out: %s\n", strings.Join(parts, ", "))
	}
	if lanes := ReconstructedLanes(r); len(lanes) > 0 {
		fmt.Fprintf(w, "  these counts include the reconstructed lanes %s (carriers derived from source, not captured)\n", strings.Join(lanes, ", "))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func writeUpgrades(w io.Writer, r *Report) {
	for _, u := range r.Upgrades {
		fmt.Fprintf(w, "\nupgrade %s %s → %s (%s): %d bindings changed\n", u.Lane, u.From, u.To, u.Configuration, len(u.Changes))
		for _, c := range u.Changes {
			fmt.Fprintf(w, "  %s %s %s: %s → %s\n", c.Fixture, c.Stage, c.Task, c.Before, c.After)
			for _, d := range c.DiagnosticsBefore {
				fmt.Fprintf(w, "      before: %s\n", FormatDiagnostic(d))
			}
			for _, d := range c.DiagnosticsAfter {
				fmt.Fprintf(w, "      after:  %s\n", FormatDiagnostic(d))
			}
		}
	}
}

// writeGate writes the gate's verdict as the last lines: what each requirement gated, then the
// violations. A run whose instrument failed, or whose gate selected nothing, never reads as
// satisfied.
func writeGate(w io.Writer, r *Report) {
	g := r.Gate
	gated := 0
	for _, q := range g.Requirements {
		gated += q.Selected - q.Exempt
	}
	switch g.Verdict {
	case VerdictSatisfied:
		fmt.Fprintf(w, "gate: profile %s satisfied (%d requirements, %d bindings gated)\n", r.Profile, len(g.Requirements), gated)
	case VerdictUnmet:
		fmt.Fprintf(w, "gate: profile %s NOT satisfied (%d violations)\n", r.Profile, len(g.Violations))
	case VerdictSelectedNothing:
		fmt.Fprintf(w, "gate: profile %s selected nothing: no verdict (exit 2)\n", r.Profile)
		for _, q := range g.Requirements {
			if q.Unmatched != "" {
				fmt.Fprintf(w, "  %s: %s\n", q.Name, q.Unmatched)
			}
		}
	case VerdictInstrumentFailed:
		fmt.Fprintf(w, "gate: the instrument failed (%d unstable bindings): no verdict for profile %s (exit 3)\n", r.Summary.Unstable, r.Profile)
	}
	for _, v := range g.Violations {
		fmt.Fprintf(w, "  %s %s %s %s %s %s: %s (requirement: %s)\n", v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage, v.Task, v.Outcome, v.Requirement)
	}
}
