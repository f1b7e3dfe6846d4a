package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// evalBody evaluates, as a task policy, Rego lines that set v: the verdict's one diagnostic
// holds v.
func evalBody(t *testing.T, body string) (Verdict, error) {
	t.Helper()
	src := "package b\n\ndiagnostics contains {\"atom\": \"v\", \"v\": v} if {\n" + body + "\n}\n"
	return prepare(t, map[string]string{"b.rego": src}, "b").Eval(context.Background(), ast.NewObject())
}

// summary is v's JSON text, or its length when it is long.
func summary(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	if len(b) > 200 {
		return fmt.Sprintf("%d bytes", len(b))
	}
	return string(b)
}

// Rego lines that set values the cases share.
const (
	mb    = "\tmb := sprintf(\"%01000000d\", [1])\n"                            // a string of 1 MB
	a20   = "\ta20 := concat(\"\", [\"a\" | some _ in numbers.range(1, 20)])\n" // twenty "a"
	fiveM = "\tfive := sprintf(\"%05000000d\", [1])\n"                          // a string of 5 MB
	refs  = mb + "\trefs := [mb | some _ in numbers.range(1, 300)]\n"           // an array hashing 300 MB
	big   = "\tbig := bits.lsh(1, 99999)\n\tbigs := [big | some _ in numbers.range(1, 200)]\n"
)

// dag sets d to an array of 2^24 leaves in 25 arrays (object.get hides it from the type checker).
var dag = func() string {
	var b strings.Builder
	b.WriteString("\td0 := [1]\n")
	for i := 1; i <= 24; i++ {
		fmt.Fprintf(&b, "\td%d := object.get({}, \"\", [d%d, d%d])\n", i, i-1, i-1)
	}
	b.WriteString("\td := d24\n")
	return b.String()
}()

