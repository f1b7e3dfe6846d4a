// Package census is step 6 of the pipeline (strict JSON → schema → contract → projector → policy →
// census → report): it collapses repetitions into one outcome per binding, localizes where a
// distinction was lost, counts divergences between lanes and applies the profile's gate. It is pure
// bookkeeping over readings the policy step produced, so it is deterministic by construction: every
// map it fills is read back in sorted order.
package census

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Binding is a task evaluated at a position: the unit that has one outcome.
type Binding struct {
	report.Position
	Task string
}

// Reading is one repetition's reading of one binding.
type Reading struct {
	Binding
	Repetition  int
	Origin      string
	Outcome     string
	Readout     map[string]any
	Diagnostics []report.Diagnostic
	Error       string
	// File and Line locate the observation record the reading came from; Seq is the record's
	// place in the order the run read the records.
	File string
	Line int
	Seq  int
}

// Census accumulates readings. Add is not safe for concurrent use: one collector owns it.
type Census struct {
	model       *contract.Model
	profileName string
	profile     contract.Profile
	bindings    map[Binding]*collected
	scope       *report.Scope // what the run was restricted to, nil when it was not
}

// Restrict records that the run was restricted to a scope: the report says so, and a requirement
// that gates nothing within it is out of scope rather than an error, as long as another one gates
// something.
func (c *Census) Restrict(s report.Scope) { c.scope = &s }

// collected is what the census keeps of a binding: its first reading and, per distinct
// fingerprint, the repetitions that gave it. Usually one variant: a slice beats a map.
type collected struct {
	first    Reading
	variants []variant
	reps     []int
	records  []report.RecordRef // each repetition's record, in the order of reps
	// seen indexes reps (repetition → its index) once there are more than a few, so that
	// recording N repetitions of one position costs O(N), not O(N²).
	seen map[int]int
}

// smallReps is how many repetitions a binding holds before they are indexed: captures record
// three, and a linear scan of a few beats a map.
const smallReps = 8

// repIndex returns where repetition n was recorded, or -1.
func (col *collected) repIndex(n int) int {
	if col.seen != nil {
		if i, ok := col.seen[n]; ok {
			return i
		}
		return -1
	}
	return slices.Index(col.reps, n)
}

// addRep records repetition n and its record.
func (col *collected) addRep(n int, rec report.RecordRef) {
	col.reps = append(col.reps, n)
	col.records = append(col.records, rec)
	switch {
	case col.seen != nil:
		col.seen[n] = len(col.reps) - 1
	case len(col.reps) > smallReps:
		col.seen = make(map[int]int, 2*len(col.reps))
		for i, r := range col.reps {
			col.seen[r] = i
		}
	}
}

type variant struct {
	fingerprint [sha256.Size]byte
	report.Variant
}

// New starts a census for a profile of a model.
func New(m *contract.Model, profileName string) (*Census, error) {
	p, ok := m.Profiles[profileName]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (the contracts define %s)", profileName, strings.Join(contract.SortedKeys(m.Profiles), ", "))
	}
	return &Census{model: m, profileName: profileName, profile: p, bindings: map[Binding]*collected{}}, nil
}

// Add records one reading. A second reading of the same repetition is an input error: the
// observation records repeat themselves.
func (c *Census) Add(r Reading) error {
	col, ok := c.bindings[r.Binding]
	if !ok {
		col = &collected{first: r}
		c.bindings[r.Binding] = col
	}
	if i := col.repIndex(r.Repetition); i >= 0 {
		first := col.records[i]
		return fmt.Errorf("%s:%d: %s %s %s %s %s: repetition %d recorded twice (first at %s:%d)", r.File, r.Line, r.Fixture, r.Lane, r.LaneVersion, r.Configuration, r.Stage, r.Repetition, first.File, first.Line)
	}
	col.addRep(r.Repetition, report.RecordRef{File: r.File, Line: r.Line, Repetition: r.Repetition})
	fp, err := fingerprint(r)
	if err != nil {
		return err
	}
	for i := range col.variants {
		if col.variants[i].fingerprint == fp {
			col.variants[i].Repetitions = append(col.variants[i].Repetitions, r.Repetition)
			return nil
		}
	}
	col.variants = append(col.variants, variant{fp, report.Variant{
		Repetitions: []int{r.Repetition}, Outcome: r.Outcome, Readout: r.Readout, Diagnostics: r.Diagnostics,
	}})
	return nil
}

