package policy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/contractcheck/contractcheck/internal/guard"
)

// TestResult is the outcome of one Rego test rule.
type TestResult struct {
	Package  string `json:"package"`  // e.g. "contractcheck.tasks.t2_test"
	Name     string `json:"name"`     // the test rule name
	Location string `json:"location"` // file:row:col of the rule
	Pass     bool   `json:"pass"`
	// Fail says why the test failed or errored; empty when it passed.
	Fail string `json:"fail,omitempty"`
	// FailedAt is, for a test that failed (was false or undefined), the expression that failed:
	// its file:row, its text, and the value of each variable in it, as `opa test --var-values`
	// shows them.
	FailedAt string `json:"failedAt,omitempty"`
	// Output is what the test printed (print()).
	Output string `json:"output,omitempty"`
	// Limit is, for a test stopped at a limit (the time limit, or the sandbox's limit on a
	// builtin call), the limit, e.g. "the time limit of 5s": the instrument failed, not the test.
	Limit string `json:"limit,omitempty"`
}

// TestOptions selects the tests RunTests runs.
type TestOptions struct {
	// Layers lists the indices of the layers whose test files run; nil runs every layer's.
	Layers []int
	// Run is a regular expression: only the tests whose full name (data.<package>.<rule>)
	// matches it run, as `opa test --run`. Empty runs every test.
	Run string
	// Coverage computes which lines of the selected layers' policies (their _test.rego files
	// left out) the tests evaluated.
	Coverage bool
}

