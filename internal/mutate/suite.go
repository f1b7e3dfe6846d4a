package mutate

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// A suite is a directory: cases/<id>.json, one case each, and sources/<name>.json, the W0
// documents the cases name (byte-exact: a record's sourceSha256 is the hash of that file). The
// case format is schemas/contractcheck/challenge-case.schema.json.

// CaseVersion is the version of the case format.
const CaseVersion = 1

// Expected is a case's expected outcome: a fault's task must be unmet; a control must leave every
// task of the fixture pass.
type Expected struct {
	Outcome string   // "unmet" (fault) or "pass" (control)
	Tasks   []string // the tasks the outcome is required of
}

// Case is one challenge case.
type Case struct {
	ID          string
	Operator    string
	Kind        string
	Task        string // a fault's target task; "*" for a control
	Compartment string // the compartment the fault changes; "*" for a control
	Atoms       []string
	Blocks      []int
	Path        string
	Params      map[string]any
	Description string
	Expected    Expected
	Fixture     string // the catalogued fixture the source stands for
	SourceFile  string // the source's path inside the suite
	Record      []byte // the observation record, verbatim
}

// Encode writes a case as the suite file holds it: members in a fixed order, two-space indent,
// the record embedded verbatim.
func (c *Case) Encode() []byte {
	o := &Node{Kind: Object}
	o.Set("challengeCase", &Node{Kind: Number, Text: strconv.Itoa(CaseVersion)})
	o.Set("id", Str(c.ID))
	o.Set("operator", Str(c.Operator))
	o.Set("kind", Str(c.Kind))
	o.Set("task", Str(c.Task))
	o.Set("compartment", Str(c.Compartment))
	if len(c.Atoms) > 0 {
		o.Set("atoms", strings_(c.Atoms))
	}
	if len(c.Blocks) > 0 {
		b := &Node{Kind: Array, Items: []*Node{}}
		for _, i := range c.Blocks {
			b.Items = append(b.Items, &Node{Kind: Number, Text: strconv.Itoa(i)})
		}
		o.Set("blocks", b)
	}
	if c.Path != "" {
		o.Set("path", Str(c.Path))
	}
	if len(c.Params) > 0 {
		o.Set("params", FromTree(jsonTree(c.Params)))
	}
	o.Set("description", Str(c.Description))
	exp := &Node{Kind: Object}
	exp.Set("outcome", Str(c.Expected.Outcome))
	exp.Set("tasks", strings_(c.Expected.Tasks))
	o.Set("expected", exp)
	src := &Node{Kind: Object}
	src.Set("fixture", Str(c.Fixture))
	src.Set("file", Str(c.SourceFile))
	o.Set("source", src)
	o.Set("record", &Node{Kind: Raw, Raw: c.Record})
	// The record keeps its own spelling: indent only the case's own members.
	out := o.Bytes(Style{Indent: "  ", Colon: " ", Inner: &InnerStyle{At: o.Vals[len(o.Vals)-1]}})
	return append(out, '\n')
}

func strings_(ss []string) *Node {
	n := &Node{Kind: Array, Items: []*Node{}}
	for _, s := range ss {
		n.Items = append(n.Items, Str(s))
	}
	return n
}

// jsonTree turns operator parameters (ints, strings, int slices) into a strictjson tree.
func jsonTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = jsonTree(e)
		}
		return out
	case []int:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonTree(e)
		}
		return out
	}
	return v
}

// Options selects what mutate reads and writes.
type Options struct {
	inputs.Options
	// Position is the record the suite mutates: fixture, lane, stage, and the lane's version
	// (default: the first record found) and configuration (default: "default").
	result.Position
	// Source is a W0 document written for the fixture (its catalogue entry gives revision, family
	// and tasks), used instead of the catalogued source; only with a control lane, whose carrier
	// is W0 read back unchanged.
	Source    string
	Operators []string
	Seed      uint64
	Output    string
	// Force writes into an Output that holds more than a suite (CheckOutput); files are still
	// never written through a symbolic link that leads out of it.
	Force bool
}

// Skip is an operator that did not apply.
type Skip struct {
	Operator string
	Reason   string
}

