package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Text writes the report for a person reading a CI log or a terminal. By default it is a summary:
// per lane, version and configuration the task pass counts, the divergence census, the gate's
// verdict with each violation and the record it comes from, the verdict last. With Details it
// first gives, per task, a matrix of fixtures by lane and stage, every unmet binding with its
// diagnostics, the boundaries, the divergences and the upgrade changes. Every line fits the
// style's width. Every string of the data is written through escape.Terminal where it meets the
// text, and the text through an escape.LogWriter: no line starts a CI runner's command.
type Text struct {
	Details bool
	Style   Style
}

// maxViolations bounds the violations listed without Details; the JSON report lists all.
const maxViolations = 20

// marks are the matrix cells, one per outcome.
var marks = map[string]string{
	result.Pass:            "✓",
	result.Unmet:           "✗",
	result.ExecutionFailed: "E",
	result.NotReached:      "·",
	result.NotApplicable:   "–",
	result.NotObservable:   "?",
	result.Ambiguous:       "A",
	result.Unstable:        "~",
}

const legend = "✓ pass  ✗ unmet  E execution_failed  · not_reached  – not_applicable  ? not_observable  A ambiguous  ~ unstable"

var stageOrder = []string{"D1", "A2", "M3", "H4"}

// Output implements Outputter.
func (t Text) Output(w io.Writer, r *result.Report) error {
	var b strings.Builder
	width := t.Style.Width
	if width <= 0 {
		width = DefaultWidth
	}
	if r.NullPolicy == "" { // a failed run's report: the contracts did not give it
		fmt.Fprintf(&b, "contractcheck: profile %s\n", term(r.Profile))
	} else {
		fmt.Fprintf(&b, "contractcheck: profile %s (null policy %s)\n", term(r.Profile), term(r.NullPolicy))
	}
	if s := r.CohortText(); s != "" {
		fmt.Fprintf(&b, "cohort of the profile: %s\n", term(s))
	}
	if s := r.ScopeText(); s != "" {
		fmt.Fprintf(&b, "restricted to %s\n", term(s))
	}
	if r.Failure != nil {
		writeTextFailure(&b, r)
		return t.Style.write(w, b.String())
	}
	if t.Details {
		fmt.Fprintf(&b, "legend: %s\n", legend)
		writeMatrices(&b, r, width)
		writeUnmet(&b, r)
		writeBoundaries(&b, r)
		writeDivergenceList(&b, r)
		writeUpgrades(&b, r)
	}
	writeSummary(&b, r, width)
	limit := maxViolations
	if t.Details {
		limit = len(r.Gate.Violations)
	}
	writeReportedText(&b, r.Reported)
	writeVisibilityText(&b, r.Visibility, width)
	writeGate(&b, r, limit)
	return t.Style.write(w, b.String())
}

// writeSummary writes the findings table, the census and the counts a reader looks for first.
func writeSummary(w io.Writer, r *result.Report, width int) {
	s := r.Summary
	fmt.Fprintln(w)
	wrapList(w, fmt.Sprintf("%d bindings: ", r.Len()), []string{fmt.Sprintf("%d pass", s.Pass), fmt.Sprintf("%d unmet", s.Unmet),
		fmt.Sprintf("%d execution_failed", s.ExecutionFailed), fmt.Sprintf("%d not_reached", s.NotReached), fmt.Sprintf("%d not_applicable", s.NotApplicable),
		fmt.Sprintf("%d not_observable", s.NotObservable), fmt.Sprintf("%d ambiguous", s.Ambiguous), fmt.Sprintf("%d unstable", s.Unstable)}, width)
	tasks, rows := Findings(r)
	if len(rows) > 0 {
		writeFindingsTable(w, tasks, rows, width)
	}
	c, d := r.CapturedDivergences, r.Divergences
	fmt.Fprintln(w)
	counts := func(d result.Divergences, byOrigin bool) {
		for _, c := range censusCounts(d, byOrigin, term) {
			wrapList(w, "  "+c.Label+": ", c.Parts, width)
		}
	}
	if reconstructed := reconstructedRows(rows); len(reconstructed) > 0 {
		fmt.Fprintf(w, "divergences, captured lanes only: %d unique, %d manifestations; guard %d; apart %d\n", len(c.Unique), c.Manifestations, len(c.Guard), len(c.Apart))
		counts(c, false)
		fmt.Fprintf(w, "divergences, all lanes (the reconstructed %s included): %d unique, %d manifestations; guard %d; apart %d\n",
			strings.Join(terms(reconstructed), ", "), len(d.Unique), d.Manifestations, len(d.Guard), len(d.Apart))
		counts(d, true)
	} else {
		fmt.Fprintf(w, "divergences: %d unique, %d manifestations; guard %d; apart %d\n", len(d.Unique), d.Manifestations, len(d.Guard), len(d.Apart))
		counts(d, false)
	}
	if r.Localized() > 0 {
		kinds := map[string]int{}
		for _, l := range r.EachLocalization() {
			kinds[l.Kind]++
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(kinds)) {
			parts = append(parts, fmt.Sprintf("%s %d", term(k), kinds[k]))
		}
		fmt.Fprintf(w, "boundaries: %d (%s)\n", r.Localized(), strings.Join(parts, ", "))
	}
	for _, u := range r.Upgrades {
		fmt.Fprintf(w, "upgrade %s %s → %s (%s): %d bindings changed\n", term(u.Lane), term(u.From), term(u.To), term(u.Configuration), u.Count())
	}
	if s.Unmet+s.ExecutionFailed+s.Unstable > 0 {
		fmt.Fprintf(w, "every diagnostic: --details, or --format json\n")
	}
}

