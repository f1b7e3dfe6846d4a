package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

// The report's rows as every format lays them out (text, markdown, html): written once here, so
// that the formats differ only in how they spell a row.

// stages are the stages a reading is taken at: every stage after the source (W0).
var stages = contract.Stages[1:]

// decoderNames are the report's decoder policies' names, in report order.
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
func short(v any) string { return report.JSONText(v, 0, "") }

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

// diagnosticAtoms names each diagnostic by atom and kind (report.Atoms), sorted.
func diagnosticAtoms(ds []result.Diagnostic) []string {
	out := report.Atoms(ds)
	slices.Sort(out)
	return out
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
	return slices.Sorted(maps.Keys(seen))
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

// stageRow is one lane version and configuration of a table with a column per stage after W0
// (stages): a decoder's match matrix, the differences table. A cell is nil where the run has none.
type stageRow[C any] struct {
	lane, version, configuration string
	cells                        []*C // per stage
}

// stageRows lays cells out in a table by lane version and configuration (the rows, in the order
// of the cells) and stage (the columns); at gives a cell's place, ok false to leave it out.
func stageRows[C any](cells []C, at func(*C) (place result.Cell, ok bool)) []stageRow[C] {
	var rows []stageRow[C]
	index := map[result.Cell]int{} // by the row's cell: a cell without its stage
	for i := range cells {
		c := &cells[i]
		p, ok := at(c)
		if !ok {
			continue
		}
		k := result.Cell{Lane: p.Lane, LaneVersion: p.LaneVersion, Configuration: p.Configuration}
		j, seen := index[k]
		if !seen {
			j = len(rows)
			index[k] = j
			rows = append(rows, stageRow[C]{p.Lane, p.LaneVersion, p.Configuration, make([]*C, len(stages))})
		}
		if si := contract.StageIndex(p.Stage) - 1; si >= 0 && si < len(stages) {
			rows[j].cells[si] = c
		}
	}
	return rows
}

// differenceRow is one lane version and configuration of the differences table.
type differenceRow = stageRow[DifferenceCell]

// differenceRows is the differences table (stageRows).
func differenceRows(r *Report) []differenceRow {
	return stageRows(r.Differences, func(c *DifferenceCell) (result.Cell, bool) { return c.Cell, true })
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
