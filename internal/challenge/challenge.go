// Package challenge runs a suite of mutation cases (see internal/mutate) against the oracle, the
// step after the check pipeline: every case's source and record are validated as check validates
// them, the record's carrier is evaluated by the selected contract set (the built-in one unless
// --contracts/--policies say otherwise) on every task of its fixture, and each case is classified:
// a fault is detected when its task is unmet, a control accepted when every task passes. Two
// baselines are scored beside the oracle on the same cases: a schema-only check and a
// channel-insensitive recursive search.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package challenge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/progress"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// CaseSchema is the case format's schema, inside the schemas directory.
const CaseSchema = "contractcheck/challenge-case.schema.json"

// Version is the version of the JSON challenge report.
const Version = 1

// Outcomes of a task on a case's record.
const (
	Pass         = "pass"
	Unmet        = "unmet"
	NotEvaluated = "not_evaluated" // the contract set has no such task
)

// Verdicts on a case.
const (
	Detected = "detected" // a fault whose task is unmet
	Missed   = "missed"   // a fault whose task passes
	Accepted = "accepted" // a control every task passes
	Rejected = "rejected" // a control some task finds unmet
)

// Options selects the suite and the contract set.
type Options struct {
	inputs.Options
	Suite string // a directory, or the name of a built-in suite under fixtures/challenge/
}

// TaskResult is one task's outcome on a case's record.
type TaskResult struct {
	Task        string
	Outcome     string
	Diagnostics []map[string]any
}

// CaseResult is one classified case.
type CaseResult struct {
	*mutate.Case
	File    string
	Lane    string
	Stage   string
	Tasks   []TaskResult
	Oracle  string // Detected, Missed, Accepted or Rejected
	Correct bool   // the oracle classified the case as expected
	// Baselines: the same verdict words.
	SchemaOnly      string
	RecursiveSearch string
	// Missing lists the source values the recursive search did not find anywhere.
	Missing []string
}

// Report is the outcome of a challenge.
type Report struct {
	Suite   string
	Profile string
	Cases   []*CaseResult
}

// BuiltinSuites lists the suites shipped under fixtures/challenge/.
func BuiltinSuites() []string {
	es, err := fs.ReadDir(contractcheck.Builtin, "fixtures/challenge")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// SuiteDir resolves a suite: an existing directory, else a built-in suite's name.
func SuiteDir(name string) (inputs.Dir, error) {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return inputs.UserDir(name), nil
	}
	if fs.ValidPath(name) && !strings.Contains(name, "/") {
		root := "fixtures/challenge/" + name
		if st, err := fs.Stat(contractcheck.Builtin, root+"/cases"); err == nil && st.IsDir() {
			return inputs.Dir{FS: contractcheck.Builtin, Root: root, Display: root}, nil
		}
	}
	return inputs.Dir{}, fmt.Errorf("no suite %q: neither a directory nor a built-in suite (built in: %s)", name, strings.Join(BuiltinSuites(), ", "))
}

// Run loads the instrument and the suite, and classifies every case.
func Run(ctx context.Context, opts Options) (*Report, error) {
	d, err := SuiteDir(opts.Suite)
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	in, err := instrument.Load(ctx, opts.Options)
	if err != nil {
		return nil, err
	}
	cases, err := Load(in, d)
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	profile := opts.Profile
	if profile == "" {
		profile = inputs.DefaultProfile
	}
	r := &Report{Suite: path.Base(d.Display), Profile: profile}
	meter := progress.From(ctx) // nil when no one watches: its methods do nothing
	meter.AddTotalRecords(len(cases))
	for _, lc := range cases {
		cr, err := evaluate(ctx, in, lc)
		if err != nil {
			return nil, err
		}
		r.Cases = append(r.Cases, cr)
		meter.Done(1)
	}
	return r, nil
}

// loaded is a validated case with its source and record.
type loaded struct {
	*mutate.Case
	file   string
	source *instrument.Source
	record *instrument.Record
}

// Load reads and validates every case of a suite, in file name order: the case against the case
// schema, its source against the MCP schema of its fixture's revision, its record as check
// validates observation records. Any failure is an input error naming the file and the pointer.
func Load(in *instrument.Instrument, d inputs.Dir) ([]*loaded, error) {
	casesDir := path.Join(d.Root, "cases")
	es, err := fs.ReadDir(d.FS, casesDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path.Join(d.Display, "cases"), safeio.PathCause(err))
	}
	var out []*loaded
	ids := map[string]string{}
	for _, e := range es {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p, display := d.Path("cases/" + e.Name())
		data, err := safeio.ReadFile(d.FS, p, strictjson.DefaultLimits.MaxBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", display, safeio.PathCause(err))
		}
		lc, err := loadCase(in, d, display, data)
		if err != nil {
			return nil, err
		}
		if prev, dup := ids[lc.ID]; dup {
			return nil, fmt.Errorf("%s: /id: case %q is also defined in %s", display, lc.ID, prev)
		}
		ids[lc.ID] = display
		out = append(out, lc)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: the suite holds no case", path.Join(d.Display, "cases"))
	}
	return out, nil
}

