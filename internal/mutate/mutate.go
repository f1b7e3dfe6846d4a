// Package mutate generates challenge cases, the step that precedes `contractcheck challenge`: from
// a fixture's source (W0) and one lane stage's captured record it derives **faults** (a semantic
// change of the carrier that a named task must detect) and **controls** (a change of
// representation that every task must accept). Operators work on the ordered JSON of the carrier
// (member order and number spellings kept) and find what they change through the lane stage's
// compartment binding, exactly where the projector reads it; controls that change only the
// spelling act on the record's bytes, which the suite keeps verbatim.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package mutate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Fault and Control are the two kinds of case.
const (
	Fault   = "fault"
	Control = "control"
)

// AllTasks is the task (and compartment) of a control: every task of the fixture must pass.
const AllTasks = "*"

// Env is what an operator knows about the record it mutates: the contract model, the lane stage
// whose bindings read the carrier, the fixture and the tasks the profile evaluates on it.
type Env struct {
	Model   *contract.Model
	Lane    string
	Stage   string
	Fixture contract.Fixture
	Tasks   []string
}

// Position is where a record of the environment's lane stage was observed: its fixture, lane
// version and configuration as the record states them.
func (e *Env) Position(record *Node) result.Position {
	str := func(key string) string {
		if v, ok := record.Get(key); ok && v.Kind == String {
			return v.Text
		}
		return ""
	}
	return result.Position{Fixture: str("fixture"), Lane: e.Lane, LaneVersion: str("laneVersion"), Configuration: str("configuration"), Stage: e.Stage}
}

func (e *Env) compartment(name string) (contract.Compartment, bool) {
	c, ok := e.Model.Lanes[e.Lane].Stages[e.Stage].Compartments[name]
	return c, ok
}

// Operator is one mutation.
type Operator struct {
	Name string
	Kind string // Fault or Control
	Doc  string
	// Tasks are the tasks a fault may target, in order of preference; the first the fixture is
	// evaluated on is the case's task.
	Tasks []string
	// Atoms are the atoms a fault changes.
	Atoms []string
	apply func(m *M) error
}

// M is one application of an operator: the carrier copy it changes and what it records about the
// change.
type M struct {
	Env         *Env
	Carrier     *Node
	Task        string // the fault's target task
	Compartment string // the compartment the operator reads through
	Rand        *rand.Rand
	Blocks      []int          // content items changed (indexes in the carrier's list)
	Path        string         // pointer inside the structured slot, for structured faults
	Atoms       []string       // the atoms changed, when narrower than the operator's
	Params      map[string]any // the operator's choices
	What        string         // one sentence: what was changed
	Style       Style          // how the carrier is written (controls)
	Record      Style          // how the whole record is written (controls)
}

// NotApplicable says why an operator cannot apply to a carrier.
type NotApplicable struct{ Reason string }

// Error returns the message.
func (e *NotApplicable) Error() string { return e.Reason }

func na(format string, args ...any) error { return &NotApplicable{fmt.Sprintf(format, args...)} }

// Operators is the catalogue, faults first, each kind in name order.
func Operators() []*Operator {
	out := append(faultOperators(), controlOperators()...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind == Fault
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Lookup returns the named operators, or every operator for an empty list.
func Lookup(names []string) ([]*Operator, error) {
	all := Operators()
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]*Operator{}
	for _, o := range all {
		byName[o.Name] = o
	}
	var out []*Operator
	for _, n := range names {
		o, ok := byName[n]
		if !ok {
			var known []string
			for _, o := range all {
				known = append(known, o.Name)
			}
			return nil, fmt.Errorf("unknown operator %q (known: %s)", n, strings.Join(known, ", "))
		}
		out = append(out, o)
	}
	return out, nil
}

// Result is a mutated record.
type Result struct {
	Operator    *Operator
	Task        string
	Compartment string
	Atoms       []string
	Blocks      []int
	Path        string
	Params      map[string]any
	What        string
	Record      []byte // the whole observation record, as it is to be written verbatim
}

// Apply applies an operator to a record (an observation record whose "carrier" member is the
// carrier), with choices drawn from seed. The record's other members are kept as they are.
func Apply(op *Operator, env *Env, record *Node, seed uint64) (*Result, error) {
	rec := record.Clone()
	carrier, ok := rec.Get("carrier")
	if !ok {
		return nil, errors.New("the record has no carrier")
	}
	h := fnv.New64a()
	h.Write([]byte(op.Name))
	m := &M{Env: env, Carrier: carrier, Rand: rand.New(rand.NewPCG(seed, h.Sum64())), Params: map[string]any{}}
	if op.Kind == Fault {
		for _, t := range op.Tasks {
			if slices.Contains(env.Tasks, t) {
				if _, inModel := env.Model.Tasks[t]; inModel {
					m.Task = t
					break
				}
			}
		}
		if m.Task == "" {
			return nil, na("fixture's tasks %v include none of %v", env.Tasks, op.Tasks)
		}
		m.Compartment = env.Model.Tasks[m.Task].Compartment
		if _, ok := env.compartment(m.Compartment); !ok {
			return nil, na("lane %s stage %s binds no compartment %s", env.Lane, env.Stage, m.Compartment)
		}
	} else {
		m.Task, m.Compartment = AllTasks, AllTasks
	}
	if err := op.apply(m); err != nil {
		return nil, err
	}
	m.Record.Inner = &InnerStyle{At: carrier, Style: m.Style}
	out := rec.Bytes(m.Record)
	if string(out) == string(record.Bytes(Style{})) {
		return nil, na("the change leaves the record's bytes as they were")
	}
	atoms := op.Atoms
	if m.Atoms != nil {
		atoms = m.Atoms
	}
	return &Result{Operator: op, Task: m.Task, Compartment: m.Compartment, Atoms: atoms,
		Blocks: m.Blocks, Path: m.Path, Params: m.Params, What: m.What, Record: out}, nil
}

// pick returns n distinct indexes of candidates (n ≤ len), in increasing order.
func (m *M) pick(count, n int) []int {
	p := m.Rand.Perm(count)[:n]
	sort.Ints(p)
	return p
}