// TestBoundedBuiltins: a builtin call that would make a number, a string or an array past one
// of the sandbox's limits is refused before it makes any of it, with a *guard.LimitError naming
// the policy, the limit, the builtin and the call's position; a call within the limits returns
// what OPA's builtin returns.
func TestBoundedBuiltins(t *testing.T) {
	tests := []struct {
		name    string
		body    string // Rego lines that set v
		refused string // the builtin refused, or "" when the call is within the limits
		want    string // the value (summary), when it is
	}{
		// Numbers.
		{name: "bits.lsh(1, 1e12)", body: "\tv := bits.lsh(1, 1000000000000)", refused: "bits.lsh"},
		{name: "bits.lsh(1, 1e8)", body: "\tv := bits.lsh(1, 1e8)", refused: "bits.lsh"},
		{name: "bits.lsh(1, 4e10)", body: "\tv := bits.lsh(1, 4e10)", refused: "bits.lsh"},
		{name: "bits.lsh one bit past the limit", body: "\tv := bits.lsh(1, 100000)", refused: "bits.lsh"},
		{name: "bits.lsh of a negative number", body: "\tv := bits.lsh(-3, 1e8)", refused: "bits.lsh"},
		{name: "bits.lsh at the limit", body: "\tv := bits.lsh(1, 99999)", want: "30103 bytes"},
		{name: "bits.lsh of zero", body: "\tv := bits.lsh(0, 1000000000000)", want: "0"},
		{name: "bits.lsh small", body: "\tv := bits.lsh(3, 4)", want: "48"},
		{name: "mul past the limit", body: "\tv := 1e30000 * 1e30000", refused: "mul"},
		{name: "mul of tiny numbers", body: "\tv := 1e-30000 * 1e-30000", refused: "mul"},
		{name: "mul within the limit", body: "\tv := 1e30000 * 2", want: "30001 bytes"},
		{name: "div past the limit", body: "\tv := 1e30000 / 1e-30000", refused: "div"},
		{name: "div", body: "\tv := 7 / 2", want: "3.5"},
		{name: "product of large numbers", body: "\tv := product([1e20000, 1e20000])", refused: "product"},
		{name: "product of many small numbers", body: "\tv := product([2 | some _ in numbers.range(1, 200000)])", refused: "product"},
		{name: "product", body: "\tv := product([2, 3, 4])", want: "24"},
		{name: "sum of one long number shared", body: big + "\tv := sum(bigs)", refused: "sum"},
		{name: "max of one long number shared", body: big + "\tv := max(bigs)", refused: "max"},
		{name: "sort of one long number shared", body: big + "\tv := sort(bigs)", refused: "sort"},
		{name: "sum", body: "\tv := sum([1.5, 2])", want: "3.5"},
		{name: "sort", body: "\tv := sort([3, 1, 2])", want: "[1,2,3]"},
		{name: "to_number of 40000 digits", body: "\tv := to_number(sprintf(\"%040000d\", [1]))", refused: "to_number"},
		{name: "to_number", body: "\tv := to_number(\"12.5\")", want: "12.5"},
		{name: "units.parse of a million digits", body: "\tv := units.parse(\"1e999999\")", refused: "units.parse"},
		{name: "units.parse_bytes of a million digits", body: "\tv := units.parse_bytes(\"1e999999\")", refused: "units.parse_bytes"},
		{name: "units.parse", body: "\tv := units.parse(\"10K\")", want: "10000"},
		{name: "units.parse_bytes", body: "\tv := units.parse_bytes(\"1KiB\")", want: "1024"},
		// Strings.
		{name: "sprintf width of 10^9", body: "\tv := sprintf(\"%1000000000d\", [1])", refused: "sprintf"},
		{name: "sprintf two widths of 10^7", body: "\tv := sprintf(\"%9999999d%9999999d\", [1, 1])", refused: "sprintf"},
		{name: "sprintf two precisions of 10^7", body: "\tv := sprintf(\"%.9999999f%.9999999f\", [1.5, 1.5])", refused: "sprintf"},
		{name: "sprintf widths from arguments", body: "\tv := sprintf(\"" + strings.Repeat("%*d", 17) + "\", [" + strings.Repeat("1000000, 1, ", 16) + "1000000, 1])", refused: "sprintf"},
		{name: "sprintf one argument seventeen times", body: mb + "\tv := sprintf(\"" + strings.Repeat("%[1]s", 17) + "\", [mb])", refused: "sprintf"},
		{name: "sprintf of a string in hex", body: "\tten := sprintf(\"%010000000d\", [1])\n\tv := sprintf(\"%x\", [ten])", refused: "sprintf"},
		{name: "sprintf the memory trap's width", body: "\tv := sprintf(\"%0999999d\", [1])", want: "1000001 bytes"},
		{name: "sprintf of a 10 MB string", body: "\tten := sprintf(\"%010000000d\", [1])\n\tv := sprintf(\"[%s]\", [ten])", want: "10000004 bytes"},
		{name: "sprintf", body: "\tv := sprintf(\"/%d/%s\", [1, \"x\"])", want: `"/1/x"`},
		{name: "concat", body: mb + "\tv := concat(mb, [\"a\" | some _ in numbers.range(1, 20)])", refused: "concat"},
		{name: "concat within the limit", body: "\tv := concat(\"/\", [\"a\", \"b\"])", want: `"a/b"`},
		{name: "replace", body: mb + a20 + "\tv := replace(a20, \"a\", mb)", refused: "replace"},
		{name: "replace that does not grow", body: "\tten := sprintf(\"%010000000d\", [1])\n\tv := replace(ten, \"0\", \"1\")", want: "10000002 bytes"},
		{name: "replace within the limit", body: "\tv := replace(\"aXa\", \"X\", \"YY\")", want: `"aYYa"`},
		{name: "strings.replace_n", body: mb + a20 + "\tv := strings.replace_n({\"a\": mb}, a20)", refused: "strings.replace_n"},
		{name: "strings.replace_n within the limit", body: "\tv := strings.replace_n({\"a\": \"bb\", \"c\": \"\"}, \"aac\")", want: `"bbbb"`},
		{name: "regex.replace", body: mb + a20 + "\tv := regex.replace(a20, \"a\", mb)", refused: "regex.replace"},
		{name: "regex.replace of references", body: mb + "\tv := regex.replace(mb, \".+\", \"" + strings.Repeat("$0", 17) + "\")", refused: "regex.replace"},
		{name: "regex.replace within the limit", body: "\tv := regex.replace(\"abc\", \"b\", \"$0$0\")", want: `"abbc"`},
		{name: "json.marshal of a shared array", body: dag + "\tv := json.marshal(d)", refused: "json.marshal"},
		{name: "json.marshal_with_options indented", body: mb + "\tv := json.marshal_with_options(" + strings.Repeat("[", 20) + "1" + strings.Repeat("]", 20) + ", {\"indent\": mb})", refused: "json.marshal_with_options"},
		{name: "yaml.marshal of a shared array", body: dag + "\tv := yaml.marshal(d)", refused: "yaml.marshal"},
		{name: "json.marshal", body: "\tv := json.marshal([1, {\"a\": \"x\"}])", want: `"[1,{\"a\":\"x\"}]"`},
		{name: "json.marshal_with_options", body: "\tv := json.marshal_with_options({\"a\": [1]}, {\"indent\": \"  \", \"prefix\": \"> \"})", want: `"\u003e {\n\u003e   \"a\": [\n\u003e     1\n\u003e   ]\n\u003e }"`},
		{name: "yaml.marshal", body: "\tv := yaml.marshal({\"a\": 1})", want: `"a: 1\n"`},
		// Arrays.
		{name: "array.concat", body: refs + "\tv := array.concat(refs, refs)", refused: "array.concat"},
		{name: "array.flatten", body: refs + "\tv := array.flatten([refs])", refused: "array.flatten"},
		{name: "array.reverse", body: refs + "\tv := array.reverse(refs)", refused: "array.reverse"},
		{name: "array.concat of many elements", body: "\tthree := split(sprintf(\"%03000000d\", [1]), \"\")\n\tv := array.concat(three, three)", refused: "array.concat"},
		{name: "array.concat within the limit", body: "\tv := array.concat([1], [2])", want: "[1,2]"},
		{name: "array.flatten within the limit", body: "\tv := array.flatten([[1], 2])", want: "[1,2]"},
		{name: "split into characters", body: fiveM + "\tv := split(five, \"\")", refused: "split"},
		{name: "strings.split_n into characters", body: fiveM + "\tv := strings.split_n(five, \"\", -1)", refused: "strings.split_n"},
		{name: "indexof_n", body: fiveM + "\tv := indexof_n(five, \"0\")", refused: "indexof_n"},
		{name: "split", body: "\tv := split(\"a,b\", \",\")", want: `["a","b"]`},
		{name: "indexof_n within the limit", body: "\tv := indexof_n(\"aaa\", \"a\")", want: "[0,1,2]"},
		{name: "graph.reachable_paths of a ladder", body: "\tg := {format_int(i, 10): [format_int(i + 1, 10), format_int(i + 2, 10)] | some i in numbers.range(0, 60)}\n\tv := graph.reachable_paths(g, {\"0\"})", refused: "graph.reachable_paths"},
		{name: "graph.reachable_paths", body: "\tv := graph.reachable_paths({\"a\": [\"b\"], \"b\": [\"c\"], \"c\": []}, {\"a\"})", want: `[["a","b","c"]]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := evalBody(t, tc.body)
			if tc.refused == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(v.Diagnostics) != 1 {
					t.Fatalf("diagnostics %v", v.Diagnostics)
				}
				if got := summary(v.Diagnostics[0]["v"]); got != tc.want {
					t.Errorf("v = %s, want %s", got, tc.want)
				}
				return
			}
			var le *guard.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("error %v, want a *guard.LimitError", err)
			}
			if want := "policy b (mine/b.rego): stopped at the sandbox's limit of "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start %q", err, want)
			}
			if want := ": " + tc.refused + " at mine/b.rego:"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		})
	}
}

// TestBuiltinLimitInRegoTest: a Rego test calling a builtin past a limit, or running past the
// time limit, fails with the limit set, and the run's LimitError names the first; the other
// tests keep their results.
func TestBuiltinLimitInRegoTest(t *testing.T) {
	ctx := guard.WithLimits(context.Background(), guard.Limits{Eval: 300 * time.Millisecond})
	src := "package l_test\n\ntest_lsh if bits.lsh(1, 1e8)\n\ntest_slow if {\n\tsome i in numbers.range(1, 1000000000000)\n\ti < 0\n}\n\ntest_ok if {\n\tprint(\"fine\")\n}\n"
	run, err := loadMine(t, map[string]string{"l_test.rego": src}, LoadOptions{Tests: true}).RunTests(ctx, TestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TestResult{}
	for _, r := range run.Results {
		got[r.Name] = r
	}
	if r := got["test_lsh"]; r.Pass || !strings.HasPrefix(r.Limit, "the sandbox's limit of 100000 bits per number") || !strings.Contains(r.Limit, "bits.lsh at mine/l_test.rego:3:13 would make a number of 100000001 bits") || r.Fail != "stopped at "+r.Limit {
		t.Errorf("test_lsh: %+v", r)
	}
	if r := got["test_slow"]; r.Pass || r.Limit != "the time limit of 300ms" || r.Fail != "stopped at the time limit of 300ms" {
		t.Errorf("test_slow: %+v", r)
	}
	if r := got["test_ok"]; !r.Pass || r.Output != "fine\n" {
		t.Errorf("test_ok: %+v", r)
	}
	le := run.LimitError()
	var gle *guard.LimitError
	if !errors.As(le, &gle) || !strings.HasPrefix(le.Error(), "Rego test l_test.test_lsh (mine/l_test.rego:3:1): stopped at the sandbox's limit of") ||
		!strings.HasSuffix(le.Error(), " (and 1 more test stopped at a limit)") {
		t.Errorf("LimitError %v", le)
	}
}

// TestBuiltinLimitsInRegoTests: a Rego test calling a builtin past the sandbox's limits is
// stopped at once, without making what it asked for: it fails with the limit, and its limit error
// names the test, the builtin and the call's position. The tests are those of
// internal/instrument/testdata/limits (shared with instrument's TestBuiltinLimitsInTasks and
// cmd/contractcheck's limits_test.go), each test_<case> calling one builtin (builtins.json, by
// case) past the limits; they are compiled once and run together: each stopped test leaves the
// others running.
func TestBuiltinLimitsInRegoTests(t *testing.T) {
	dir := filepath.Join("..", "instrument", "testdata", "limits")
	var limitTests map[string]string // case → builtin
	testkit.ReadJSON(t, filepath.Join(dir, "builtins.json"), &limitTests)
	e, err := Load([]layer.Dir{layer.User(filepath.Join(dir, "policies"))}, LoadOptions{Tests: true})
	if err != nil {
		t.Fatal(err)
	}
	run, err := e.RunTests(context.Background(), TestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TestResult{}
	for _, r := range run.Results {
		got[r.Name] = r
	}
	if len(got) != len(limitTests) {
		t.Errorf("%d tests ran, want %d (one a case)", len(got), len(limitTests))
	}
	for _, name := range slices.Sorted(maps.Keys(limitTests)) {
		t.Run(name, func(t *testing.T) {
			r, ok := got["test_"+name]
			if !ok {
				t.Fatalf("test_%s did not run", name)
			}
			if r.Pass || r.Limit == "" || r.Fail != "stopped at "+r.Limit {
				t.Errorf("result %+v: want a failure stopped at a limit", r)
			}
			one := (&TestRun{Results: []TestResult{r}}).LimitError()
			var gle *guard.LimitError
			want := regexp.MustCompile(`^Rego test limits\.cases_test\.test_` + name + ` \(.*cases_test\.rego:\d+:\d+\): ` +
				`stopped at the sandbox's limit of [^\n]*: ` + regexp.QuoteMeta(limitTests[name]) + ` at .*cases\.rego:\d+:\d+ would make `)
			if !errors.As(one, &gle) || !want.MatchString(one.Error()) {
				t.Errorf("limit error does not match %s:\n%v", want, one)
			}
		})
	}
}