// Summary is what Generate wrote.
type Summary struct {
	Cases []*Case
	Skips []Skip
}

// Generate derives a suite's cases from one fixture and one lane stage's record and writes them
// under opts.Output (cases/ and sources/). The record must pass every task of the fixture: a
// fault on a binding that already fails says nothing, nor does a control.
func Generate(ctx context.Context, opts Options) (*Summary, error) {
	ops, err := Lookup(opts.Operators)
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	if opts.Output == "" {
		return nil, &result.InputError{Err: errors.New("--output names no directory")}
	}
	if err := CheckOutput(opts.Output, opts.Force); err != nil {
		return nil, err
	}
	in, err := instrument.Load(ctx, opts.Options)
	if err != nil {
		return nil, err
	}
	f, ok := in.Model.Fixtures[opts.Fixture]
	if !ok {
		return nil, &result.InputError{Err: fmt.Errorf("unknown fixture %q (not in the catalog)", opts.Fixture)}
	}
	lane, ok := in.Model.Lanes[opts.Lane]
	if !ok {
		return nil, &result.InputError{Err: fmt.Errorf("unknown lane %q (the contracts define %s)", opts.Lane, strings.Join(contract.SortedKeys(in.Model.Lanes), ", "))}
	}
	if sd, ok := lane.Stages[opts.Stage]; !ok || sd.Exposure != contract.Observed {
		return nil, &result.InputError{Err: fmt.Errorf("lane %s does not observe stage %q", opts.Lane, opts.Stage)}
	}
	if opts.Configuration == "" {
		opts.Configuration = "default"
	}
	var (
		src      *instrument.Source
		srcBytes []byte
		srcName  string
		record   *Node
	)
	if opts.Source != "" {
		if !lane.Control {
			return nil, &result.InputError{Err: fmt.Errorf("--source needs a control lane (one that reads W0 back unchanged); %s is not one", opts.Lane)}
		}
		if srcBytes, err = safeio.ReadPath(opts.Source, strictjson.DefaultLimits.MaxBytes); err != nil {
			return nil, &result.InputError{Err: err}
		}
		display := filepath.ToSlash(opts.Source)
		if src, err = instrument.ParseSource(in.Validator, srcBytes, display, opts.Fixture, f.Revision); err != nil {
			return nil, &result.InputError{Err: err}
		}
		srcName = strings.TrimSuffix(path.Base(display), ".json")
		if record, err = controlRecord(opts, lane, srcBytes, src); err != nil {
			return nil, &result.InputError{Err: err}
		}
	} else {
		src = in.Sources[opts.Fixture]
		srcBytes = src.Data
		srcName = opts.Fixture
		if record, err = findRecord(in, opts); err != nil {
			return nil, err
		}
	}
	env := &Env{Model: in.Model, Lane: opts.Lane, Stage: opts.Stage, Fixture: f, Tasks: in.Model.ProfileTasks(in.Profile, f)}
	if err := basePasses(ctx, in, env, src, record); err != nil {
		return nil, &result.InputError{Err: err}
	}
	sum := &Summary{}
	srcFile := "sources/" + srcName + ".json"
	for _, op := range ops {
		res, err := Apply(op, env, record, opts.Seed)
		var nap *NotApplicable
		if errors.As(err, &nap) {
			sum.Skips = append(sum.Skips, Skip{op.Name, nap.Reason})
			continue
		}
		if err != nil {
			return nil, err
		}
		doc, err := strictjson.Decode(op.Name, res.Record, strictjson.DefaultLimits)
		if err == nil {
			_, err = ValidateRecord(in, op.Name, 0, doc, src)
		}
		if err != nil {
			sum.Skips = append(sum.Skips, Skip{op.Name, "the mutated record is not valid: " + err.Error()})
			continue
		}
		c := &Case{ID: fmt.Sprintf("%s.%s.%s.%s", srcName, opts.Lane, opts.Stage, op.Name), Operator: op.Name, Kind: op.Kind,
			Task: res.Task, Compartment: res.Compartment, Blocks: res.Blocks, Path: res.Path, Params: res.Params,
			Description: res.What, Fixture: opts.Fixture, SourceFile: srcFile, Record: res.Record}
		if op.Kind == Fault {
			c.Atoms = res.Atoms
			c.Expected = Expected{Outcome: "unmet", Tasks: []string{res.Task}}
		} else {
			c.Expected = Expected{Outcome: "pass", Tasks: env.Tasks}
		}
		sum.Cases = append(sum.Cases, c)
	}
	if len(sum.Cases) == 0 {
		return sum, &result.InputError{Err: fmt.Errorf("no operator applies to fixture %s on %s %s", opts.Fixture, opts.Lane, opts.Stage)}
	}
	if err := write(opts.Output, srcFile, srcBytes, sum.Cases); err != nil {
		return nil, err
	}
	return sum, nil
}

