package study

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/compare"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// The tables' titles and notes, one wording for every format.
const (
	titleIV  = "Table IV. Pass counts per framework × stage × task"
	noteIV   = "passes / bindings judged (not_applicable and not_observable left out); – where none was judged"
	titleV   = "Table V. Divergences by family under each null policy"
	noteV    = "unique divergences count (fixture, primary task) pairs where at one stage one framework lane passes and another's captured binding is unmet; manifestations count the stages each shows at"
	titleVI  = "Table VI. JSON-text matches per setting"
	noteVI   = "at each lane × stage, the captured whole-value readings and each decoder's matches (a recovered value or a correct absence); from text: matches where native-slot has none"
	titleVII = "Table VII. Decoder readouts per position"
	noteVII  = "the whole structured value (target \"\"), one readout per fixture × lane × configuration × stage at the decoder stages; source-absent is a match where the source has no value"
	noneMark = "–"
	// noReadings stands for tables VI and VII when the selection has no structured fixture.
	noReadings = "none: no whole-value reading at these stages (no fixture of the selection declares a structured target)"
	stateNone  = "no record"
)

// laneName is a lane's name as the tables print it: a control lane marked.
func laneName(lane string, control bool) string {
	if control {
		return lane + " (control)"
	}
	return lane
}

// isControl says whether the lane of a row is a control lane.
func (r *Report) isControl(lane string) bool {
	for _, l := range r.Lanes {
		if l.Lane == lane {
			return l.Control
		}
	}
	return false
}

// passCell is a table IV cell: passes / judged, or noneMark.
func passCell(c PassCell) string {
	if c.Judged == 0 {
		return noneMark
	}
	return strconv.Itoa(c.Pass) + "/" + strconv.Itoa(c.Judged)
}

// judged says whether any binding of a table IV row was judged.
func (p PassRow) judged() bool {
	for _, c := range p.Cells {
		if c.Judged > 0 {
			return true
		}
	}
	return false
}

// passRows are table IV's rows as cells: lane, version, configuration, stage, one per task; a row
// where nothing was judged is left to unjudgedLines.
func (r *Report) passRows() [][]string {
	out := make([][]string, 0, len(r.PassCounts))
	for _, p := range r.PassCounts {
		if !p.judged() {
			continue
		}
		row := []string{laneName(p.Lane, r.isControl(p.Lane)), p.LaneVersion, p.Configuration, p.Stage}
		for _, c := range p.Cells {
			row = append(row, passCell(c))
		}
		out = append(out, row)
	}
	return out
}

// unjudgedLines name table IV's rows where no binding was judged, with their outcomes: a stage a
// lane does not expose (not_observable) or has no carrier at (not_applicable).
func (r *Report) unjudgedLines() []string {
	var out []string
	for _, p := range r.PassCounts {
		if p.judged() {
			continue
		}
		outcomes := map[string]bool{}
		for _, c := range p.Cells {
			for o := range c.Outcomes {
				outcomes[o] = true
			}
		}
		out = append(out, fmt.Sprintf("%s %s %s %s: %s", laneName(p.Lane, r.isControl(p.Lane)), p.LaneVersion, p.Configuration, p.Stage,
			strings.Join(contract.SortedKeys(outcomes), ", ")))
	}
	return out
}

// passNotes lists table IV's cells that hold bindings neither passing nor unmet (execution
// failures, unreached, ambiguous or unstable ones), which a pass count alone does not show.
func (r *Report) passNotes() []string {
	var out []string
	for _, p := range r.PassCounts {
		for _, c := range p.Cells {
			var other []string
			for _, o := range contract.SortedKeys(c.Outcomes) {
				if o == result.Pass || o == result.Unmet || o == result.NotApplicable || o == result.NotObservable {
					continue
				}
				other = append(other, fmt.Sprintf("%d %s", c.Outcomes[o], o))
			}
			if len(other) > 0 {
				out = append(out, fmt.Sprintf("%s %s %s %s %s: %s", p.Lane, p.LaneVersion, p.Configuration, p.Stage, c.Task, strings.Join(other, ", ")))
			}
		}
	}
	return out
}

