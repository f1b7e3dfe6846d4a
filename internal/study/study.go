// Package study computes the tables of the study contractcheck is built after (its tables IV to
// VII) from the observation records, in one run: pass counts per framework × stage × task (IV),
// divergences by family under both null policies with the T1 divergences and the
// leave-one-lane-out recount (V), JSON-text matches per setting (VI) and the decoder readouts of
// every position of the study's decoder unit (VII).
//
// It is a reading of one compare run (compare.RunWithChecks): the check under the study's profile
// and under the null profile, and the decoder readings of the same records. Nothing is counted
// here that the check or the compare report does not hold; the tables only arrange it as the
// study did. The selection is the profile's cohort (the built-in profile study: the study's four
// framework lanes at the configurations whose stages are the study's, the control lane, suite
// paper), narrowed by the scope flags as in check.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package study

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/contractcheck/contractcheck/internal/compare"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Version is the studyVersion written into every JSON study report; it changes only when the
// report's shape changes incompatibly.
const Version = 1

// DefaultProfile is the profile the tables are computed under: the built-in profile study (its
// cohort is the study's).
const DefaultProfile = "study"

// NativeDecoder and FallbackDecoder are the study's two decoder policies: the native slot only,
// and the JSON-text fallback (the slot first, JSON text only where the slot is absent).
const (
	NativeDecoder   = "native-slot"
	FallbackDecoder = "slot-then-json-text"
)

// DecoderStages are the stages of the study's decoder unit (tables VI and VII).
var DecoderStages = []string{"A2", "M3", "H4"}

// SourceAbsent is the readout kind table VII gives a match where the source has no value at the
// target: recovering nothing there is correct, and the study counts it apart from a recovered
// value.
const SourceAbsent = "source-absent"

// Kinds are table VII's readout kinds, in column order: compare's kinds with a match split into
// a recovered value (match) and a correct absence (SourceAbsent).
var Kinds = []string{compare.Match, SourceAbsent, compare.Missing, compare.Wrong, compare.Unparseable, compare.Ambiguous, compare.Introduced}

// Options select the records and the policies of a study run. Profile is the study profile
// (DefaultProfile when empty), NullProfile the profile of the second null policy
// (compare.DefaultNullProfile when empty), Decoders the decoder policies (NativeDecoder and
// FallbackDecoder when none).
type Options struct {
	compare.Options
}

// Report holds the study's tables.
type Report struct {
	StudyVersion int    `json:"studyVersion"`
	Profile      string `json:"profile"`
	NullProfile  string `json:"nullProfile"`
	// Cohort is the profile's cohort (absent when it has none), Scope the run's restriction by
	// the scope flags (absent when there is none).
	Cohort *result.Scope `json:"cohort,omitempty"`
	Scope  *result.Scope `json:"scope,omitempty"`
	// Decoders are the decoder policies of tables VI and VII, in column order.
	Decoders []string `json:"decoders"`
	// Lanes are the lane versions and configurations the tables have rows for: framework lanes
	// first, then the control lanes, each group by lane, version (CompareVersions) and
	// configuration.
	Lanes []Lane `json:"lanes"`
	// Stages and Tasks are table IV's rows per lane and its columns: the stages and tasks that
	// have a binding.
	Stages []string `json:"stages"`
	Tasks  []string `json:"tasks"`
	// PassCounts is table IV: one row per lane and stage where the lane has a binding (a row
	// whose bindings are all not_observable or not_applicable included).
	PassCounts []PassRow `json:"passCounts"`
	// Divergences is table V: one census per profile, the study profile first.
	Divergences []Census `json:"divergences"`
	// DecoderStages are the stages of tables VI and VII.
	DecoderStages []string `json:"decoderStages"`
	// JSONText is table VI: one row per lane and decoder stage with a whole-value reading.
	JSONText []JSONTextRow `json:"jsonText"`
	// DecoderTotals is table VII's count: each decoder's readouts by kind over the framework
	// lanes' positions, and apart over the control lanes'.
	DecoderTotals []DecoderTotal `json:"decoderTotals"`
	// Positions are table VII's rows: every whole-value reading of the decoder stages, framework
	// and control lanes, in position order.
	Positions []PositionReadout `json:"positions"`
	// Unstable counts the bindings and readings whose repetitions disagree (exit 3).
	Unstable int `json:"unstable"`
	// Failure names what stopped a run that failed before it could count (exit 3); such a
	// report holds nothing else but the profiles and the scope.
	Failure *result.Failure `json:"failure,omitempty"`
}

