package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Text writes the report for a reader at a terminal: first where the decoders differ (a table per
// lane · version · configuration × stage and the readings listed, lane losses left out), then
// the match matrix per decoder policy, the totals by readout kind (per field and of the whole
// value), what reaches the model beside what each decoder recovers, with Details every reading
// that is not a match for some decoder (stages folded; else their count), the configuration
// comparison and what the second profile changes (Heading). Every string of the data is written
// through escape.Terminal where it meets the text (tables are measured on the escaped cells),
// and the text through an escape.LogWriter: no line starts a CI runner's command.
type Text struct {
	// Details adds the long listing: every reading that is not a match for every decoder.
	Details bool
}

// term is escape.Terminal: a string of the data as a terminal or a CI log may show it.
func term(s string) string { return escape.Terminal(s) }

// terms is term of each string.
func terms(xs []string) []string { return escape.Each(escape.Terminal, xs) }

// Output implements Outputter.
func (t Text) Output(w io.Writer, r *Report) error {
	if r.Failure != nil {
		return writeTextFailure(w, r)
	}
	b := &strings.Builder{}
	ns := r.NullPolicies
	fmt.Fprintf(b, "contractcheck compare: decoder policies %s; null policies %s (profile %s) vs %s (profile %s)\n",
		strings.Join(terms(decoderNames(r)), ", "), term(ns.Base.NullPolicy), term(ns.Base.Profile), term(ns.Other.NullPolicy), term(ns.Other.Profile))
	fmt.Fprintf(b, "target readings: %d, captured %d, unstable %d\n", r.Summary.Readings, r.Summary.Captured, r.Summary.Unstable)
	if lanes := reconstructedLanes(r); len(lanes) > 0 {
		fmt.Fprintf(b, "every table and total includes the reconstructed lanes %s (carriers derived from source, not captured)\n", strings.Join(terms(lanes), ", "))
	}

	writeTextDifferences(b, r, t.Details)

	fmt.Fprintf(b, "\nMatches per decoder policy (matches/captured target readings; – none captured)\n")
	for _, d := range decoderNames(r) {
		fmt.Fprintf(b, "%s\n", term(d))
		rows := matchRows(r, d)
		tw := report.NewColumns(append([]string{"lane", "version", "configuration"}, stages...))
		for _, row := range rows {
			tw.Add(append(terms([]string{row.lane, row.version, row.configuration}), row.cells...))
		}
		tw.Write(b, "  ")
	}

	fmt.Fprintf(b, "\n%s\n", totalsTitle)
	tw := report.NewColumns(append(append([]string{"decoder", "count"}, Kinds...), "total"))
	for _, row := range totalsRows(r) {
		tw.Add(append(terms(row[:1]), row[1:]...))
	}
	tw.Write(b, "  ")

	if len(r.Visibility) > 0 {
		fmt.Fprintf(b, "\n%s\n  %s\n", visibilityTitle, visibilityNote)
		tw := report.NewColumns(append([]string{"lane", "version", "configuration", "stage", "what reaches the model"}, terms(decoderNames(r))...))
		for _, v := range r.Visibility {
			row := terms([]string{v.Lane, v.Version, v.Configuration, v.Stage, v.Summary()})
			for _, c := range v.Recovered {
				row = append(row, recoveryCell(c))
			}
			tw.Add(row)
		}
		tw.Write(b, "  ")
	}

	notMatch := foldReadings(r, notAllMatch)
	if t.Details {
		fmt.Fprintf(b, "\nReadings that are not a match for every decoder (stages with the same readouts folded)\n")
		writeTextReadings(b, notMatch)
	} else {
		fmt.Fprintf(b, "\nReadings that are not a match for every decoder, lane losses included: %d (stages folded); --details lists them, --format json holds every reading\n", len(notMatch))
	}
	for _, rd := range r.Readouts {
		if rd.State == result.Unstable {
			fmt.Fprintf(b, "  UNSTABLE %s %s %s %s %s %s:", term(rd.Fixture), term(rd.Target), term(rd.Lane), term(rd.LaneVersion), term(rd.Configuration), term(rd.Stage))
			for _, v := range rd.Variants {
				fmt.Fprintf(b, " repetitions %v: %s %s;", v.Repetitions, term(v.State), term(readoutsText(r, v.Readouts)))
			}
			b.WriteString("\n")
		}
	}

	fmt.Fprintf(b, "\nConfiguration comparison (where both configurations have a result and it differs)\n")
	if len(r.Configurations) == 0 {
		b.WriteString("  none\n")
	}
	for _, c := range r.Configurations {
		fmt.Fprintf(b, "  %s %s: %s → %s\n", term(c.Lane), term(c.LaneVersion), term(c.From), term(c.To))
		for _, g := range foldTaskChanges(c.Tasks) {
			fmt.Fprintf(b, "    %s %s (%s) %s: %s → %s%s\n", term(g.fixture), term(g.task), term(g.role), strings.Join(terms(g.stages), " "),
				term(g.before), term(g.after), atomsSuffix(terms(g.atoms)))
		}
		for _, g := range foldDecoderChanges(c.Decoders) {
			fmt.Fprintf(b, "    %s %s %s %s: %s → %s\n", term(g.fixture), term(g.target), term(g.decoder), strings.Join(terms(g.stages), " "), term(g.before), term(g.after))
		}
	}

	fmt.Fprintf(b, "\n%s\n  tasks with optional atoms: %s\n", ns.Heading(term), strings.Join(terms(ns.Tasks), ", "))
	fmt.Fprintf(b, "  bindings whose outcome differs: %d\n", len(ns.Changes))
	for _, c := range ns.Changes {
		fmt.Fprintf(b, "    %s %s %s %s %s %s: %s → %s%s\n", term(c.Fixture), term(c.Task), term(c.Lane), term(c.LaneVersion), term(c.Configuration), term(c.Stage),
			term(c.BaseOutcome), term(c.OtherOutcome), atomsSuffix(terms(c.Atoms)))
	}
	tw = report.NewColumns(terms([]string{"", ns.Base.Profile, ns.Other.Profile}))
	for _, row := range nullRows(ns) {
		tw.Add(terms(row))
	}
	tw.Write(b, "  ")
	for _, d := range ns.OnlyBase {
		fmt.Fprintf(b, "  divergence only under %s: %s %s (%s) at %s\n", term(ns.Base.Profile), term(d.Fixture), term(d.Task), term(d.Family), strings.Join(terms(d.Stages), " "))
	}
	for _, d := range ns.OnlyOther {
		fmt.Fprintf(b, "  divergence only under %s: %s %s (%s) at %s\n", term(ns.Other.Profile), term(d.Fixture), term(d.Task), term(d.Family), strings.Join(terms(d.Stages), " "))
	}
	if r.ExitCode() != result.ExitSatisfied {
		fmt.Fprintf(b, "\nrepetitions disagree: %d target readings, %d task bindings unstable\n", r.Summary.Unstable, r.Summary.CheckUnstable)
	}
	var out strings.Builder
	out.Grow(b.Len())
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		trimmed := strings.TrimRight(line, " \n")
		if strings.HasSuffix(line, "\n") {
			trimmed += "\n"
		}
		out.WriteString(trimmed)
	}
	return report.WriteLog(w, out.String())
}

