// Package policy is the policy step of the contractcheck pipeline
// (strictjson → schema → contract → project → policy → census → report).
//
// It compiles the Rego policies once (Load), prepares one query per task
// package once (Engine.Prepare), and evaluates a prepared query many times,
// concurrently, on (source view, observed view, contract) inputs
// (Query.Eval). Each task package defines a set "diagnostics" (empty when the
// binding passes) and an object "readout"; see docs/design.md.
//
// Policies run in a sandbox: they are compiled with capabilities that leave
// out every builtin that reads the network, the clock, randomness or the
// runtime environment, so a policy calling http.send or time.now_ns fails to
// load with a file:row:col error, and evaluation is deterministic. A builtin
// call that would make a number, a string or an array past the sandbox's
// limits (bits.lsh(1, 1e12), sprintf("%1000000000d", [1]), …) is refused
// before it allocates (bounds.go), and an evaluation stops at the guard's time
// limit and memory budget (limits.go). What a policy prints reaches the user
// (print.go).
//
// The custom builtins contractcheck.json_text(s) and
// contractcheck.diff(expected, observed, base) (diff.go) are declared in
// those capabilities and implemented per query (rego.Function1,
// rego.Function3) and per test run (tester custom builtins), rather than registered globally with
// ast.RegisterBuiltin: a global registration would leak into every other Rego
// compiler in the process and could not be kept out of OPA's default
// capabilities, while the per-query form works the same for prepared queries
// and for the Rego test runner.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package policy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// JSONTextBuiltin is the name of the custom builtin: contractcheck.json_text(s)
// is the JSON value when the whole string s (surrounding whitespace allowed)
// is strict JSON — exact numbers, no duplicate keys, valid UTF-8 — and is
// undefined otherwise (also when s is not a string).
const JSONTextBuiltin = "contractcheck.json_text"

var jsonTextFunc = &rego.Function{
	Name: JSONTextBuiltin,
	Decl: types.NewFunction(types.Args(types.Named("s", types.S).Description("the text")),
		types.Named("value", types.A).Description("the JSON value")),
	Memoize: true,
}

func jsonTextImpl(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
	s, ok := a.Value.(ast.String)
	if !ok {
		return nil, nil
	}
	v, err := strictjson.Decode("", []byte(s), strictjson.DefaultLimits)
	if err != nil {
		return nil, nil // not strict JSON: undefined
	}
	val, err := ast.InterfaceToValue(v)
	if err != nil {
		return nil, nil
	}
	return ast.NewTerm(respellValue(val)), nil
}

// denied tells whether a builtin is left out of the sandbox: everything OPA
// marks nondeterministic (http.send, net.lookup_ip_addr, time.now_ns,
// rand.intn, uuid.rfc4122, opa.runtime, io.jwt.decode_verify and
// encode_sign*, json.match_schema/verify_schema, which may fetch remote
// references), whole families that touch the network, randomness or the
// environment, certificate verification, which reads the clock, and strings.render_template,
// whose Go template can loop inside the call ({{range 1000000000000}}) where neither the time
// limit nor a size check reaches (see bounds.go).
func denied(b *ast.Builtin) bool {
	if b.Nondeterministic {
		return true
	}
	for _, p := range []string{"http.", "net.", "rand.", "uuid.", "opa.", "time.now"} {
		if strings.HasPrefix(b.Name, p) {
			return true
		}
	}
	switch b.Name {
	case "crypto.x509.parse_and_verify_certificates",
		"crypto.x509.parse_and_verify_certificates_with_options",
		"strings.render_template",
		"trace":
		return true
	}
	return false
}

// Capabilities returns the sandbox capabilities the policies are compiled
// with: OPA's builtins minus the denied ones, plus contractcheck.json_text
// and contractcheck.diff, and no network hosts.
func Capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	caps.Builtins = slices.DeleteFunc(caps.Builtins, denied)
	caps.Builtins = append(caps.Builtins,
		&ast.Builtin{Name: jsonTextFunc.Name, Decl: jsonTextFunc.Decl},
		&ast.Builtin{Name: diffFunc.Name, Decl: diffFunc.Decl})
	caps.AllowNet = []string{}
	return caps
}

// Engine holds the compiled policies. It is immutable after Load (but for the queries it keeps
// prepared, under a lock) and safe for concurrent use; Load hands out the same Engine again for
// the same files (cache.go).
type Engine struct {
	caps     *ast.Capabilities
	sources  map[string][]byte // display file name → source, for RunTests
	layer    map[string]int    // display file name → index of its layer
	compiler *ast.Compiler
	// prep guards prepared and every preparation of a query on compiler (Prepare, PrepareRule).
	prep     sync.Mutex
	prepared map[string]*Query // by package: what Prepare prepared
}