// Lane is one lane version and configuration of the tables.
type Lane struct {
	Lane          string `json:"lane"`
	LaneVersion   string `json:"laneVersion"`
	Configuration string `json:"configuration"`
	// Origin is captured or reconstructed (the carriers of its records).
	Origin  string `json:"origin"`
	Control bool   `json:"control"`
}

// at is the lane's cell at a stage: the key of a row of tables IV and VI.
func (l Lane) at(stage string) result.Cell {
	return result.Cell{Lane: l.Lane, LaneVersion: l.LaneVersion, Configuration: l.Configuration, Stage: stage}
}

// PassRow is one row of table IV: a lane at one stage, one cell per task.
type PassRow struct {
	result.Cell
	Cells []PassCell `json:"cells"`
}

// PassCell counts one task's bindings of a lane at a stage. Judged is every binding whose
// outcome says something of the carrier (pass, unmet, execution_failed, not_reached, ambiguous,
// unstable): all but not_applicable and not_observable. Outcomes counts every outcome present.
type PassCell struct {
	Task     string         `json:"task"`
	Pass     int            `json:"pass"`
	Judged   int            `json:"judged"`
	Outcomes map[string]int `json:"outcomes"`
}

// Census is table V for one profile: its primary divergences, unique and manifestations, each in
// all and by family and by origin; the guard divergences, those of task T1 apart; the reported
// apart ones; and the leave-one-lane-out recount.
type Census struct {
	Profile                string              `json:"profile"`
	NullPolicy             string              `json:"nullPolicy"`
	Unique                 int                 `json:"unique"`
	Manifestations         int                 `json:"manifestations"`
	UniqueByFamily         map[string]int      `json:"uniqueByFamily"`
	ManifestationsByFamily map[string]int      `json:"manifestationsByFamily"`
	UniqueByOrigin         result.OriginCounts `json:"uniqueByOrigin"`
	ManifestationsByOrigin result.OriginCounts `json:"manifestationsByOrigin"`
	// T1 are the divergences of task T1 (content), a guard: beyond the primary count.
	T1 []result.Divergence `json:"t1"`
	// Guard counts every guard divergence, T1's included.
	Guard int `json:"guard"`
	Apart int `json:"apart"`
	// LeaveOneOut is, per framework lane, the unique divergences left without it.
	LeaveOneOut map[string]int `json:"leaveOneOut"`
}

// JSONTextRow is one row of table VI: at a lane and decoder stage, the captured whole-value
// readings (Positions), each decoder's matches, and per decoder other than NativeDecoder the
// matches where native-slot gives no match (the value was recovered from JSON text, or its
// absence read from text that is not JSON).
type JSONTextRow struct {
	result.Cell
	Positions   int            `json:"positions"`
	Matches     map[string]int `json:"matches"`
	TextMatches map[string]int `json:"textMatches"`
}

// DecoderTotal is one decoder's readouts by kind (Kinds) over the captured whole-value readings
// of the decoder stages, at the framework lanes (Framework) and the control lanes (Control).
type DecoderTotal struct {
	Decoder   string         `json:"decoder"`
	Framework compare.Counts `json:"framework"`
	Control   compare.Counts `json:"control"`
}

// PositionReadout is one whole-value reading: a position, its state (the record state or
// unstable) and, when captured, each decoder's readout kind (Kinds).
type PositionReadout struct {
	result.Position
	Origin   string            `json:"origin"`
	Control  bool              `json:"control"`
	State    string            `json:"state"`
	Readouts map[string]string `json:"readouts,omitempty"`
}

// ExitCode is 3 when the run failed or repetitions disagree, else 0.
func (r *Report) ExitCode() int {
	if r.Failure != nil {
		return r.Failure.Exit
	}
	if r.Unstable > 0 {
		return result.ExitInstrument
	}
	return result.ExitSatisfied
}

// Failed is the report of a study run that failed with err, an instrument failure, before it
// could count: the profiles, the scope and the failure, every table empty.
func Failed(opts Options, scope *result.Scope, err error) *Report {
	opts = defaults(opts)
	r := empty(opts)
	r.Scope = scope
	r.Failure = &result.Failure{Exit: result.ExitInstrument, Error: err.Error()}
	return r
}

