package compare

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
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

var stages = contract.Stages[1:]

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
	lw := escape.NewLogWriter(w)
	bw := bufio.NewWriter(lw)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		trimmed := strings.TrimRight(line, " \n")
		if strings.HasSuffix(line, "\n") {
			trimmed += "\n"
		}
		bw.WriteString(trimmed)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return lw.Flush()
}

func decoderNames(r *Report) []string {
	out := make([]string, len(r.Decoders))
	for i, d := range r.Decoders {
		out[i] = d.Name
	}
	return out
}

// matchRow is one lane version and configuration of a decoder's match matrix.
type matchRow struct {
	lane, version, configuration string
	cells                        []string // per stage
}

func matchRows(r *Report, decoder string) []matchRow {
	cellRows := matchCells(r, decoder)
	rows := make([]matchRow, len(cellRows))
	for i, c := range cellRows {
		cells := make([]string, len(c.cells))
		for j, m := range c.cells {
			cells[j] = "–"
			if m != nil {
				cells[j] = fmt.Sprintf("%d/%d", m.Match, m.Captured)
			}
		}
		rows[i] = matchRow{c.lane, c.version, c.configuration, cells}
	}
	return rows
}

// short writes a JSON value compactly.
func short(v any) string {
	b, err := strictjson.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// readoutText is one readout: its kind, and the value read or the candidates.
func readoutText(ro map[string]any) string {
	s, _ := ro["kind"].(string)
	if v, ok := ro["observed"]; ok {
		s += " " + short(v)
	}
	if v, ok := ro["candidates"]; ok {
		s += " " + short(v)
	}
	return s
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

type taskGroup struct {
	fixture, task, role, before, after string
	atoms                              []string
	stages                             []string
}

// foldTaskChanges groups task changes by fixture, task and outcomes, stages in order.
func foldTaskChanges(cs []TaskChange) []taskGroup {
	var out []taskGroup
	index := map[string]int{}
	for _, c := range cs {
		atoms := diagnosticAtoms(c.DiagnosticsAfter)
		if len(atoms) == 0 {
			atoms = diagnosticAtoms(c.DiagnosticsBefore)
		}
		k := strings.Join([]string{c.Fixture, c.Task, c.Before, c.After, strings.Join(atoms, ",")}, "\x00")
		if i, ok := index[k]; ok {
			out[i].stages = append(out[i].stages, c.Stage)
			continue
		}
		index[k] = len(out)
		out = append(out, taskGroup{c.Fixture, c.Task, c.Role, c.Before, c.After, atoms, []string{c.Stage}})
	}
	return out
}

// diagnosticAtoms names each diagnostic by atom and kind, sorted and unique.
func diagnosticAtoms(ds []result.Diagnostic) []string {
	seen := map[string]bool{}
	for _, d := range ds {
		seen[fmt.Sprintf("%v %v", d["atom"], d["kind"])] = true
	}
	out := make([]string, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

func atomsSuffix(atoms []string) string {
	if len(atoms) == 0 {
		return ""
	}
	return " (" + strings.Join(atoms, ", ") + ")"
}

type decoderGroup struct {
	fixture, target, decoder, before, after string
	stages                                  []string
}

func foldDecoderChanges(cs []DecoderChange) []decoderGroup {
	var out []decoderGroup
	index := map[string]int{}
	for _, c := range cs {
		k := strings.Join([]string{c.Fixture, c.Target, c.Decoder, c.Before, c.After}, "\x00")
		if i, ok := index[k]; ok {
			out[i].stages = append(out[i].stages, c.Stage)
			continue
		}
		index[k] = len(out)
		out = append(out, decoderGroup{c.Fixture, c.Target, c.Decoder, c.Before, c.After, []string{c.Stage}})
	}
	return out
}

// nullRows are the divergence census rows of the two null-policy runs: the unique divergences
// and the manifestations, each with its count per family (a row "  <family>" under it).
func nullRows(ns NullSensitivity) [][]string {
	a, b := ns.Base, ns.Other
	rows := [][]string{
		{"pass / unmet", fmt.Sprintf("%d / %d", a.Pass, a.Unmet), fmt.Sprintf("%d / %d", b.Pass, b.Unmet)},
		{"unique divergences", fmt.Sprint(a.Unique), fmt.Sprint(b.Unique)},
	}
	for _, f := range unionKeys(a.UniqueByFamily, b.UniqueByFamily) {
		rows = append(rows, []string{"  " + f, count(a.UniqueByFamily, f), count(b.UniqueByFamily, f)})
	}
	rows = append(rows, []string{"manifestations", fmt.Sprint(a.Manifestations), fmt.Sprint(b.Manifestations)})
	for _, f := range unionKeys(a.ManifestationsByFamily, b.ManifestationsByFamily) {
		rows = append(rows, []string{"  " + f, count(a.ManifestationsByFamily, f), count(b.ManifestationsByFamily, f)})
	}
	rows = append(rows, []string{"guard divergences", fmt.Sprint(a.Guard), fmt.Sprint(b.Guard)},
		[]string{"reported apart", fmt.Sprint(a.Apart), fmt.Sprint(b.Apart)})
	for _, lane := range unionKeys(a.LeaveOneOut, b.LeaveOneOut) {
		rows = append(rows, []string{"without " + lane, count(a.LeaveOneOut, lane), count(b.LeaveOneOut, lane)})
	}
	return rows
}

func count(m map[string]int, k string) string {
	if v, ok := m[k]; ok {
		return fmt.Sprint(v)
	}
	return "–"
}

func unionKeys(a, b map[string]int) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func writeTextReadings(b *strings.Builder, gs []readingGroup) {
	for _, g := range gs {
		fmt.Fprintf(b, "  %s %s %s %s %s %s: %s\n", term(g.fixture), term(targetName(g.target)), term(g.lane), term(g.version), term(g.configuration),
			strings.Join(terms(g.stages), " "), term(g.text))
	}
}

// targetName writes a target for a reader: the whole value's empty pointer as "(whole value)".
func targetName(t string) string {
	if t == WholeTarget {
		return "(whole value)"
	}
	return t
}

// differencesTitle and differencesNote head the table of where the decoders differ.
const (
	differencesTitle = "Where the decoders differ"
	differencesNote  = "captured target readings where two decoders give different readout kinds, per lane · version · configuration × stage; lane losses (every decoder wrong or missing) left out"
	totalsTitle      = "Totals by readout kind (framework lanes; control lanes left out): per field, every declared member target; whole value, target \"\" (one readout per captured fixture × lane × version × configuration × stage in this run's scope; the study's decoder unit only with the study's suite, lanes and configurations and --stage A2 --stage M3 --stage H4)"
)

// differenceRow is one lane version and configuration of the differences table.
type differenceRow struct {
	lane, version, configuration string
	cells                        []*DifferenceCell // per stage
}

func differenceRows(r *Report) []differenceRow {
	var rows []differenceRow
	index := map[laneConfig]int{}
	for i := range r.Differences {
		c := &r.Differences[i]
		k := laneConfig{c.Lane, c.LaneVersion, c.Configuration}
		j, ok := index[k]
		if !ok {
			j = len(rows)
			index[k] = j
			rows = append(rows, differenceRow{c.Lane, c.LaneVersion, c.Configuration, make([]*DifferenceCell, len(stages))})
		}
		if si := contract.StageIndex(c.Stage) - 1; si >= 0 && si < len(stages) {
			rows[j].cells[si] = c
		}
	}
	return rows
}

// differenceTotals sums the differences table: readings that differ, lane losses, captured.
func differenceTotals(r *Report) (differs, losses, captured int) {
	for _, c := range r.Differences {
		differs += c.Differs
		losses += c.LaneLoss
		captured += c.Captured
	}
	return
}

// differenceCell is a cell of the differences table: the count, – when nothing was captured.
func differenceCell(c *DifferenceCell) string {
	if c == nil {
		return "–"
	}
	return fmt.Sprint(c.Differs)
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

// kindsGroup is the readings where the decoders differ of one fixture and target whose decoders
// give the same kinds: how many, and at which lanes.
type kindsGroup struct {
	fixture, target, kinds string
	readings               int
	lanes                  []string
}

// differenceKinds groups the readings where the decoders differ by fixture, target and the kind
// each decoder gives, in reading order.
func differenceKinds(r *Report) []kindsGroup {
	var out []kindsGroup
	index := map[string]int{}
	names := decoderNames(r)
	for i := range r.Readouts {
		rd := &r.Readouts[i]
		if !decodersDiffer(r, rd) {
			continue
		}
		parts := make([]string, len(names))
		for j, d := range names {
			parts[j] = d + " " + rd.Kind(d)
		}
		kinds := strings.Join(parts, ", ")
		k := rd.Fixture + "\x00" + rd.Target + "\x00" + kinds
		j, ok := index[k]
		if !ok {
			j = len(out)
			index[k] = j
			out = append(out, kindsGroup{fixture: rd.Fixture, target: rd.Target, kinds: kinds})
		}
		out[j].readings++
		if !slices.Contains(out[j].lanes, rd.Lane) {
			out[j].lanes = append(out[j].lanes, rd.Lane)
		}
	}
	return out
}

// totalsRows are the totals table's rows: per decoder, its per-field count then its whole-value
// count (decoder, count, a cell per kind, total).
func totalsRows(r *Report) [][]string {
	var rows [][]string
	add := func(t Totals, count string) {
		row := []string{t.Decoder, count}
		for _, k := range Kinds {
			row = append(row, fmt.Sprint(t.Kinds[k]))
		}
		rows = append(rows, append(row, fmt.Sprint(t.Total)))
	}
	for i, t := range r.Totals {
		add(t, "per field")
		if i < len(r.WholeValue) {
			add(r.WholeValue[i], "whole value")
		}
	}
	return rows
}
