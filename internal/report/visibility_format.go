package report

import (
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/result"
)

// visibilityRow is one lane, version and configuration of the visibility readout: its groups in
// stage order.
type visibilityRow struct {
	label  string // lane version configuration, escaped for the sink
	groups []result.Visibility
}

// visibilityRows groups the readout by lane, version and configuration, keeping its order; name
// escapes each name for the sink. A row is yielded as soon as its groups are read, and holds
// only them: the readout's groups are made when read (result.Visibilities), and a million
// bindings' readout is not held whole to be laid out.
func visibilityRows(vs result.Visibilities, name func(string) string) iter.Seq[visibilityRow] {
	return func(yield func(visibilityRow) bool) {
		var row visibilityRow
		for i := range vs.Len() {
			v := vs.At(i)
			label := name(v.Lane) + " " + name(v.Version) + " " + name(v.Configuration)
			if len(row.groups) > 0 && row.label == label {
				row.groups = append(row.groups, v)
				continue
			}
			if len(row.groups) > 0 && !yield(row) {
				return
			}
			row = visibilityRow{label: label, groups: []result.Visibility{v}}
		}
		if len(row.groups) > 0 {
			yield(row)
		}
	}
}

// writeVisibilityText writes one line per lane, version and configuration: each stage's category
// (`openai-agents 0.22.0 default  M3 content-only  H4 content-only`), the label column aligned and
// a stage that does not fit the width on a continuation line; then a warning for each group whose
// records carry nothing of what was served (result.Visibility.NothingServed).
func writeVisibilityText(w io.Writer, vs result.Visibilities, width int) {
	if vs == nil || vs.Len() == 0 {
		return
	}
	rows := visibilityRows(vs, term)
	col := 0
	for r := range rows {
		col = max(col, escape.Width(r.label))
	}
	col = min(col, max(20, width/2))
	fmt.Fprintf(w, "\nwhat reaches the model (visibility; docs/visibility.md):\n")
	for r := range rows {
		line := "  " + r.label
		if pad := col - escape.Width(r.label); pad > 0 {
			line += strings.Repeat(" ", pad)
		}
		indent := strings.Repeat(" ", 2+col)
		first := true
		for _, v := range r.groups {
			cell := term(v.Stage) + " " + term(v.Summary())
			if !first && escape.Width(line)+2+escape.Width(cell) > width {
				fmt.Fprintln(w, line)
				line = indent
			}
			line += "  " + cell
			first = false
		}
		fmt.Fprintln(w, line)
	}
	for i := range vs.Len() {
		if v := vs.At(i); v.NothingServed() {
			fmt.Fprintf(w, "  warning: %s\n", term(v.NothingServedWarning()))
		}
	}
}

// at is the row's group at a stage; ok is false when the row has none there.
func (r visibilityRow) at(stage string) (v result.Visibility, ok bool) {
	for _, g := range r.groups {
		if g.Stage == stage {
			return g, true
		}
	}
	return result.Visibility{}, false
}

// visibilityStages lists the stages the readout holds, in pipeline order (htmlStages), an
// unknown stage after them by name: the columns of the markdown and HTML tables.
func visibilityStages(vs result.Visibilities) []string {
	set := map[string]bool{}
	for i := range vs.Len() {
		set[vs.At(i).Stage] = true
	}
	return orderedStages(set)
}

// fixtureShape is what a fixture's records show at its group's stage, in a word: the shape
// (content, structured, both, nothing) when the records were captured, their state otherwise.
func fixtureShape(f result.VisibilityFixture) string {
	if f.State == "captured" && f.Shape != "" {
		return f.Shape
	}
	return f.State
}

// visibilityFixtures lists a group's fixtures as `V01 both, V02 content` (fixtureShape), each
// string of the data escaped by name for the sink.
func visibilityFixtures(fs []result.VisibilityFixture, name func(string) string) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = name(f.Fixture) + " " + name(fixtureShape(f))
	}
	return strings.Join(parts, ", ")
}

// visibilityChannels describes, unescaped, how each fixture's channels reach the carrier at the
// group's stage (`V01: content blocks, structured json-text; V02: not_reached`): the channels
// in the order content, structured, isError, any other after them by name; then the state when
// the records were not captured or show no channel.
func visibilityChannels(fs []result.VisibilityFixture) string {
	rank := map[string]int{"content": 0, "structured": 1, "isError": 2}
	parts := make([]string, len(fs))
	for i, f := range fs {
		keys := slices.Sorted(maps.Keys(f.Channels))
		sort.SliceStable(keys, func(a, b int) bool {
			ra, oka := rank[keys[a]]
			rb, okb := rank[keys[b]]
			switch {
			case oka && okb:
				return ra < rb
			case oka != okb:
				return oka
			}
			return false // both unknown: the sorted keys' order by name
		})
		chans := make([]string, len(keys))
		for j, k := range keys {
			chans[j] = k + " " + f.Channels[k]
		}
		if f.State != "captured" || len(chans) == 0 {
			chans = append(chans, f.State)
		}
		parts[i] = f.Fixture + ": " + strings.Join(chans, ", ")
	}
	return strings.Join(parts, "; ")
}
