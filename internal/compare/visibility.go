package compare

import (
	"fmt"

	"github.com/contractcheck/contractcheck/internal/result"
)

// errorChannel is the channel the visibility readout gives a result whose source is an error
// (isError true): such a result is left out of the recovery counts, as it is out of the category.
const errorChannel = "isError"

// recoveries sets each visibility group beside what every decoder recovers there: for the
// group's fixtures the category rests on (captured, stable, and not errors), the declared targets
// read at the group's position and, per decoder, the matches among them. The counts come from the
// collapsed readings; no decoder is evaluated again. Groups keep their order, decoders the order
// given.
func recoveries(groups result.Visibilities, rs []Reading, decoders []string) []VisibilityRow {
	if groups == nil || groups.Len() == 0 {
		return nil
	}
	at := map[result.Position][]*Reading{}
	for i := range rs {
		r := &rs[i]
		at[r.Position] = append(at[r.Position], r)
	}
	out := make([]VisibilityRow, groups.Len())
	for i := range out {
		g := groups.At(i)
		row := VisibilityRow{Visibility: g, Recovered: make([]Recovery, len(decoders))}
		for j, d := range decoders {
			row.Recovered[j].Decoder = d
		}
		for _, f := range g.Fixtures {
			if !countsToward(f) {
				continue
			}
			pos := result.Position{Fixture: f.Fixture, Lane: g.Lane, LaneVersion: g.Version, Configuration: g.Configuration, Stage: g.Stage}
			for _, rd := range at[pos] {
				if rd.State != "captured" || isWhole(rd.Target) { // the members, as before the whole value was declared
					continue
				}
				for j, d := range decoders {
					row.Recovered[j].Targets++
					if rd.Kind(d) == Match {
						row.Recovered[j].Match++
					}
				}
			}
		}
		out[i] = row
	}
	return out
}

// countsToward reports whether a fixture of a visibility group is counted: a result the category
// rests on, captured and stable (it has channels) and not an error (no isError channel).
func countsToward(f result.VisibilityFixture) bool {
	if f.State != "captured" || f.Channels == nil {
		return false
	}
	_, isErr := f.Channels[errorChannel]
	return !isErr
}

// visibilityTitle heads the section every format writes for Report.Visibility.
const visibilityTitle = "What reaches the model, and what each decoder recovers"

// visibilityNote says what the section's numbers mean, under its title.
const visibilityNote = "Each decoder cell is match/targets: of the declared targets of the group's results that are not errors, " +
	"how many the decoder recovers out of how many were read; a consumer that parses JSON text (slot-or-json-text) " +
	"recovers the structured value from a lane that forwards it as JSON text, unless a text beside it is prose or disagrees with it, " +
	"while native-slot reads only a dedicated slot."

// recoveryCell is one decoder's count as a cell: match/targets, – when no target was read.
func recoveryCell(c Recovery) string {
	if c.Targets == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d", c.Match, c.Targets)
}