// censusRows are table V's rows: a label, then one cell per census.
func (r *Report) censusRows() [][]string {
	cs := r.Divergences
	var out [][]string
	add := func(label string, cell func(Census) string) {
		row := []string{label}
		for _, c := range cs {
			row = append(row, cell(c))
		}
		out = append(out, row)
	}
	families := func(get func(Census) map[string]int) []string {
		set := map[string]bool{}
		for _, c := range cs {
			for f := range get(c) {
				set[f] = true
			}
		}
		return contract.SortedKeys(set)
	}
	byFamily := func(title string, total func(Census) int, get func(Census) map[string]int, origin func(Census) result.OriginCounts) {
		add(title, func(c Census) string { return strconv.Itoa(total(c)) })
		for _, f := range families(get) {
			add("  "+f, func(c Census) string { return strconv.Itoa(get(c)[f]) })
		}
		add("  captured / reconstructed", func(c Census) string {
			o := origin(c)
			return fmt.Sprintf("%d / %d", o.Captured, o.Reconstructed)
		})
	}
	byFamily("unique divergences", func(c Census) int { return c.Unique },
		func(c Census) map[string]int { return c.UniqueByFamily }, func(c Census) result.OriginCounts { return c.UniqueByOrigin })
	byFamily("manifestations", func(c Census) int { return c.Manifestations },
		func(c Census) map[string]int { return c.ManifestationsByFamily }, func(c Census) result.OriginCounts { return c.ManifestationsByOrigin })
	add("T1 divergences (guard, beyond the unique count)", func(c Census) string { return strconv.Itoa(len(c.T1)) })
	add("guard divergences, every guard task", func(c Census) string { return strconv.Itoa(c.Guard) })
	add("reported apart", func(c Census) string { return strconv.Itoa(c.Apart) })
	lanes := map[string]bool{}
	for _, c := range cs {
		for l := range c.LeaveOneOut {
			lanes[l] = true
		}
	}
	for _, l := range contract.SortedKeys(lanes) {
		add("without "+l, func(c Census) string {
			n, ok := c.LeaveOneOut[l]
			if !ok {
				return noneMark
			}
			return strconv.Itoa(n)
		})
	}
	return out
}

// censusHeader is table V's header: one column per census, named by profile and null policy.
func (r *Report) censusHeader() []string {
	h := []string{""}
	for _, c := range r.Divergences {
		h = append(h, c.Profile+" ("+c.NullPolicy+")")
	}
	return h
}

// t1Lines lists, per census, its T1 divergences: fixture, family and the stages; a census with
// the same list as the first says so in one line.
func (r *Report) t1Lines() []string {
	var out []string
	for i, c := range r.Divergences {
		if i > 0 && len(c.T1) > 0 && slices.EqualFunc(c.T1, r.Divergences[0].T1, sameDivergence) {
			out = append(out, fmt.Sprintf("%s: the same as %s", c.Profile, r.Divergences[0].Profile))
			continue
		}
		for _, d := range c.T1 {
			out = append(out, fmt.Sprintf("%s: %s (%s) at %s", c.Profile, d.Fixture, d.Family, strings.Join(d.Stages, ", ")))
		}
	}
	return out
}

func sameDivergence(a, b result.Divergence) bool {
	return a.Fixture == b.Fixture && a.Task == b.Task && a.Family == b.Family && slices.Equal(a.Stages, b.Stages)
}

// textMatchDecoders are the decoders table VI has a from-text column for.
func (r *Report) textMatchDecoders() []string {
	var out []string
	if len(r.JSONText) == 0 {
		return out
	}
	for _, d := range r.Decoders {
		if _, ok := r.JSONText[0].TextMatches[d]; ok {
			out = append(out, d)
		}
	}
	return out
}