// TestRun is what RunTests found.
type TestRun struct {
	// Results are the tests that ran, sorted by file, row and name.
	Results []TestResult `json:"tests"`
	// Coverage is set when TestOptions.Coverage asked for it.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// Failed is how many tests failed or errored.
func (r *TestRun) Failed() int {
	n := 0
	for _, t := range r.Results {
		if !t.Pass {
			n++
		}
	}
	return n
}

// LimitError is nil when no test was stopped at a limit, else the first one's (in the order of
// Results), as a *guard.LimitError wrapped with how many more were: the instrument failed.
func (r *TestRun) LimitError() error {
	var first *guard.LimitError
	n := 0
	for _, t := range r.Results {
		if t.Limit == "" {
			continue
		}
		if n++; first == nil {
			first = &guard.LimitError{What: testWhat(t.Package, t.Name, t.Location), Limit: t.Limit}
		}
	}
	switch {
	case first == nil:
		return nil
	case n == 1:
		return first
	case n == 2:
		return fmt.Errorf("%w (and 1 more test stopped at a limit)", first)
	}
	return fmt.Errorf("%w (and %d more tests stopped at a limit)", first, n-1)
}

// testWhat names a Rego test in a limit error: "Rego test p_test.test_x (p/p_test.rego:3:1)".
func testWhat(pkg, name, location string) string {
	return fmt.Sprintf("Rego test %s.%s (%s)", pkg, name, location)
}

// Coverage is the share of policy lines the tests evaluated, per file and in total (OPA's
// cover package: a line is covered when an expression or rule head on it was evaluated).
type Coverage struct {
	Files []FileCoverage `json:"files"`
	// CoveredLines and NotCoveredLines add up the files'.
	CoveredLines    int `json:"coveredLines"`
	NotCoveredLines int `json:"notCoveredLines"`
	// Percent is 100·covered/(covered+not covered), rounded to two decimals; 100 with no lines.
	Percent float64 `json:"percent"`
}

// FileCoverage is one policy file's coverage.
type FileCoverage struct {
	File            string  `json:"file"`
	CoveredLines    int     `json:"coveredLines"`
	NotCoveredLines int     `json:"notCoveredLines"`
	Percent         float64 `json:"percent"`
	// NotCovered are the line ranges no test evaluated, in order.
	NotCovered []LineRange `json:"notCovered"`
}

// LineRange is lines Start to End, both included.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// String is "12" or "12-14".
func (r LineRange) String() string {
	if r.Start == r.End {
		return fmt.Sprint(r.Start)
	}
	return fmt.Sprintf("%d-%d", r.Start, r.End)
}

// RunTests runs the test_ rules of the loaded policies with OPA's test runner, in the same
// sandbox and with the custom builtins, and with builtin errors raised; each test has the guard's
// per-evaluation time limit. A test stopped at the time limit or at the sandbox's limit on a
// builtin call (bounds.go) fails with its Limit set (TestRun.LimitError): the instrument failed,
// as for a policy a check evaluates. Every layer's modules are loaded (a user's
// tests may call built-in rules); only the selected layers' tests run, and only those whose name
// matches opts.Run. A test that fails is run once more with tracing, to say which expression
// failed and the values of its variables. Results are sorted by file, row and name.
func (e *Engine) RunTests(ctx context.Context, opts TestOptions) (*TestRun, error) {
	if opts.Run != "" {
		if _, err := regexp.Compile(opts.Run); err != nil {
			return nil, fmt.Errorf("policy: --run %q: not a regular expression: %w", opts.Run, err)
		}
	}
	modules, err := e.parse()
	if err != nil {
		return nil, err
	}
	runner := e.testRunner(ctx, e.newCompiler(), opts.Run)
	var cov *cover.Cover
	if opts.Coverage {
		cov = cover.New()
		runner.SetCoverageQueryTracer(cov).SetCoverageRuns([]cover.Kind{})
	}
	results, err := e.collectTests(ctx, runner, modules, opts.Layers)
	if err != nil {
		return nil, err
	}
	if err := e.explainFailures(ctx, results); err != nil {
		return nil, err
	}
	run := &TestRun{Results: results}
	if opts.Coverage {
		if run.Coverage, err = e.coverage(cov, opts.Layers); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// testRunner is OPA's test runner on compiler, with the sandbox's custom builtins, builtin errors
// raised, print output captured, and the time limit ctx carries per test (guard.LimitsOf).
func (e *Engine) testRunner(ctx context.Context, compiler *ast.Compiler, filter string) *tester.Runner {
	return tester.NewRunner().
		SetCompiler(compiler).
		SetDefaultRegoVersion(ast.RegoV1).
		RaiseBuiltinErrors(true).
		CapturePrintOutput(true).
		SetTimeout(guard.LimitsOf(ctx).Eval).
		Filter(filter).
		AddCustomBuiltins([]*tester.Builtin{{
			Decl: &ast.Builtin{Name: jsonTextFunc.Name, Decl: jsonTextFunc.Decl},
			Func: rego.Function1(jsonTextFunc, jsonTextImpl),
		}, {
			Decl: &ast.Builtin{Name: diffFunc.Name, Decl: diffFunc.Decl},
			Func: rego.Function3(diffFunc, diffImpl),
		}})
}

// collectTests runs the tests and returns the results of the selected layers' tests, sorted.
func (e *Engine) collectTests(ctx context.Context, runner *tester.Runner, modules map[string]*ast.Module, layers []int) ([]TestResult, error) {
	timeLimit := guard.LimitsOf(ctx).Eval
	ch, err := runner.SetModules(modules).RunTests(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("policy: running Rego tests: %w", err)
	}
	type keyed struct {
		file     string
		row, col int
		r        TestResult
	}
	var out []keyed
	for r := range ch {
		if r.Skip {
			continue
		}
		if layers != nil && r.Location != nil && !slices.Contains(layers, e.layer[r.Location.File]) {
			continue
		}
		k := keyed{r: TestResult{Package: strings.TrimPrefix(r.Package, "data."), Name: r.Name, Pass: r.Pass(), Output: string(r.Output)}}
		if r.Location != nil {
			k.file, k.row, k.col = r.Location.File, r.Location.Row, r.Location.Col
			k.r.Location = fmt.Sprintf("%s:%d:%d", k.file, k.row, k.col)
		}
		switch {
		case r.Error != nil:
			k.r.Fail = r.Error.Error()
			if le := testLimit(testWhat(k.r.Package, k.r.Name, k.r.Location), r.Error, timeLimit); le != nil {
				k.r.Fail, k.r.Limit = "stopped at "+le.Limit, le.Limit
			}
		case r.Fail:
			k.r.Fail = "test failed: false or undefined"
		}
		out = append(out, k)
	}
	sortKeyed := func() {
		sort.SliceStable(out, func(a, b int) bool {
			ka, kb := out[a], out[b]
			if ka.file != kb.file {
				return ka.file < kb.file
			}
			if ka.row != kb.row {
				return ka.row < kb.row
			}
			return ka.r.Name < kb.r.Name
		})
	}
	if le := guard.Stopped(ctx); le != nil {
		// The memory budget stopped the run: the results are not the tests'. The watchdog
		// cancelled every test running; name the first of them.
		sortKeyed()
		for _, k := range out {
			if k.r.Limit != "" {
				return nil, &guard.LimitError{What: testWhat(k.r.Package, k.r.Name, k.r.Location), Limit: le.Limit}
			}
		}
		return nil, le
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("policy: running Rego tests: %w", context.Cause(ctx)) // cancelled: the results are not the tests'
	}
	sortKeyed()
	results := make([]TestResult, len(out))
	for i, k := range out {
		results[i] = k.r
	}
	return results, nil
}

// testLimit returns the limit a test's error reached, as a *guard.LimitError for what (the
// test), or nil: the sandbox's limit on a builtin call, or the runner's time limit d (OPA's
// cancellation error; the run's own context is still live, or collectTests says why it is not).
func testLimit(what string, err error, d time.Duration) *guard.LimitError {
	if le := limitOf(what, err); le != nil {
		return le
	}
	var te *topdown.Error
	if errors.As(err, &te) && te.Code == topdown.CancelErr {
		return &guard.LimitError{What: what, Limit: fmt.Sprintf("the time limit of %s", d)}
	}
	return nil
}

// explainFailures runs the tests that failed (not those that errored: their error says why) once
// more, traced, on a compiler that rewrites test rules to keep the values their expressions
// compare, and sets each one's FailedAt to the expression that failed and its variables' values.
// The policies are pure functions of their input, so the second run fails where the first did.
func (e *Engine) explainFailures(ctx context.Context, results []TestResult) error {
	var names []string
	for _, r := range results {
		if !r.Pass && r.Fail != "" && strings.HasPrefix(r.Fail, "test failed") {
			names = append(names, regexp.QuoteMeta("data."+r.Package+"."+r.Name))
		}
	}
	if len(names) == 0 {
		return nil
	}
	modules, err := e.parse()
	if err != nil {
		return err
	}
	runner := e.testRunner(ctx, e.newCompiler().WithRewriteTestRules(true), "^("+strings.Join(names, "|")+")$").
		EnableTracing(true)
	ch, err := runner.SetModules(modules).RunTests(ctx, nil)
	if err != nil {
		return fmt.Errorf("policy: tracing the failed Rego tests: %w", err)
	}
	at := map[string]string{}
	for r := range ch {
		if r.Fail {
			at[strings.TrimPrefix(r.Package, "data.")+"."+r.Name] = failureLine(r.Trace)
		}
	}
	for i, r := range results {
		if s, ok := at[r.Package+"."+r.Name]; ok {
			results[i].FailedAt = s
		}
	}
	return nil
}

// failureLine is the last expression of a test's own query that failed, with the values of its
// variables: what `opa test --var-values` prints under a failure.
func failureLine(trace []*topdown.Event) string {
	for _, e := range slices.Backward(trace) {
		if e.Op != topdown.FailOp || e.Location == nil || e.QueryID == 0 {
			continue
		}
		if expr, ok := e.Node.(*ast.Expr); ok {
			if _, every := expr.Terms.(*ast.Every); every {
				continue // the failing expression inside the every body is the one to show
			}
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "%s:%d:\n", e.Location.File, e.Location.Row)
		if err := topdown.PrettyEvent(&b, e, topdown.PrettyEventOpts{PrettyVars: true}); err != nil {
			return fmt.Sprintf("%s:%d: %s", e.Location.File, e.Location.Row, e.Location.Text)
		}
		return strings.TrimRight(b.String(), "\n")
	}
	return ""
}

// coverage reports the lines the tests evaluated in the policy files (not the _test.rego files)
// of the selected layers.
func (e *Engine) coverage(cov *cover.Cover, layers []int) (*Coverage, error) {
	modules, err := e.parse()
	if err != nil {
		return nil, err
	}
	for name := range modules {
		if strings.HasSuffix(name, "_test.rego") || (layers != nil && !slices.Contains(layers, e.layer[name])) {
			delete(modules, name)
		}
	}
	rep := cov.Report(modules)
	out := &Coverage{Files: []FileCoverage{}}
	for _, name := range sortedNames(modules) {
		fr := rep.Files[name]
		fc := FileCoverage{File: name, NotCovered: []LineRange{}}
		if fr != nil {
			fc.CoveredLines, fc.NotCoveredLines = fr.CoveredLines, fr.NotCoveredLines
			fc.NotCovered = lineRanges(fr.NotCovered)
		}
		fc.Percent = percent(fc.CoveredLines, fc.NotCoveredLines)
		out.CoveredLines += fc.CoveredLines
		out.NotCoveredLines += fc.NotCoveredLines
		out.Files = append(out.Files, fc)
	}
	out.Percent = percent(out.CoveredLines, out.NotCoveredLines)
	return out, nil
}

// lineRanges are the rows of OPA's ranges (which may share a row), merged where they meet.
func lineRanges(rs []cover.Range) []LineRange {
	out := []LineRange{}
	for _, r := range rs {
		out = append(out, LineRange{Start: r.Start.Row, End: r.End.Row})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r.Start <= merged[n-1].End+1 {
			merged[n-1].End = max(merged[n-1].End, r.End)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// percent is 100·covered/(covered+not), to two decimals; 100 when there are no lines.
func percent(covered, not int) float64 {
	if covered+not == 0 {
		return 100
	}
	return float64(covered*10000/(covered+not)) / 100
}