func loadCase(in *instrument.Instrument, d inputs.Dir, display string, data []byte) (*loaded, error) {
	doc, err := strictjson.Decode(display, data, strictjson.DefaultLimits)
	if err != nil {
		return nil, err
	}
	if err := validateCase(in.Validator, display, doc); err != nil {
		return nil, err
	}
	m := doc.(map[string]any)
	c := &mutate.Case{
		ID: m["id"].(string), Operator: m["operator"].(string), Kind: m["kind"].(string),
		Task: m["task"].(string), Compartment: m["compartment"].(string), Description: m["description"].(string),
	}
	c.Atoms = stringList(m["atoms"])
	if bs, ok := m["blocks"].([]any); ok {
		for _, b := range bs {
			n, _ := b.(interface{ Int64() (int64, error) }).Int64()
			c.Blocks = append(c.Blocks, int(n))
		}
	}
	c.Path, _ = m["path"].(string)
	c.Params, _ = m["params"].(map[string]any)
	exp := m["expected"].(map[string]any)
	c.Expected = mutate.Expected{Outcome: exp["outcome"].(string), Tasks: stringList(exp["tasks"])}
	src := m["source"].(map[string]any)
	c.Fixture, c.SourceFile = src["fixture"].(string), src["file"].(string)
	f, ok := in.Model.Fixtures[c.Fixture]
	if !ok {
		return nil, fmt.Errorf("%s: /source/fixture: unknown fixture %q (not in the catalog)", display, c.Fixture)
	}
	sp, sdisplay := d.Path(c.SourceFile)
	if !fs.ValidPath(path.Clean(c.SourceFile)) || strings.HasPrefix(path.Clean(c.SourceFile), "..") {
		return nil, fmt.Errorf("%s: /source/file: %q is not a path inside the suite", display, c.SourceFile)
	}
	sdata, err := safeio.ReadFile(d.FS, sp, strictjson.DefaultLimits.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: /source/file: %s: %w", display, sdisplay, safeio.PathCause(err))
	}
	source, err := instrument.ParseSource(in.Validator, sdata, sdisplay, c.Fixture, f.Revision)
	if err != nil {
		return nil, err
	}
	rec, err := mutate.ValidateRecord(in, display+" (record)", lineOf(data, `"record"`), m["record"], source)
	if err != nil {
		return nil, err
	}
	return &loaded{Case: c, file: display, source: source, record: rec}, nil
}

// validateCase validates a decoded case against the case schema; pointers name the case file's
// members.
func validateCase(v *schema.Validator, display string, doc any) error {
	err := v.ValidateCarrier(CaseSchema, display, 0, doc)
	var ve *schema.ValidationError
	if errors.As(err, &ve) {
		e := *ve
		e.Pointer = strings.TrimPrefix(e.Pointer, "/carrier")
		e.Msg = strings.ReplaceAll(e.Msg, "/carrier/", "/")
		return &e
	}
	return err
}

func lineOf(data []byte, member string) int {
	i := strings.Index(string(data), member)
	if i < 0 {
		return 0
	}
	return strings.Count(string(data[:i]), "\n") + 1
}