// fingerprint is what repetitions must agree on: the state and every readout. An execution
// failure's message is not compared: it may carry a port or a process id.
// Only a hash of the canonical encoding is kept: the census holds every binding at once.
func fingerprint(r Reading) ([sha256.Size]byte, error) {
	b, err := strictjson.Marshal(map[string]any{"o": r.Outcome, "r": nilToEmpty(r.Readout), "d": diagnosticsValue(r.Diagnostics)})
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("fingerprint %s %s: %w", r.Fixture, r.Task, err)
	}
	return sha256.Sum256(b), nil
}

func nilToEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func diagnosticsValue(ds []report.Diagnostic) []any {
	out := make([]any, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}

// Report collapses the readings and computes localizations, divergences and the gate.
func (c *Census) Report() *report.Report {
	r := &report.Report{
		ReportVersion: report.Version,
		Profile:       c.profileName,
		NullPolicy:    c.profile.NullPolicy,
		Scope:         c.scope,
		Results:       []report.Result{},
		Localizations: []report.Localization{},
	}
	for _, b := range c.sortedBindings() {
		res := c.collapse(b)
		r.Summary.Add(res.Outcome)
		r.Results = append(r.Results, res)
	}
	r.Gate = c.gate(r.Results)
	r.Localizations = c.localize(r.Results)
	r.Divergences = c.divergences(r.Results, func(*report.Result) bool { return true })
	r.CapturedDivergences = c.divergences(r.Results, func(res *report.Result) bool { return res.Origin == "captured" })
	r.Upgrades = c.upgrades(r.Results)
	r.Reported = c.reported(r.Results)
	return r
}

func (c *Census) sortedBindings() []Binding {
	keys := make([]Binding, 0, len(c.bindings))
	for b := range c.bindings {
		keys = append(keys, b)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Position != b.Position {
			return a.Position.Less(b.Position, contract.StageIndex)
		}
		return a.Task < b.Task
	})
	return keys
}

// collapse turns a binding's readings into one result: the common reading when every repetition
// agrees, else outcome unstable with each variant. No majority vote.
func (c *Census) collapse(b Binding) report.Result {
	col := c.bindings[b]
	fixture := c.model.Fixtures[b.Fixture]
	task := c.model.Tasks[b.Task]
	res := report.Result{
		Fixture: b.Fixture, Suite: fixture.Suite, Family: fixture.Family,
		Lane: b.Lane, LaneVersion: b.LaneVersion, Configuration: b.Configuration, Stage: b.Stage,
		Task: b.Task, Role: c.role(b), Compartment: task.Compartment,
		Origin: col.first.Origin, Repetitions: len(col.reps), Records: col.refs(),
	}
	if len(col.variants) == 1 {
		res.Outcome = col.first.Outcome
		res.Readout = col.first.Readout
		res.Diagnostics = col.first.Diagnostics
		res.Error = col.first.Error
		return res
	}
	res.Outcome = report.Unstable
	for _, v := range col.variants {
		sort.Ints(v.Repetitions)
		res.Variants = append(res.Variants, v.Variant)
	}
	sort.Slice(res.Variants, func(i, j int) bool { return res.Variants[i].Repetitions[0] < res.Variants[j].Repetitions[0] })
	return res
}

// refs locates the binding's records in repetition order.
func (col *collected) refs() []report.RecordRef {
	out := slices.Clone(col.records)
	sort.Slice(out, func(i, j int) bool { return out[i].Repetition < out[j].Repetition })
	return out
}

// role is "guard" for guard tasks, "apart" for primary tasks on a family reported apart, else "primary".
func (c *Census) role(b Binding) string {
	if c.model.Tasks[b.Task].Role == "guard" {
		return "guard"
	}
	if c.model.Families[c.model.Fixtures[b.Fixture].Family].Census == "apart" {
		return "apart"
	}
	return "primary"
}