func empty(opts Options) *Report {
	return &Report{StudyVersion: Version, Profile: opts.Profile, NullProfile: opts.NullProfile, Decoders: opts.Decoders,
		Lanes: []Lane{}, Stages: []string{}, Tasks: []string{}, PassCounts: []PassRow{}, Divergences: []Census{},
		DecoderStages: DecoderStages, JSONText: []JSONTextRow{}, DecoderTotals: []DecoderTotal{}, Positions: []PositionReadout{}}
}

func defaults(opts Options) Options {
	if opts.Profile == "" {
		opts.Profile = DefaultProfile
	}
	if opts.NullProfile == "" {
		opts.NullProfile = compare.DefaultNullProfile
	}
	if len(opts.Decoders) == 0 {
		opts.Decoders = []string{NativeDecoder, FallbackDecoder}
	}
	return opts
}

// Run computes the study's tables from the records opts select.
func Run(ctx context.Context, opts Options) (*Report, error) {
	opts = defaults(opts)
	cr, checks, err := compare.RunWithChecks(ctx, opts.Options)
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	r, err := Tables(cr, checks)
	if err != nil {
		return nil, result.AsInput(fmt.Errorf("study: %w", err))
	}
	return r, nil
}

// Tables arranges a compare run (its report and its two check reports) as the study's tables. It
// is an error when the check selected no binding: tables of nothing are no finding.
func Tables(cr *compare.Report, checks Checks) (*Report, error) {
	base, other, m := checks.Base, checks.Other, checks.Model
	if base.Results.Len() == 0 {
		return nil, fmt.Errorf("the records hold no binding of profile %s within the selection (cohort and scope): no table to compute", base.Profile)
	}
	decoders := make([]string, len(cr.Decoders))
	for i, d := range cr.Decoders {
		decoders[i] = d.Name
	}
	r := empty(Options{compare.Options{NullProfile: other.Profile, Decoders: decoders}})
	r.Profile = base.Profile
	r.Cohort, r.Scope = base.Cohort, base.Scope
	r.Unstable = base.Summary.Unstable + other.Summary.Unstable + cr.Summary.Unstable
	r.Lanes = lanes(m, base)
	r.Tasks = tasks(base)
	r.PassCounts, r.Stages = passCounts(base, r.Lanes, r.Tasks)
	r.Divergences = []Census{census(base), census(other)}
	r.Positions = positions(m, cr)
	r.JSONText = jsonText(r.Lanes, r.Positions, decoders)
	r.DecoderTotals = decoderTotals(r.Positions, decoders)
	return r, nil
}

// Checks is compare.Checks: the two check reports and the model of a compare run.
type Checks = compare.Checks

// lanes lists the lane versions and configurations of the check's bindings, framework lanes
// first.
func lanes(m *contract.Model, base *result.Report) []Lane {
	seen := map[result.Cell]bool{} // a lane version and configuration: a cell without its stage
	var out []Lane
	for _, res := range base.Each() {
		k := result.Cell{Lane: res.Lane, LaneVersion: res.LaneVersion, Configuration: res.Configuration}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, Lane{Lane: res.Lane, LaneVersion: res.LaneVersion, Configuration: res.Configuration,
			Origin: res.Origin, Control: m.Lanes[res.Lane].Control})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Control != b.Control {
			return !a.Control
		}
		if a.Lane != b.Lane {
			return a.Lane < b.Lane
		}
		if a.LaneVersion != b.LaneVersion {
			return result.CompareVersions(a.LaneVersion, b.LaneVersion) < 0
		}
		return a.Configuration < b.Configuration
	})
	return out
}

// tasks are the tasks of the check's bindings, sorted.
func tasks(base *result.Report) []string {
	set := map[string]bool{}
	for _, res := range base.Each() {
		set[res.Task] = true
	}
	return contract.SortedKeys(set)
}

// notJudged are the outcomes that say nothing of a carrier: table IV leaves them out of a cell's
// judged count.
var notJudged = []string{result.NotApplicable, result.NotObservable}