// LoadOptions says which files of the layers Load compiles.
type LoadOptions struct {
	// Tests compiles the _test.rego files too (the test verb); check leaves them out.
	Tests bool
}

// Load compiles every .rego file below each layer's directory as one set of modules. A file is
// named in errors under its layer's display name, e.g.
// "builtin:policies/tasks/t2.rego:12:3: rego_parse_error: ...". A package declared in two layers
// is an error naming both files: a user's package never silently shadows or extends a built-in
// one. Parse and compile errors are ast.Errors (each with file, row and column) wrapped in a
// LoadError; use errors.As to reach them. An Engine compiled before in the process from the same
// built-in layers' files (same layers, names and bytes) and options is returned again (cache.go).
func Load(layers []layer.Dir, opts LoadOptions) (*Engine, error) {
	if len(layers) == 0 {
		return nil, fmt.Errorf("policy: no policy layers (--no-builtin needs at least one --policies directory)")
	}
	e := &Engine{caps: Capabilities(), sources: map[string][]byte{}, layer: map[string]int{}}
	for i, d := range layers {
		if err := d.Check("--policies"); err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		n := 0
		err := fs.WalkDir(d.FS, d.Root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() || !strings.HasSuffix(p, ".rego") {
				return nil
			}
			n++
			if !opts.Tests && strings.HasSuffix(p, "_test.rego") {
				return nil
			}
			_, name := d.Path(d.Rel(p))
			src, err := safeio.ReadFile(d.FS, p, safeio.MaxFileBytes)
			if err != nil {
				return fmt.Errorf("%s: %w", name, safeio.PathCause(err))
			}
			e.sources[name] = src
			e.layer[name] = i
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("policy: reading policies under %s: %w", d.Display, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("policy: no .rego files under %s", d.Display)
		}
	}
	key, keep := engineKey(e.sources, e.layer, opts), builtinOnly(layers)
	if cached, ok := engines.Get(key); ok && keep {
		return cached, nil // the same files compiled before (cache.go)
	}
	modules, err := e.parse()
	if err != nil {
		return nil, err
	}
	if err := e.checkShadowing(modules); err != nil {
		return nil, err
	}
	c := e.newCompiler()
	c.Compile(modules)
	if c.Failed() {
		return nil, &LoadError{Op: "compiling", Errors: sortErrors(c.Errors)}
	}
	e.compiler = c
	if keep {
		engines.Add(key, e)
	}
	return e, nil
}

// checkShadowing rejects a package declared by files of two layers, naming one file of each.
func (e *Engine) checkShadowing(modules map[string]*ast.Module) error {
	first := map[string]string{} // package → first file declaring it, in name order
	var errs ast.Errors
	for _, name := range sortedNames(modules) {
		pkg := strings.TrimPrefix(modules[name].Package.Path.String(), "data.")
		other, seen := first[pkg]
		if !seen {
			first[pkg] = name
			continue
		}
		if e.layer[other] == e.layer[name] {
			continue
		}
		a, b := other, name
		if e.layer[a] > e.layer[b] {
			a, b = b, a
		}
		errs = append(errs, &ast.Error{Code: "rego_package_shadowed", Location: modules[b].Package.Location,
			Message: fmt.Sprintf("package %s is already declared by %s (another layer): a layer adds packages, it cannot extend or replace another layer's; name yours differently", pkg, a)})
	}
	if len(errs) > 0 {
		return &LoadError{Op: "loading", Errors: sortErrors(errs)}
	}
	return nil
}

// sortedNames lists the modules' file names, sorted.
func sortedNames(modules map[string]*ast.Module) []string { return slices.Sorted(maps.Keys(modules)) }

// Files lists the files that declare a package, sorted: how a message names a policy.
func (e *Engine) Files(pkg string) []string {
	var out []string
	for name, m := range e.compiler.Modules {
		if strings.TrimPrefix(m.Package.Path.String(), "data.") == pkg {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// newCompiler is a compiler of the sandbox: its capabilities, Rego v1, strict, and print
// statements kept (print.go).
func (e *Engine) newCompiler() *ast.Compiler {
	return ast.NewCompiler().
		WithCapabilities(e.caps).
		WithDefaultRegoVersion(ast.RegoV1).
		WithStrict(true).
		WithUseTypeCheckAnnotations(true).
		WithEnablePrintStatements(true)
}

// parse parses every source afresh (the compiler takes ownership of modules).
func (e *Engine) parse() (map[string]*ast.Module, error) {
	names := make([]string, 0, len(e.sources))
	for name := range e.sources {
		names = append(names, name)
	}
	sort.Strings(names)
	modules := make(map[string]*ast.Module, len(names))
	var errs ast.Errors
	for _, name := range names {
		m, err := ast.ParseModuleWithOpts(name, string(e.sources[name]), ast.ParserOptions{
			RegoVersion:       ast.RegoV1,
			ProcessAnnotation: true,
			Capabilities:      e.caps,
		})
		if err != nil {
			var aerrs ast.Errors
			if errors.As(err, &aerrs) {
				errs = append(errs, aerrs...)
				continue
			}
			return nil, fmt.Errorf("policy: parsing %s: %w", name, err)
		}
		modules[name] = m
	}
	if len(errs) > 0 {
		return nil, &LoadError{Op: "parsing", Errors: sortErrors(errs)}
	}
	return modules, nil
}

// LoadError is a Rego parse or compile error. Its text has one line per
// error, each "file:row:col: code: message" (OPA's own ast.Error text leaves
// out the column), so editors and CI annotators can jump to it. A parse error
// shows the offending token, never the line it is on: a file that is not Rego
// at all (a secret, say) is not echoed. Unwrap gives the ast.Errors.
type LoadError struct {
	Op     string // "parsing" or "compiling"
	Errors ast.Errors
}

// Error returns the message.
func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString("policy: ")
	b.WriteString(e.Op)
	b.WriteString(" Rego policies:")
	for _, x := range e.Errors {
		b.WriteString("\n")
		b.WriteString(locationPrefix(x.Location))
		b.WriteString(x.Code)
		b.WriteString(": ")
		b.WriteString(x.Message)
		for _, line := range detailLines(x.Details) {
			b.WriteString("\n\t")
			b.WriteString(line)
		}
	}
	return b.String()
}

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *LoadError) Unwrap() error { return e.Errors }

func sortErrors(errs ast.Errors) ast.Errors {
	errs = slices.Clone(errs)
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].Location, errs[j].Location
		if a == nil || b == nil {
			return a != nil && b == nil
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Row != b.Row {
			return a.Row < b.Row
		}
		return a.Col < b.Col
	})
	return errs
}