// CheckOutput refuses, unless force is set, an output directory that holds anything but a
// suite: mutate writes into a directory that does not exist, an empty one, or one that holds only
// cases/ and sources/ directories of regular .json files (a suite it made, which each run adds
// to). A symbolic link counts as something else. The error names the first such entry.
func CheckOutput(dir string, force bool) error {
	if force {
		return nil
	}
	top, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &result.InputError{Err: fmt.Errorf("--output %s: %w", dir, err)}
	}
	foreign := func(p string) error {
		return &result.InputError{Err: fmt.Errorf("--output %s holds %s, which is not part of a challenge suite (cases/*.json, sources/*.json): mutate writes only into an empty directory or a suite; --force adds to it anyway", dir, p)}
	}
	for _, e := range top {
		if !e.IsDir() || (e.Name() != "cases" && e.Name() != "sources") {
			return foreign(filepath.Join(dir, e.Name()))
		}
		sub := filepath.Join(dir, e.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			return &result.InputError{Err: fmt.Errorf("--output %s: %w", dir, err)}
		}
		for _, f := range files {
			if !f.Type().IsRegular() || !strings.HasSuffix(f.Name(), ".json") {
				return foreign(filepath.Join(sub, f.Name()))
			}
		}
	}
	return nil
}

// write adds the cases and their source to the suite at dir, all or nothing (safeio.WriteTree):
// a failure leaves the suite as it was. A source already in the suite with the same bytes is kept.
func write(dir, srcFile string, srcBytes []byte, cases []*Case) error {
	files := map[string][]byte{}
	sp := filepath.Join(dir, filepath.FromSlash(srcFile))
	old, err := safeio.ReadPath(sp, strictjson.DefaultLimits.MaxBytes)
	switch {
	case err == nil && !bytes.Equal(old, srcBytes):
		return &result.InputError{Err: fmt.Errorf("%s exists with other content: a suite holds one source per name", sp)}
	case err != nil:
		files[srcFile] = srcBytes
	}
	for _, c := range cases {
		files["cases/"+c.ID+".json"] = c.Encode()
	}
	if err := safeio.WriteTree(dir, files); err != nil {
		return fmt.Errorf("write suite %s: %w", dir, err)
	}
	return nil
}