func stringList(v any) []string {
	xs, _ := v.([]any)
	var out []string
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// evaluate classifies one case by the oracle and the two baselines.
func evaluate(ctx context.Context, in *instrument.Instrument, lc *loaded) (*CaseResult, error) {
	rec := lc.record
	f := in.Model.Fixtures[lc.Fixture]
	cr := &CaseResult{Case: lc.Case, File: lc.file, Lane: rec.Lane, Stage: rec.Stage}
	outcome := map[string]string{}
	tasks := in.Model.ProfileTasks(in.Profile, f)
	for _, t := range lc.Expected.Tasks {
		if !slices.Contains(tasks, t) {
			tasks = append(tasks, t)
		}
	}
	for _, t := range tasks {
		tr := TaskResult{Task: t, Outcome: NotEvaluated}
		if _, ok := in.Model.Tasks[t]; ok {
			v, err := in.EvaluatePair(ctx, t, rec.Position(), f, lc.source.Doc, rec.Carrier)
			if err != nil {
				return nil, fmt.Errorf("%s: task %s: %w", lc.file, t, err)
			}
			tr.Outcome, tr.Diagnostics = Pass, v.Diagnostics
			if !v.Pass() {
				tr.Outcome = Unmet
			}
		}
		outcome[t] = tr.Outcome
		cr.Tasks = append(cr.Tasks, tr)
	}
	if lc.Kind == mutate.Fault {
		cr.Oracle = Detected
		for _, t := range lc.Expected.Tasks {
			if outcome[t] != Unmet {
				cr.Oracle = Missed
			}
		}
		cr.Correct = cr.Oracle == Detected
		cr.SchemaOnly = Missed
	} else {
		cr.Oracle = Accepted
		for _, t := range cr.Tasks {
			if t.Outcome == Unmet {
				cr.Oracle = Rejected
			}
		}
		cr.Correct = cr.Oracle == Accepted
		cr.SchemaOnly = Accepted
	}
	rev := in.Model.Fixtures[lc.Fixture].Revision
	srcProj, ok := in.SourceProjector(rev)
	if !ok {
		return nil, &result.InputError{Err: fmt.Errorf("%s: fixture %s: %w", lc.file, lc.Fixture, in.Model.NoBinding(rev))}
	}
	view, err := srcProj.Read(lc.source.Doc)
	if err != nil {
		return nil, &result.InputError{Err: fmt.Errorf("%s: %w", lc.source.File, err)}
	}
	cr.RecursiveSearch, cr.Missing = recursiveSearch(lc.Case, view, rec.Carrier)
	return cr, nil
}

// Misclassified returns the cases the oracle classified against their expectation.
func (r *Report) Misclassified() []*CaseResult {
	var out []*CaseResult
	for _, c := range r.Cases {
		if !c.Correct {
			out = append(out, c)
		}
	}
	return out
}

// Tally counts one classifier's verdicts.
type Tally struct {
	Faults, Detected, Controls, Accepted int
}

// Misclassified is the number of cases the classifier got wrong.
func (t Tally) Misclassified() int { return t.Faults - t.Detected + t.Controls - t.Accepted }

// Classifiers names the oracle and the baselines, in report order.
var Classifiers = []string{"oracle", "schemaOnly", "recursiveSearch"}

func (c *CaseResult) verdict(classifier string) string {
	switch classifier {
	case "schemaOnly":
		return c.SchemaOnly
	case "recursiveSearch":
		return c.RecursiveSearch
	}
	return c.Oracle
}

// Tallies counts each classifier's verdicts over cases.
func Tallies(cases []*CaseResult) map[string]Tally {
	out := map[string]Tally{}
	for _, cl := range Classifiers {
		var t Tally
		for _, c := range cases {
			v := c.verdict(cl)
			if c.Kind == mutate.Fault {
				t.Faults++
				if v == Detected {
					t.Detected++
				}
			} else {
				t.Controls++
				if v == Accepted {
					t.Accepted++
				}
			}
		}
		out[cl] = t
	}
	return out
}

// OperatorScore is one operator's mutation score: how each classifier fares on its cases.
type OperatorScore struct {
	Operator string
	Kind     string
	Cases    int
	// Verdict per classifier: for a fault operator "detects" (every case detected), "blind"
	// (none) or "partial"; for a control "accepts", "rejects" or "partial".
	Verdicts map[string]string
	Tallies  map[string]Tally
	// Blind lists the oracle's misclassified case ids of the operator.
	Blind []string
}

// Score groups the cases by operator.
func (r *Report) Score() []OperatorScore {
	by := map[string][]*CaseResult{}
	for _, c := range r.Cases {
		by[c.Operator] = append(by[c.Operator], c)
	}
	var out []OperatorScore
	for op, cs := range by {
		s := OperatorScore{Operator: op, Kind: cs[0].Kind, Cases: len(cs), Verdicts: map[string]string{}, Tallies: Tallies(cs)}
		for _, cl := range Classifiers {
			t := s.Tallies[cl]
			if s.Kind == mutate.Fault {
				s.Verdicts[cl] = grade(t.Detected, t.Faults, "detects", "blind")
			} else {
				s.Verdicts[cl] = grade(t.Accepted, t.Controls, "accepts", "rejects")
			}
		}
		for _, c := range cs {
			if !c.Correct {
				s.Blind = append(s.Blind, c.ID)
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind == mutate.Fault
		}
		return out[i].Operator < out[j].Operator
	})
	return out
}

func grade(ok, total int, all, none string) string {
	switch ok {
	case total:
		return all
	case 0:
		return none
	}
	return "partial"
}