// passCounts is table IV, and the stages it has rows for (pipeline order).
func passCounts(base *result.Report, ls []Lane, tasks []string) ([]PassRow, []string) {
	cells := map[result.Cell]map[string]*PassCell{}
	stageSet := map[string]bool{}
	for _, res := range base.Each() {
		k := res.Position().Cell()
		row := cells[k]
		if row == nil {
			row = map[string]*PassCell{}
			cells[k] = row
		}
		c := row[res.Task]
		if c == nil {
			c = &PassCell{Task: res.Task, Outcomes: map[string]int{}}
			row[res.Task] = c
		}
		c.Outcomes[res.Outcome]++
		if res.Outcome == result.Pass {
			c.Pass++
		}
		if !slices.Contains(notJudged, res.Outcome) {
			c.Judged++
		}
		stageSet[res.Stage] = true
	}
	var stages []string
	for _, st := range contract.Stages {
		if stageSet[st] {
			stages = append(stages, st)
		}
	}
	out := []PassRow{}
	for _, l := range ls {
		for _, st := range stages {
			k := l.at(st)
			row := cells[k]
			if row == nil {
				continue
			}
			pr := PassRow{Cell: k}
			for _, t := range tasks {
				c := row[t]
				if c == nil {
					c = &PassCell{Task: t, Outcomes: map[string]int{}}
				}
				pr.Cells = append(pr.Cells, *c)
			}
			out = append(out, pr)
		}
	}
	return out, stages
}

// T1 is the content task, a guard whose divergences table V gives beside the primary count.
const T1 = "T1"

// census is table V for one check report.
func census(r *result.Report) Census {
	d := r.Divergences
	c := Census{Profile: r.Profile, NullPolicy: r.NullPolicy, Unique: len(d.Unique), Manifestations: d.Manifestations,
		UniqueByFamily: d.UniqueByFamily, ManifestationsByFamily: d.ManifestationsByFamily,
		UniqueByOrigin: d.UniqueByOrigin, ManifestationsByOrigin: d.ManifestationsByOrigin,
		T1: []result.Divergence{}, Guard: len(d.Guard), Apart: len(d.Apart), LeaveOneOut: d.LeaveOneOut}
	for _, g := range d.Guard {
		if g.Task == T1 {
			c.T1 = append(c.T1, g)
		}
	}
	return c
}

// positions are the whole-value readings of the decoder stages, each decoder's readout kind with
// a correct absence told apart (SourceAbsent).
func positions(m *contract.Model, cr *compare.Report) []PositionReadout {
	out := []PositionReadout{}
	for i := range cr.Readouts {
		rd := &cr.Readouts[i]
		if rd.Target != compare.WholeTarget || !slices.Contains(DecoderStages, rd.Stage) {
			continue
		}
		p := PositionReadout{Position: rd.Position, Origin: rd.Origin, Control: m.Lanes[rd.Lane].Control, State: rd.State}
		if rd.State == "captured" {
			p.Readouts = map[string]string{}
			for _, d := range cr.Decoders {
				k := rd.Kind(d.Name)
				if k == compare.Match && rd.Expected == nil {
					k = SourceAbsent
				}
				p.Readouts[d.Name] = k
			}
		}
		out = append(out, p)
	}
	return out
}

// jsonText is table VI.
func jsonText(ls []Lane, ps []PositionReadout, decoders []string) []JSONTextRow {
	rows := map[result.Cell]*JSONTextRow{}
	native := slices.Contains(decoders, NativeDecoder)
	for _, p := range ps {
		if p.Readouts == nil {
			continue
		}
		k := p.Cell()
		row := rows[k]
		if row == nil {
			row = &JSONTextRow{Cell: k, Matches: map[string]int{}, TextMatches: map[string]int{}}
			for _, d := range decoders {
				row.Matches[d] = 0
				if native && d != NativeDecoder {
					row.TextMatches[d] = 0
				}
			}
			rows[k] = row
		}
		row.Positions++
		for _, d := range decoders {
			if !isMatch(p.Readouts[d]) {
				continue
			}
			row.Matches[d]++
			if native && d != NativeDecoder && !isMatch(p.Readouts[NativeDecoder]) {
				row.TextMatches[d]++
			}
		}
	}
	out := []JSONTextRow{}
	for _, l := range ls {
		for _, st := range DecoderStages {
			if row := rows[l.at(st)]; row != nil {
				out = append(out, *row)
			}
		}
	}
	return out
}

// isMatch accepts a readout that recovers what the source has: a value or its absence.
func isMatch(kind string) bool { return kind == compare.Match || kind == SourceAbsent }

// decoderTotals is table VII's count.
func decoderTotals(ps []PositionReadout, decoders []string) []DecoderTotal {
	out := make([]DecoderTotal, 0, len(decoders))
	for _, d := range decoders {
		t := DecoderTotal{Decoder: d, Framework: compare.NewCounts(Kinds), Control: compare.NewCounts(Kinds)}
		for _, p := range ps {
			if p.Readouts == nil {
				continue
			}
			c := &t.Framework
			if p.Control {
				c = &t.Control
			}
			c.Add(p.Readouts[d])
		}
		out = append(out, t)
	}
	return out
}