// Packages lists the packages of the compiled policies, sorted, without the
// "data." prefix.
func (e *Engine) Packages() []string {
	seen := map[string]bool{}
	for _, m := range e.compiler.Modules {
		seen[strings.TrimPrefix(m.Package.Path.String(), "data.")] = true
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

var pkgName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// Query is a task package's prepared query. It is safe for concurrent use.
type Query struct {
	pkg   string
	files []string
	what  string // the package and its files, for limit errors
	pq    rego.PreparedEvalQuery
	reads inputReads // what of the input its rules may read
	views []string   // the view members it declares it reads; nil: the whole views
}

// Package is the Rego package the query evaluates.
func (q *Query) Package() string { return q.pkg }

// Files lists the files that declare the query's package.
func (q *Query) Files() []string { return q.files }

// prepare prepares one query for data.<pkg>.diagnostics and data.<pkg>.readout
// (an empty readout when the package defines none). It fails when the package
// does not exist or defines no diagnostics rule. Prepare keeps what it prepares.
func (e *Engine) prepare(ctx context.Context, pkg string) (*Query, error) {
	if !pkgName.MatchString(pkg) {
		return nil, fmt.Errorf("policy: %q is not a Rego package name", pkg)
	}
	ref := ast.MustParseRef("data." + pkg)
	found := false
	for _, m := range e.compiler.Modules {
		if m.Package.Path.Equal(ref) {
			found = true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("policy: no Rego package %s in the policy layers%s: give the directory that holds it with --policies, or correct the task's policy name", pkg, e.packagesNear(pkg))
	}
	has := func(rule string) bool {
		return len(e.compiler.GetRulesExact(ref.Append(ast.StringTerm(rule)))) > 0
	}
	if !has("diagnostics") {
		return nil, fmt.Errorf("policy: package %s defines no diagnostics rule", pkg)
	}
	query := "d := data." + pkg + ".diagnostics; r := {}"
	if has("readout") {
		query = "d := data." + pkg + ".diagnostics; r := data." + pkg + ".readout"
	}
	pq, err := e.prepareQuery(ctx, pkg, query)
	if err != nil {
		return nil, err
	}
	files := e.Files(pkg)
	reads := readsOf(e.compiler, ref.Append(ast.StringTerm("diagnostics")), ref.Append(ast.StringTerm("readout")))
	views, err := e.packageViewReads(pkg, reads)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return &Query{pkg: pkg, files: files, what: describeFiles(pkg, files), pq: pq, reads: reads, views: views}, nil
}

// Verdict is what a task policy says about one input.
type Verdict struct {
	// Diagnostics is the diagnostics set, in Rego's set order (sorted);
	// empty when the binding passes. Numbers are json.Number.
	Diagnostics []map[string]any
	// Readout is the task's readout object (numbers as json.Number).
	Readout map[string]any
}

// Pass reports whether the binding passes (no diagnostics).
func (v Verdict) Pass() bool { return len(v.Diagnostics) == 0 }

// Eval evaluates the prepared query on input (the policy input object of
// docs/design.md). It is safe for concurrent use. The input's numbers must
// be spelled as Input spells them (see numbers.go), so that comparisons are
// exact decimals: build it with Input, or compose it of values Input built
// and strings, as check does to share an input's constant part between
// evaluations. Eval does not walk the input again: respelling a whole input
// on every evaluation was a third of an evaluation's time. The evaluation runs under the guard's time limit and memory budget
// (internal/guard): a limit reached is a *guard.LimitError naming the package
// and its files. A panic inside OPA (it panics, for instance, comparing
// numbers whose exponent is beyond big.Rat, like 1e9999999 with 2; strictjson's
// limits keep such numbers out) is returned as an error.
func (q *Query) Eval(ctx context.Context, input ast.Value) (v Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = Verdict{}, fmt.Errorf("policy: evaluating %s: OPA panicked: %v", q.pkg, r)
		}
	}()
	rs, err := evalLimited(ctx, q.what, q.pkg, q.pq, input, printEvalOptions(ctx)...)
	if err != nil {
		return Verdict{}, err
	}
	if len(rs) != 1 {
		return Verdict{}, fmt.Errorf("policy: evaluating %s: diagnostics or readout is undefined (%d results)", q.pkg, len(rs))
	}
	ds, ok := rs[0].Bindings["d"].([]any)
	if !ok {
		return Verdict{}, fmt.Errorf("policy: %s.diagnostics is %T, want a set", q.pkg, rs[0].Bindings["d"])
	}
	v.Diagnostics = make([]map[string]any, 0, len(ds))
	for i, d := range ds {
		m, ok := d.(map[string]any)
		if !ok {
			return Verdict{}, fmt.Errorf("policy: %s.diagnostics element %d is %T, want an object", q.pkg, i, d)
		}
		v.Diagnostics = append(v.Diagnostics, m)
	}
	if v.Readout, ok = rs[0].Bindings["r"].(map[string]any); !ok {
		return Verdict{}, fmt.Errorf("policy: %s.readout is %T, want an object", q.pkg, rs[0].Bindings["r"])
	}
	return v, nil
}

// Input builds the policy input value from a JSON-shaped Go tree (as
// strictjson.Decode produces: numbers as json.Number keep their digits),
// with the numbers OPA would compare through float64 respelled (see
// numbers.go), as Eval requires.
func Input(tree any) (ast.Value, error) {
	v, err := ast.InterfaceToValue(tree)
	if err != nil {
		return nil, fmt.Errorf("policy: input: %w", err)
	}
	return respellValue(v), nil
}

// detailLines is what an error shows below its message: for a parse error only the token at
// the error (a word, or one character; at most 32 characters), for the type checker's errors their own lines (types and
// rule names, not file text).
func detailLines(d ast.ErrorDetails) []string {
	var pd ast.ParserErrorDetail
	switch x := d.(type) {
	case nil:
		return nil
	case *ast.ParserErrorDetail:
		pd = *x
	case ast.ParserErrorDetail:
		pd = x
	default:
		return d.Lines()
	}
	if pd.Idx < 0 || pd.Idx >= len(pd.Line) {
		return nil
	}
	// The token: a run of letters, digits and underscores, else the one character there.
	tok := pd.Line[pd.Idx:]
	word := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	if i := strings.IndexFunc(tok, func(r rune) bool { return !word(r) }); i > 0 {
		tok = tok[:i]
	} else if i == 0 {
		_, size := utf8.DecodeRuneInString(tok)
		tok = tok[:size]
	}
	if r := []rune(tok); len(r) > 32 {
		tok = string(r[:32]) + "…"
	}
	if strings.TrimSpace(tok) == "" {
		return nil
	}
	return []string{"at " + strconv.Quote(tok)}
}

// packagesNear lists, for a message about package pkg that no layer declares, the packages the
// layers do declare under pkg's first name (acme.tasks.audit for acme.tasks.audience), at most
// ten, as " (the layers hold: …)", or says there is none.
func (e *Engine) packagesNear(pkg string) string {
	first, _, _ := strings.Cut(pkg, ".")
	seen := map[string]bool{}
	var near []string
	for _, m := range e.compiler.Modules {
		p := strings.TrimPrefix(m.Package.Path.String(), "data.")
		if f, _, _ := strings.Cut(p, "."); f == first && !seen[p] {
			seen[p] = true
			near = append(near, p)
		}
	}
	if len(near) == 0 {
		return fmt.Sprintf(" (they hold no package under %s)", first)
	}
	slices.Sort(near)
	more := ""
	if len(near) > 10 {
		more = fmt.Sprintf(", and %d more", len(near)-10)
		near = near[:10]
	}
	return fmt.Sprintf(" (under %s they hold %s%s)", first, strings.Join(near, ", "), more)
}