// jsonTextHeader and jsonTextRows are table VI.
func (r *Report) jsonTextHeader() []string {
	h := []string{"lane", "version", "configuration", "stage", "positions"}
	h = append(h, r.Decoders...)
	for _, d := range r.textMatchDecoders() {
		h = append(h, d+" from text")
	}
	return h
}

func (r *Report) jsonTextRows() [][]string {
	text := r.textMatchDecoders()
	out := make([][]string, 0, len(r.JSONText))
	for _, j := range r.JSONText {
		row := []string{laneName(j.Lane, r.isControl(j.Lane)), j.LaneVersion, j.Configuration, j.Stage, strconv.Itoa(j.Positions)}
		for _, d := range r.Decoders {
			row = append(row, strconv.Itoa(j.Matches[d]))
		}
		for _, d := range text {
			row = append(row, strconv.Itoa(j.TextMatches[d]))
		}
		out = append(out, row)
	}
	return out
}

// totalsHeader and totalsRows are table VII's count.
func totalsHeader() []string {
	h := append([]string{"decoder", "lanes"}, Kinds...)
	return append(h, "total")
}

func (r *Report) totalsRows() [][]string {
	var out [][]string
	for _, t := range r.DecoderTotals {
		for _, part := range []struct {
			name string
			c    compare.Counts
		}{{"framework", t.Framework}, {"control", t.Control}} {
			if part.name == "control" && part.c.Total == 0 {
				continue
			}
			row := []string{t.Decoder, part.name}
			for _, k := range Kinds {
				row = append(row, strconv.Itoa(part.c.Kinds[k]))
			}
			out = append(out, append(row, strconv.Itoa(part.c.Total)))
		}
	}
	return out
}

// positionHeader and positionRows are table VII's rows: one per fixture and lane version and
// configuration, a cell per decoder stage holding each decoder's readout, in decoder order.
func (r *Report) positionHeader() []string {
	return append([]string{"fixture", "lane", "version", "configuration"}, r.DecoderStages...)
}

func (r *Report) positionRows() [][]string {
	// A row is a position without its stage.
	var order []result.Position
	cells := map[result.Position]map[string]string{}
	control := map[result.Position]bool{}
	for _, p := range r.Positions {
		k := p.Position
		k.Stage = ""
		if cells[k] == nil {
			cells[k] = map[string]string{}
			order = append(order, k)
			control[k] = p.Control
		}
		if p.Readouts == nil {
			cells[k][p.Stage] = p.State
			continue
		}
		kinds := make([]string, len(r.Decoders))
		for i, d := range r.Decoders {
			kinds[i] = p.Readouts[d]
		}
		cells[k][p.Stage] = strings.Join(kinds, " / ")
	}
	// Framework lanes first, as in the other tables; positions are in fixture order already.
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].Fixture != order[j].Fixture {
			return order[i].Fixture < order[j].Fixture
		}
		return !control[order[i]] && control[order[j]]
	})
	out := make([][]string, 0, len(order))
	for _, k := range order {
		row := []string{k.Fixture, laneName(k.Lane, control[k]), k.LaneVersion, k.Configuration}
		for _, st := range r.DecoderStages {
			c, ok := cells[k][st]
			if !ok {
				c = stateNone
			}
			row = append(row, c)
		}
		out = append(out, row)
	}
	return out
}

// reconstructed lists the reconstructed lanes of the tables, sorted.
func (r *Report) reconstructed() []string {
	lanes := result.ReconstructedLanes{}
	for _, l := range r.Lanes {
		lanes.Add(l.Lane, l.Origin)
	}
	return lanes.Lanes()
}

// selection says what the tables were computed on: the cohort and the scope.
func (r *Report) selection() string {
	var parts []string
	for _, s := range []struct {
		name  string
		scope *result.Scope
	}{{"cohort", r.Cohort}, {"scope", r.Scope}} {
		if s.scope == nil {
			continue
		}
		parts = append(parts, s.name+" "+s.scope.Join(", "))
	}
	return strings.Join(parts, "; ")
}