func readoutsText(r *Report, ros map[string]map[string]any) string {
	var parts []string
	for _, d := range decoderNames(r) {
		if ro, ok := ros[d]; ok {
			parts = append(parts, d+" "+readoutText(ro))
		}
	}
	return strings.Join(parts, "; ")
}

// readingGroup is a run of stages of one (fixture, target, lane version, configuration) whose
// readouts are the same.
type readingGroup struct {
	fixture, target, lane, version, configuration string
	stages                                        []string
	text                                          string
}

// notAllMatch keeps a reading that is not a match for every decoder.
func notAllMatch(r *Report, rd *Reading) bool {
	for _, d := range r.Decoders {
		if rd.Kind(d.Name) != Match {
			return true
		}
	}
	return false
}

// decodersDiffer keeps a reading where the decoders differ (Reading.Difference).
func decodersDiffer(r *Report, rd *Reading) bool {
	differs, _ := rd.Difference(decoderNames(r))
	return differs
}

// foldReadings groups the captured readings that keep accepts.
func foldReadings(r *Report, keep func(*Report, *Reading) bool) []readingGroup {
	var out []readingGroup
	index := map[string]int{}
	for i := range r.Readouts {
		rd := &r.Readouts[i]
		if rd.State != "captured" || !keep(r, rd) {
			continue
		}
		exp := "absent"
		if rd.Expected != nil {
			exp = short(rd.Expected.V)
		}
		text := "expected " + exp + "; " + readoutsText(r, rd.Readouts)
		k := strings.Join([]string{rd.Fixture, rd.Target, rd.Lane, rd.LaneVersion, rd.Configuration, text}, "\x00")
		if i, ok := index[k]; ok {
			out[i].stages = append(out[i].stages, rd.Stage)
			continue
		}
		index[k] = len(out)
		out = append(out, readingGroup{rd.Fixture, rd.Target, rd.Lane, rd.LaneVersion, rd.Configuration, []string{rd.Stage}, text})
	}
	return out
}

func atomsSuffix(atoms []string) string {
	if len(atoms) == 0 {
		return ""
	}
	return " (" + strings.Join(atoms, ", ") + ")"
}

func writeTextReadings(b *strings.Builder, gs []readingGroup) {
	for _, g := range gs {
		fmt.Fprintf(b, "  %s %s %s %s %s %s: %s\n", term(g.fixture), term(targetName(g.target)), term(g.lane), term(g.version), term(g.configuration),
			strings.Join(terms(g.stages), " "), term(g.text))
	}
}

func writeTextDifferences(b *strings.Builder, r *Report, details bool) {
	differs, losses, captured := differenceTotals(r)
	fmt.Fprintf(b, "\n%s: %d of %d captured target readings (lane losses left out: %d)\n  %s\n", differencesTitle, differs, captured, losses, differencesNote)
	if differs == 0 {
		b.WriteString("  none\n")
		return
	}
	tw := report.NewColumns(append([]string{"lane", "version", "configuration"}, stages...))
	for _, row := range differenceRows(r) {
		cells := make([]string, len(row.cells))
		for i, c := range row.cells {
			cells[i] = differenceCell(c)
		}
		tw.Add(append(terms([]string{row.lane, row.version, row.configuration}), cells...))
	}
	tw.Write(b, "  ")
	b.WriteString("  by fixture, target and readout kinds (--details lists each reading):\n")
	for _, g := range differenceKinds(r) {
		fmt.Fprintf(b, "  %s %s: %s: %d readings at %s\n", term(g.fixture), term(targetName(g.target)), term(g.kinds), g.readings, strings.Join(terms(g.lanes), ", "))
	}
	if details {
		b.WriteString("  the readings (stages with the same readouts folded):\n")
		writeTextReadings(b, foldReadings(r, decodersDiffer))
	}
}