// controlRecord builds the record a control lane makes of a W0 document: the document itself.
func controlRecord(opts Options, lane contract.Lane, data []byte, src *instrument.Source) (*Node, error) {
	carrier, err := Parse(src.File, data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	r := &Node{Kind: Object}
	r.Set("fixture", Str(opts.Fixture))
	r.Set("lane", Str(opts.Lane))
	version := lane.Versions[0]
	if opts.LaneVersion != "" {
		version = opts.LaneVersion
	}
	r.Set("laneVersion", Str(version))
	r.Set("configuration", Str(opts.Configuration))
	r.Set("stage", Str(opts.Stage))
	r.Set("repetition", &Node{Kind: Number, Text: "1"})
	r.Set("state", Str("captured"))
	r.Set("carrier", carrier)
	r.Set("sourceSha256", Str(hex.EncodeToString(sum[:])))
	r.Set("origin", Str(lane.Origin))
	return r, nil
}

// findRecord reads the first captured record of the fixture at the lane stage (repetition 1) from
// the observation records, keeping its bytes' order and spellings.
func findRecord(in *instrument.Instrument, opts Options) (*Node, error) {
	files, err := opts.Options.RecordFiles()
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	for _, rf := range files {
		n, err := findIn(in, rf, opts)
		if n != nil || err != nil {
			return n, err
		}
	}
	return nil, &result.InputError{Err: fmt.Errorf("no captured record of fixture %s on lane %s (configuration %s) at stage %s", opts.Fixture, opts.Lane, opts.Configuration, opts.Stage)}
}

// findIn streams one records file for the record findRecord looks for; a line is held only up to
// the limit check's reader puts on a record.
func findIn(in *instrument.Instrument, rf inputs.RecordFile, opts Options) (*Node, error) {
	f, err := safeio.Open(rf.Dir.FS, rf.Path, 0)
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	defer f.Close()
	p := rf.Display()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, int(strictjson.DefaultLimits.MaxBytes)+1)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 || !bytes.Contains(text, []byte(`"`+opts.Fixture+`"`)) {
			continue
		}
		n, err := Parse(fmt.Sprintf("%s:%d", p, line), text)
		if err != nil {
			return nil, &result.InputError{Err: err}
		}
		if !matches(n, opts) {
			continue
		}
		if _, err := in.ParseRecord(p, line, n.Tree()); err != nil {
			return nil, &result.InputError{Err: err}
		}
		return n, nil
	}
	if err := sc.Err(); err != nil {
		return nil, &result.InputError{Err: fmt.Errorf("%s:%d: %w", p, line+1, err)}
	}
	return nil, nil
}

func matches(n *Node, opts Options) bool {
	is := func(key, want string) bool {
		v, ok := n.Get(key)
		return ok && v.Kind == String && v.Text == want
	}
	rep, _ := n.Get("repetition")
	return is("fixture", opts.Fixture) && is("lane", opts.Lane) && is("stage", opts.Stage) && is("state", "captured") &&
		is("configuration", opts.Configuration) && (opts.LaneVersion == "" || is("laneVersion", opts.LaneVersion)) &&
		rep != nil && rep.Text == "1"
}

// basePasses requires every task of the fixture to pass on the unmutated record.
func basePasses(ctx context.Context, in *instrument.Instrument, env *Env, src *instrument.Source, record *Node) error {
	carrier, _ := record.Get("carrier")
	var failed []string
	for _, t := range env.Tasks {
		v, err := in.EvaluatePair(ctx, t, env.Position(record), env.Fixture, src.Doc, carrier.Tree())
		if err != nil {
			return err
		}
		if !v.Pass() {
			failed = append(failed, t)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("the record of %s on %s %s does not pass %s: a case needs a record the oracle accepts", src.ID, env.Lane, env.Stage, strings.Join(failed, ", "))
	}
	return nil
}

// ValidateRecord validates a case's record exactly as check validates an observation record
// (record schema, catalogue, lane, stage, carrier schema, source hash), against the case's own
// source: the source stands in for the catalogued one of its fixture during the validation.
func ValidateRecord(in *instrument.Instrument, file string, line int, doc any, src *instrument.Source) (*instrument.Record, error) {
	m, _ := doc.(map[string]any)
	fixture, _ := m["fixture"].(string)
	old, had := in.Sources[fixture]
	if had && src != nil && fixture == src.ID {
		in.Sources[fixture] = src
		defer func() { in.Sources[fixture] = old }()
	}
	rec, err := in.ParseRecord(file, line, doc)
	if err != nil {
		return nil, err
	}
	if src != nil && rec.Fixture != src.ID {
		return nil, fmt.Errorf("%s: /fixture: the record observes %s, the case's source is fixture %s", file, rec.Fixture, src.ID)
	}
	if rec.State != "captured" {
		return nil, fmt.Errorf("%s: /state: a case's record must be captured, not %s", file, rec.State)
	}
	return rec, nil
}

// SortCases orders cases by id.
func SortCases(cs []*Case) {
	slices.SortFunc(cs, func(a, b *Case) int { return strings.Compare(a.ID, b.ID) })
}
