package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// FindingRow is one lane at one version and configuration in the findings table: per task, the
// bindings that pass out of those captured (pass, unmet or unstable).
type FindingRow struct {
	Lane, LaneVersion, Configuration, Origin string
	Cells                                    map[string]FindingCell
}

// FindingCell counts one task's bindings of a row.
type FindingCell struct{ Pass, Captured int }

// String is the cell as the tables show it: "pass/captured", or "–" when nothing was captured.
func (c FindingCell) String() string {
	if c.Captured == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d", c.Pass, c.Captured)
}

// Label names the row: lane, version and configuration.
func (r FindingRow) Label() string { return r.Lane + " " + r.LaneVersion + " " + r.Configuration }

// Findings tallies the results into the findings table: the tasks in order and one row per lane,
// version and configuration, sorted. A row's origin is "reconstructed" when any of its carriers
// was reconstructed.
func Findings(r *result.Report) ([]string, []FindingRow) {
	index := map[result.Cell]int{} // a row's cell: its lane, version and configuration, no stage
	var rows []FindingRow
	tasks := map[string]bool{}
	for _, res := range r.Heads() {
		k := result.Cell{Lane: res.Lane, LaneVersion: res.LaneVersion, Configuration: res.Configuration}
		j, ok := index[k]
		if !ok {
			j = len(rows)
			index[k] = j
			rows = append(rows, FindingRow{Lane: res.Lane, LaneVersion: res.LaneVersion, Configuration: res.Configuration,
				Origin: res.Origin, Cells: map[string]FindingCell{}})
		}
		if res.Origin == "reconstructed" {
			rows[j].Origin = "reconstructed"
		}
		tasks[res.Task] = true
		c := rows[j].Cells[res.Task]
		switch res.Outcome {
		case result.Pass:
			c.Pass++
			c.Captured++
		case result.Unmet, result.Unstable:
			c.Captured++
		}
		rows[j].Cells[res.Task] = c
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Lane != b.Lane {
			return a.Lane < b.Lane
		}
		if a.LaneVersion != b.LaneVersion {
			return result.LessVersion(a.LaneVersion, b.LaneVersion)
		}
		return a.Configuration < b.Configuration
	})
	return slices.Sorted(maps.Keys(tasks)), rows
}

// The labels of a census's counts, as every format prints them: what each count counts.
const (
	LabelUniqueByFamily         = "unique divergences by family"
	LabelManifestationsByFamily = "manifestations by family"
	LabelUniqueByOrigin         = "unique divergences by origin"
	LabelManifestationsByOrigin = "manifestations by origin"
	// LabelLeaveOneOut heads the leave-one-lane-out recount, which counts unique divergences.
	LabelLeaveOneOut = "leave one lane out, unique divergences left"
)

// censusCount is one labelled count of a census: its label (one of the Label constants) and
// its parts, "name n" each.
type censusCount struct {
	Label string
	Parts []string
}

// Text is the count's parts as one text, "a 1, b 2".
func (c censusCount) Text() string { return strings.Join(c.Parts, ", ") }

// censusCounts gives a census's counts, each labelled as what it counts and its names escaped by
// esc for the format's grammar: unique divergences and manifestations by family (left out when
// the census has none), then, when byOrigin, both by origin (captured and reconstructed, zeros
// included). A format asks for the origins in the census over every lane of a report with a
// reconstructed lane: in any other census every count is captured.
func censusCounts(d result.Divergences, byOrigin bool, esc func(string) string) []censusCount {
	family := func(label string, m map[string]int) []censusCount {
		if len(m) == 0 {
			return nil
		}
		var parts []string
		for _, f := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, fmt.Sprintf("%s %d", esc(f), m[f]))
		}
		return []censusCount{{label, parts}}
	}
	out := append(family(LabelUniqueByFamily, d.UniqueByFamily), family(LabelManifestationsByFamily, d.ManifestationsByFamily)...)
	if byOrigin {
		origin := func(label string, o result.OriginCounts) censusCount {
			return censusCount{label, []string{fmt.Sprintf("captured %d", o.Captured), fmt.Sprintf("reconstructed %d", o.Reconstructed)}}
		}
		out = append(out, origin(LabelUniqueByOrigin, d.UniqueByOrigin), origin(LabelManifestationsByOrigin, d.ManifestationsByOrigin))
	}
	return out
}

// upperFirst is a label (ASCII, one of the Label constants) starting a sentence.
func upperFirst(label string) string {
	if label == "" {
		return label
	}
	return strings.ToUpper(label[:1]) + label[1:]
}

// leaveOneOut writes a census's leave-one-lane-out recount, "without a 3, without b 4", each
// lane name escaped by esc for the format's grammar.
func leaveOneOut(d result.Divergences, esc func(string) string) string {
	var parts []string
	for _, l := range slices.Sorted(maps.Keys(d.LeaveOneOut)) {
		parts = append(parts, fmt.Sprintf("without %s %d", esc(l), d.LeaveOneOut[l]))
	}
	return strings.Join(parts, ", ")
}

// asIs is the escaper of a format that escapes a whole text itself (HTML).
func asIs(s string) string { return s }

// RecordAt is where a result's first record is, "file:line", or "" when none is known.
func RecordAt(refs []result.RecordRef) string {
	if len(refs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d", refs[0].File, refs[0].Line)
}

// Atoms lists the distinct "atom kind" pairs of diagnostics, in order of first appearance.
func Atoms(ds []result.Diagnostic) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range ds {
		a := fmt.Sprintf("%v %v", d["atom"], d["kind"])
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