// writeFindingsTable writes one row per lane, version and configuration with each task's
// pass/captured count; the label column gives way when the width is short. The columns are
// measured on the names as they are written, escaped, in terminal columns (escape.Width).
func writeFindingsTable(w io.Writer, taskIDs []string, rows []FindingRow, width int) {
	tasks := terms(taskIDs)
	cols := make([]int, len(tasks))
	for i, t := range tasks {
		cols[i] = escape.Width(t)
		for _, row := range rows {
			cols[i] = max(cols[i], escape.Width(row.Cells[taskIDs[i]].String()))
		}
	}
	cells := 0
	for _, c := range cols {
		cells += c + 2
	}
	label := len("lane version configuration")
	reconstructed := false
	for _, row := range rows {
		label = max(label, escape.Width(term(row.Label()))+2)
		reconstructed = reconstructed || row.Origin == "reconstructed"
	}
	label = min(label, max(20, width-2-cells))
	fmt.Fprintf(w, "\n  %s", padRight("lane version configuration", label))
	for i, t := range tasks {
		fmt.Fprintf(w, "  %s", padLeft(t, cols[i]))
	}
	fmt.Fprintln(w)
	for _, row := range rows {
		name := term(row.Label())
		if row.Origin == "reconstructed" {
			name += " *"
		}
		fmt.Fprintf(w, "  %s", padRight(cutEscaped(name, label), label))
		for i, t := range taskIDs {
			fmt.Fprintf(w, "  %s", padLeft(row.Cells[t].String(), cols[i]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  each cell: bindings that pass / captured (pass, unmet or unstable); – none captured\n")
	if reconstructed {
		fmt.Fprintf(w, "  * reconstructed from the framework's source, not captured: counted in \"all lanes\" only\n")
	}
}

// wrapList writes prefix and the items separated by commas, breaking lines between items (never
// inside one) so that each fits the width; continuation lines are indented under the first item.
func wrapList(w io.Writer, prefix string, items []string, width int) {
	indent := strings.Repeat(" ", escape.Width(prefix))
	line := prefix
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		switch {
		case line == prefix:
			line += it
		case escape.Width(line)+1+escape.Width(it) > width:
			fmt.Fprintln(w, line)
			line = indent + it
		default:
			line += " " + it
		}
	}
	fmt.Fprintln(w, line)
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// cutEscaped shortens s, text escape.Terminal wrote, to n columns, the last an ellipsis
// (escape.Cut): cut between grapheme clusters, and an escape of s (\u202e, \n) left whole or
// left out, never cut in two.
func cutEscaped(s string, n int) string { return escape.Cut(s, n, "…") }

// term is escape.Terminal: a string of the data as a terminal or a CI log may show it.
func term(s string) string { return escape.Terminal(s) }

// termExact is escape.TerminalExact, for a text no one quoted that may hold what an agent wrote
// (a record's error, with the tail of its output): a backslash that would read as an escape is
// written \\, so output that spells \u001b is told apart from an escape character. A JSON value
// (a diagnostic's expected and observed) is quoted already and goes through term.
func termExact(s string) string { return escape.TerminalExact(s) }

// terms is term of each string.
func terms(xs []string) []string { return escape.Each(escape.Terminal, xs) }

// writeGate writes the gate's verdict as the last lines: the verdict, then each violation with the
// record it comes from, at most limit of them. A run whose instrument failed, or whose gate
// selected nothing, never reads as satisfied.
func writeGate(w io.Writer, r *result.Report, limit int) {
	g := r.Gate
	gated := g.Gated()
	fmt.Fprintln(w)
	for i, v := range g.Violations {
		if i == limit {
			fmt.Fprintf(w, "  … and %d more violations (--details, or --format json, lists them all)\n", len(g.Violations)-limit)
			break
		}
		if i == 0 {
			fmt.Fprintf(w, "violations:\n")
		}
		line := fmt.Sprintf("  ✗ %s %s %s %s %s %s: %s", term(v.Fixture), term(v.Lane), term(v.LaneVersion), term(v.Configuration), term(v.Stage), term(v.Task), term(v.Outcome))
		if atoms := Atoms(v.Diagnostics); len(atoms) > 0 {
			line += " — " + strings.Join(terms(atoms), ", ")
		}
		fmt.Fprintln(w, line)
		if at := RecordAt(v.Records); at != "" {
			fmt.Fprintf(w, "      record %s\n", term(at))
		}
		fmt.Fprintf(w, "      required by %s: %s\n", term(v.RequirementName), term(oneLine(v.Requirement)))
	}
	writeFixes(w, g.FixedBy)
	writeReached(w, g.Reached)
	if scope := r.ScopeText(); scope != "" {
		for _, q := range g.Requirements {
			if q.OutOfScope {
				fmt.Fprintf(w, "  %s is out of the run's scope (%s)\n", term(q.Name), term(scope))
			}
		}
	}
	profile := term(r.Profile)
	if l := r.Lacking; l != nil {
		if l.Count > 0 {
			fmt.Fprintf(w, "INCOMPLETE: the decision logs hold %d of the %d expected bindings; %d lacking, first:\n", l.Held, l.Expected, l.Count)
			for _, b := range l.First[:min(len(l.First), limit)] {
				fmt.Fprintf(w, "  ? %s\n", term(b.String()))
			}
		}
		if e := l.Errors; e != nil {
			fmt.Fprintf(w, "INCOMPLETE: %d decisions in the logs are errors, not verdicts; first:\n", e.Count)
			for _, d := range e.First[:min(len(e.First), limit)] {
				fmt.Fprintf(w, "  ! %s\n", term(d.String()))
			}
		}
		fmt.Fprintf(w, "gate: no verdict for profile %s over an incomplete census (exit %d)\n", profile, r.ExitCode())
		return
	}
	switch g.Verdict {
	case result.VerdictSatisfied:
		fmt.Fprintf(w, "gate: profile %s satisfied (%s, %d bindings gated)\n", profile, plural(len(g.Requirements), "requirement"), gated)
	case result.VerdictUnmet:
		fmt.Fprintf(w, "gate: profile %s NOT satisfied (%d violations%s, %d bindings gated)\n", profile, len(g.Violations), unmetFixes(g.FixedBy)+unmetReached(g.Reached), gated)
	case result.VerdictSelectedNothing:
		for _, q := range g.Requirements {
			if q.Unmatched != "" {
				fmt.Fprintf(w, "  %s: %s\n", term(q.Name), term(q.Unmatched))
			}
		}
		fmt.Fprintf(w, "gate: profile %s selected nothing: no verdict (exit 2)\n", profile)
		return
	case result.VerdictInstrumentFailed:
		fmt.Fprintf(w, "gate: the instrument failed (%d unstable bindings): no verdict for profile %s (exit 3)\n", r.Summary.Unstable, profile)
	case result.VerdictIncomplete:
		// A census read while its writer runs (check --census): the parts written so far.
		fmt.Fprintf(w, "INCOMPLETE: %s\n", term(r.GateError().Error()))
		fmt.Fprintf(w, "gate: no verdict for profile %s over an incomplete census (exit %d)\n", profile, r.ExitCode())
	}
}

// laneKey names a result's lane, version and configuration, escaped for the text.
func laneKey(r *result.Result) string {
	return term(r.Lane) + " " + term(r.LaneVersion) + " " + term(r.Configuration)
}

// writeMatrices writes, per task, the fixtures by lane: each cell is one lane's stages D1 A2 M3 H4,
// one mark each. Lanes are numbered in a legend so that the columns stay narrow; when they do not
// fit the width, the matrix is split into column groups.
func writeMatrices(w io.Writer, r *result.Report, width int) {
	byTask := map[string][]*result.Result{}
	for _, res := range r.Heads() {
		byTask[res.Task] = append(byTask[res.Task], res)
	}
	for _, task := range slices.Sorted(maps.Keys(byTask)) {
		results := byTask[task]
		lanes := map[string]bool{}
		cells := map[[3]string]string{} // fixture, lane key, stage
		var fixtures []string
		seen := map[string]bool{}
		for _, res := range results {
			fixture := term(res.Fixture)
			lanes[laneKey(res)] = true
			cells[[3]string{fixture, laneKey(res), res.Stage}] = marks[res.Outcome]
			if !seen[fixture] {
				seen[fixture] = true
				fixtures = append(fixtures, fixture)
			}
		}
		sort.Strings(fixtures)
		laneKeys := slices.Sorted(maps.Keys(lanes))
		fmt.Fprintf(w, "\n%s (%s, compartment %s): each cell is a lane's D1 A2 M3 H4\n", term(task), term(roleOf(results)), term(results[0].Compartment))
		writeLegend(w, laneKeys, width)
		fw := len("fixture")
		for _, f := range fixtures {
			fw = max(fw, escape.Width(f))
		}
		per := max(1, (width-2-fw)/5)
		for start := 0; start < len(laneKeys); start += per {
			end := min(len(laneKeys), start+per)
			fmt.Fprintf(w, "  %s", padRight("fixture", fw))
			for i := start; i < end; i++ {
				fmt.Fprintf(w, " %4d", i+1)
			}
			fmt.Fprintln(w)
			for _, f := range fixtures {
				fmt.Fprintf(w, "  %s", padRight(f, fw))
				for _, lk := range laneKeys[start:end] {
					var cell strings.Builder
					for _, st := range stageOrder {
						m, ok := cells[[3]string{f, lk, st}]
						if !ok {
							m = " "
						}
						cell.WriteString(m)
					}
					fmt.Fprintf(w, " %s", cell.String())
				}
				fmt.Fprintln(w)
			}
		}
	}
}

// writeLegend numbers the lanes, as many to a line as the width allows.
func writeLegend(w io.Writer, laneKeys []string, width int) {
	line := " "
	for i, lk := range laneKeys {
		item := fmt.Sprintf(" %d %s", i+1, lk)
		if i < len(laneKeys)-1 {
			item += " ·"
		}
		if escape.Width(line)+escape.Width(item) > width && line != " " {
			fmt.Fprintln(w, line)
			line = " "
		}
		line += item
	}
	fmt.Fprintln(w, line)
}

// roleOf names the task's role; a primary task on a family reported apart says so.
func roleOf(results []*result.Result) string {
	roles := map[string]bool{}
	for _, r := range results {
		roles[r.Role] = true
	}
	return strings.Join(slices.Sorted(maps.Keys(roles)), "/")
}

func writeUnmet(w io.Writer, r *result.Report) {
	header := false
	for _, res := range r.Each() {
		if res.Outcome != result.Unmet && res.Outcome != result.Unstable && res.Outcome != result.ExecutionFailed {
			continue
		}
		if !header {
			fmt.Fprintf(w, "\nunmet, failed and unstable bindings:\n")
			header = true
		}
		fmt.Fprintf(w, "  %s %s %s %s %s %s [%s]: %s", term(res.Fixture), term(res.Lane), term(res.LaneVersion), term(res.Configuration),
			term(res.Stage), term(res.Task), term(res.Compartment), term(res.Outcome))
		if at := RecordAt(res.Records); at != "" {
			fmt.Fprintf(w, " (%s)", term(at))
		}
		fmt.Fprintln(w)
		if res.Error != "" {
			fmt.Fprintf(w, "      error: %s\n", termExact(oneLine(res.Error)))
		}
		for _, d := range res.Diagnostics {
			fmt.Fprintf(w, "      %s\n", term(FormatDiagnostic(d)))
		}
		for _, v := range res.Variants {
			fmt.Fprintf(w, "      repetitions %v: %s\n", v.Repetitions, term(v.Outcome))
			for _, d := range v.Diagnostics {
				fmt.Fprintf(w, "        %s\n", term(FormatDiagnostic(d)))
			}
		}
	}
}

// FormatDiagnostic renders a diagnostic on one line: atom, path, kind, expected and observed. The
// strings are the policy's as they are (expected and observed as JSON): a format escapes the
// result for its own grammar (escape.Terminal for text, escape.YAMLString for TAP).
func FormatDiagnostic(d result.Diagnostic) string {
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

// short is a diagnostic's value in 120 columns, the last an ellipsis.
func short(v any) string { return JSONText(v, 120, "…") }

// JSONText is a value as a text format writes it: compact JSON (fmt's %v when it does not
// marshal), cut when cols > 0 to cols terminal columns ending in tail (escape.Cut: between
// grapheme clusters, a JSON escape such as \n or \u00e9 kept whole like a terminal escape).
func JSONText(v any, cols int, tail string) string {
	b, err := strictjson.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if cols <= 0 {
		return string(b)
	}
	return escape.Cut(string(b), cols, tail)
}

func writeBoundaries(w io.Writer, r *result.Report) {
	if r.Localized() == 0 {
		return
	}
	fmt.Fprintf(w, "\nboundaries (a pass followed by an unmet):\n")
	for _, l := range r.EachLocalization() {
		fmt.Fprintf(w, "  %s %s %s %s %s: %s → %s (%s)\n", term(l.Fixture), term(l.Lane), term(l.LaneVersion), term(l.Configuration), term(l.Task),
			term(l.From), term(l.To), term(l.Kind))
	}
}

// writeDivergenceList writes each divergence of the census over all lanes and the
// leave-one-lane-out recounts of both censuses.
func writeDivergenceList(w io.Writer, r *result.Report) {
	d := r.Divergences
	fmt.Fprintf(w, "\ndivergences (all lanes):\n")
	for _, list := range []struct {
		name string
		divs []result.Divergence
	}{{"primary", d.Unique}, {"guard", d.Guard}, {"apart", d.Apart}} {
		for _, v := range list.divs {
			fmt.Fprintf(w, "  %s %s %s (%s) at %s\n", list.name, term(v.Fixture), term(v.Task), term(v.Family), strings.Join(terms(v.Stages), " "))
		}
	}
	if l := leaveOneOut(d, term); l != "" {
		fmt.Fprintf(w, "  %s (all lanes): %s\n", LabelLeaveOneOut, l)
	}
	if l := leaveOneOut(r.CapturedDivergences, term); l != "" {
		fmt.Fprintf(w, "  %s (captured lanes): %s\n", LabelLeaveOneOut, l)
	}
	if lanes := ReconstructedLanes(r); len(lanes) > 0 {
		fmt.Fprintf(w, "  these counts include the reconstructed lanes %s (carriers derived from source, not captured)\n", strings.Join(terms(lanes), ", "))
	}
}

func writeUpgrades(w io.Writer, r *result.Report) {
	for _, u := range r.Upgrades {
		fmt.Fprintf(w, "\nupgrade %s %s → %s (%s): %d bindings changed\n", term(u.Lane), term(u.From), term(u.To), term(u.Configuration), u.Count())
		for _, c := range u.Each() {
			fmt.Fprintf(w, "  %s %s %s: %s → %s\n", term(c.Fixture), term(c.Stage), term(c.Task), term(c.Before), term(c.After))
			for _, d := range c.DiagnosticsBefore {
				fmt.Fprintf(w, "      before: %s\n", term(FormatDiagnostic(d)))
			}
			for _, d := range c.DiagnosticsAfter {
				fmt.Fprintf(w, "      after:  %s\n", term(FormatDiagnostic(d)))
			}
		}
	}
}