// TestReachablePathsAsOPA: the bounded graph.reachable_paths finds the same paths as OPA's.
func TestReachablePathsAsOPA(t *testing.T) {
	tests := []struct {
		name, graph, initial string
	}{
		{name: "chain", graph: `{"a": ["b"], "b": ["c"], "c": []}`, initial: `{"a"}`},
		{name: "cycle", graph: `{"a": ["b"], "b": ["a", "c"], "c": ["a"]}`, initial: `["a", "c"]`},
		{name: "vertex outside the graph", graph: `{"a": ["x", "b"], "b": {"c"}}`, initial: `{"a", "b", "z"}`},
		{name: "edges that are neither array nor set", graph: `{"a": "b", "b": []}`, initial: `["a", "b"]`},
		{name: "diamond", graph: `{"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": ["a"]}`, initial: `{"a", "d"}`},
		{name: "no initial vertex", graph: `{"a": ["b"]}`, initial: `[]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			operands := []*ast.Term{ast.MustParseTerm(tc.graph), ast.MustParseTerm(tc.initial)}
			call := func(f topdown.BuiltinFunc) string {
				var out string
				if err := f(topdown.BuiltinContext{}, operands, func(r *ast.Term) error { out = r.String(); return nil }); err != nil {
					t.Fatal(err)
				}
				return out
			}
			if got, want := call(reachablePaths), call(opaBuiltins[ast.ReachablePathsBuiltin.Name]); got != want {
				t.Errorf("paths %s, OPA's %s", got, want)
			}
		})
	}
}

// TestSprintfSizeBoundsOutput: boundSprintf's estimate is never below what sprintf writes.
func TestSprintfSizeBoundsOutput(t *testing.T) {
	tests := []struct {
		name, format, args string
	}{
		{name: "plain", format: "/%d/%s", args: `[1, "x"]`},
		{name: "widths and precisions", format: "%08.3f|%-12s|%+.20d|%#x", args: `[3.14159, "ab", 42, "hi"]`},
		{name: "quoted control characters", format: "%q %+q", args: `["\u0000\u0001\u0002", "\u2028é"]`},
		{name: "hex with spaces", format: "% x % X", args: `["abc", "\u00ff"]`},
		{name: "big integer in binary", format: "%b %o %x", args: `[123456789012345678901234567890, 123456789012345678901234567890, 123456789012345678901234567890]`},
		{name: "large float", format: "%f %.30e %g", args: `[1e300, 1e-300, 1.5e300]`},
		{name: "star width and precision", format: "%*.*f|%-*d", args: `[30, 10, 2.5, 40, 7]`},
		{name: "reordered", format: "%[2]s %[1]s %[2]*[1]d %[3]v", args: `["first", "second", {"a": [1, 2]}]`},
		{name: "bad index and verbs", format: "%[9]d %!%z %d %", args: `[1]`},
		{name: "missing and extra", format: "%d %d", args: `[1]`},
		{name: "extra", format: "x", args: `[1, "two", [3]]`},
		{name: "values", format: "%v %s %d", args: `[{"k": "\u001b[31m"}, [null, true], {1, 2}]`},
		{name: "unicode verb", format: "%é %☃", args: `["a", "b"]`},
	}
	sprintf := topdown.GetBuiltin(ast.Sprintf.Name)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := ast.MustParseTerm(tc.args)
			var out string
			err := sprintf(topdown.BuiltinContext{}, []*ast.Term{ast.StringTerm(tc.format), args}, func(r *ast.Term) error {
				out = string(r.Value.(ast.String))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if est := sprintfSize(tc.format, args.Value.(*ast.Array)); est < int64(len(out)) {
				t.Errorf("estimate %d < %d bytes written: %q", est, len(out), out)
			}
		})
	}
}

// FuzzSprintfSize: boundSprintf's estimate is never below what sprintf writes, whatever the
// format, for a string, an integer and a float argument.
func FuzzSprintfSize(f *testing.F) {
	f.Add("%s %d %f", "abc", int64(7), 2.5)
	f.Add("%[3]*[2].*[1]f", "x", int64(12), 3.0)
	f.Add("%q%x% X%+q", "\x00\u202e", int64(-1), math.Copysign(0, -1))
	f.Add("%#v %T %p %U", "é", int64(0x1f600), 1e300)
	sprintf := topdown.GetBuiltin(ast.Sprintf.Name)
	f.Fuzz(func(t *testing.T, format, s string, i int64, x float64) {
		args := ast.NewArray(ast.StringTerm(s), ast.InternedTerm(int(i)), ast.FloatNumberTerm(x))
		est := sprintfSize(format, args)
		if est > 1<<20 {
			return // not written: it could be large
		}
		var out string
		err := sprintf(topdown.BuiltinContext{}, []*ast.Term{ast.StringTerm(format), ast.NewTerm(args)}, func(r *ast.Term) error {
			out = string(r.Value.(ast.String))
			return nil
		})
		if err != nil {
			return
		}
		if est < int64(len(out)) {
			t.Errorf("sprintf(%q, [%q, %d, %v]): estimate %d < %d bytes written", format, s, i, x, est, len(out))
		}
	})
}

// TestLog10Abs reads a number's magnitude from its spelling.
func TestLog10Abs(t *testing.T) {
	tests := []struct {
		name, s string
		want    float64
		ok      bool
	}{
		{name: "one", s: "1", want: 0, ok: true},
		{name: "integer", s: "1000", want: 3, ok: true},
		{name: "negative", s: "-0.01", want: -2, ok: true},
		{name: "exponent", s: "1e30000", want: 30000, ok: true},
		{name: "fraction and exponent", s: "0.001E+5", want: 2, ok: true},
		{name: "negative exponent", s: "10e-5", want: -4, ok: true},
		{name: "huge exponent", s: "1e99999999999999999999", want: 1e18, ok: true},
		{name: "zero", s: "0.000e7", ok: false},
		{name: "not a number", s: "1x", ok: false},
		{name: "empty exponent", s: "1e", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := log10Abs(tc.s)
			if ok != tc.ok || (ok && (got < tc.want-1e-9 || got > tc.want+1e-9)) {
				t.Errorf("log10Abs(%q) = %v, %v; want %v, %v", tc.s, got, ok, tc.want, tc.ok)
			}
		})
	}
}
