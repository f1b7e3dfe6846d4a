package reproduce

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/testtier"
)

var (
	genMu    sync.Mutex
	genCache = map[string]*Reproduction{}
)

// generate writes (once per test process) the reproduction of a built-in binding.
func generate(t *testing.T, o Options) *Reproduction {
	t.Helper()
	genMu.Lock()
	defer genMu.Unlock()
	key := strings.Join([]string{o.Fixture, o.Lane, o.Version, o.Configuration, o.Stage, o.Task}, " ")
	if r, ok := genCache[key]; ok {
		return r
	}
	r, err := Generate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	genCache[key] = r
	return r
}

func opts(fixture, lane, version, stage, task string) Options {
	return Options{Fixture: fixture, Lane: lane, Version: version, Stage: stage, Task: task, Command: "contractcheck reproduce (test)"}
}

// TestPlan reads built-in losses into checks: each names what must reach the stage, reads the
// direct reading where the canonical binding reads W0 and the framework's carrier where the lane
// stage's binding reads it.
func TestPlan(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		// want: per check, its message, op, the framework's target pointer (or list/field), and want.
		want []Check
	}{
		{"go-sdk numbers through float64", opts("C02", "go-sdk", "v1.8.0", "D1", "T2"), []Check{
			{Message: "structuredContent.unitCostRatio 0.1000000000000000055511151231257827 must reach D1 exactly", Op: OpEqual, Target: Target{Pointer: "/structuredContent", Rest: "/unitCostRatio"}, Want: "0.1000000000000000055511151231257827"},
			{Message: "structuredContent.sequence 9007199254740993 must reach D1 exactly", Op: OpEqual, Target: Target{Pointer: "/structuredContent", Rest: "/sequence"}, Want: "9007199254740993"},
		}},
		{"go-sdk isError false dropped", opts("X05", "go-sdk", "v1.8.0", "D1", "T3"), []Check{
			{Message: "the error decision must reach D1 as continue (W0 says the call succeeded: isError false)", Op: OpDecision, Target: Target{IsError: "/isError", Raised: "/error"}, Want: "continue"},
		}},
		{"go-sdk structuredContent null dropped", opts("X02", "go-sdk", "v1.8.0", "D1", "T2"), []Check{
			{Message: "structuredContent null must reach D1 as sent", Op: OpEqual, Target: Target{Pointer: "/structuredContent"}, Want: "null"},
		}},
		{"mcp-go icons dropped", opts("C12", "mcp-go", "v1.2.1", "D1", "T4"), []Check{
			{Message: "content[0].icons must reach D1", Op: OpEqual, Target: Target{List: "/content", ListDecode: "none", Item: true, Discriminator: "/type", Field: "/icons"},
				Want: `[{"mimeType":"image/png","sizes":["48x48"],"src":"https://static.example.com/icons/pdf-48.png"},{"mimeType":"image/svg+xml","sizes":["any"],"src":"https://static.example.com/icons/pdf.svg"}]`},
		}},
		{"mcp-go description invented", opts("C16", "mcp-go", "v1.2.1", "D1", "T4"), []Check{
			{Message: "content[2].description must not appear at D1 (W0 has none)", Op: OpAbsent, Target: Target{List: "/content", ListDecode: "none", Index: 2, Item: true, Discriminator: "/type", Field: "/description"}},
		}},
		{"langchain-js numbers through doubles", opts("C02", "langchain-mcp-adapters-js", "1.1.4", "A2", "T2"), []Check{
			{Message: "structuredContent must reach A2 as sent", Op: OpEqual, Target: Target{Pointer: "/artifact/0/data"}},
			{Message: "structuredContent.unitCostRatio 0.1000000000000000055511151231257827 must reach A2 exactly", Op: OpEqual, Target: Target{Pointer: "/artifact/0/data", Rest: "/unitCostRatio"}, Want: "0.1000000000000000055511151231257827"},
			{Message: "structuredContent.sequence 9007199254740993 must reach A2 exactly", Op: OpEqual, Target: Target{Pointer: "/artifact/0/data", Rest: "/sequence"}, Want: "9007199254740993"},
		}},
		{"langchain-js annotations have no place", opts("C13", "langchain-mcp-adapters-js", "1.1.4", "A2", "T4"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := generate(t, tc.o)
			if len(r.Direct) != len(r.Observed) || len(r.Observed) == 0 {
				t.Fatalf("%d direct and %d framework checks", len(r.Direct), len(r.Observed))
			}
			for i, c := range r.Direct {
				if c.Message != r.Observed[i].Message || c.Op != r.Observed[i].Op || c.Target.Unbound != "" {
					t.Errorf("direct check %d %+v does not mirror %+v, or is unbound", i, c, r.Observed[i])
				}
			}
			if tc.want == nil {
				found := false
				for _, c := range r.Observed {
					found = found || strings.Contains(c.Target.Unbound, "has no place for annotations")
				}
				if !found {
					t.Errorf("no check says the carrier has no place for annotations: %+v", r.Observed)
				}
				return
			}
			if len(r.Observed) != len(tc.want) {
				t.Fatalf("checks %+v, want %+v", r.Observed, tc.want)
			}
			for i, w := range tc.want {
				g := r.Observed[i]
				if g.Message != w.Message || g.Op != w.Op || g.Target.Pointer != w.Target.Pointer || g.Target.Rest != w.Target.Rest ||
					g.Target.List != w.Target.List || g.Target.Field != w.Target.Field || g.Target.Index != w.Target.Index ||
					g.Target.IsError != w.Target.IsError || g.Target.Raised != w.Target.Raised || (w.Want != "" && g.Want != w.Want) {
					t.Errorf("check %d = %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}

// TestGenerateRefuses: nothing is written for a binding without a loss, without a capture, or on
// a lane reproduce has no seam for.
func TestGenerateRefuses(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"a binding that passes", opts("C01", "go-sdk", "v1.8.0", "D1", "T1"), "nothing is lost to reproduce"},
		{"a lane without a seam", opts("C01", "adk-go", "v1.0.0", "A2", "T1"), "reproduce writes tests for go-sdk D1"},
		{"a stage the seam does not give", opts("C01", "langchain-mcp-adapters-js", "1.1.4", "H4", "T1"), "no reproduction for lane langchain-mcp-adapters-js at stage H4"},
		{"an unknown version", opts("C02", "go-sdk", "v9", "D1", "T2"), "has no record"},
		{"a missing flag", Options{Lane: "go-sdk"}, "is required"},
		{"a task not evaluated on the fixture", opts("C02", "go-sdk", "v1.8.0", "D1", "T5"), "is not evaluated on fixture C02"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Generate(context.Background(), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// run runs a command in dir and returns its combined output; it does not fail the test on a
// non-zero exit (a reproduction is meant to fail).
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestExportedGoTestsFailAtThePinnedVersions writes the go-sdk and mcp-go reproductions of losses
// check reports and runs them with go test against the pinned versions (go-sdk v1.8.0, mcp-go
// v1.2.1), and mcp-go's before v1 (v0.37.0, the side of mcp-go #522 fixture R02 records): the
// direct reading passes, the framework's fails with the consumer decision's message.
func TestExportedGoTestsFailAtThePinnedVersions(t *testing.T) {
	testtier.Require(t, "builds the frameworks' pinned modules (go mod tidy from the Go module proxy)")
	tests := []struct {
		name, test string
		o          Options
		fails      []string
	}{
		{"go-sdk loses exact numbers", "TestGoSdkD1", opts("C02", "go-sdk", "v1.8.0", "D1", "T2"),
			[]string{"structuredContent.sequence 9007199254740993 must reach D1 exactly: got 9007199254740992", "structuredContent.unitCostRatio 0.1000000000000000055511151231257827 must reach D1 exactly: got 0.1"}},
		{"go-sdk drops isError false", "TestGoSdkD1", opts("X05", "go-sdk", "v1.8.0", "D1", "T3"),
			[]string{"the error decision must reach D1 as continue (W0 says the call succeeded: isError false): got unknown"}},
		{"mcp-go drops a resource link's icons", "TestMcpGoD1", opts("C12", "mcp-go", "v1.2.1", "D1", "T4"),
			[]string{"content[0].icons must reach D1: it is absent"}},
		// Before v1 the seam names the protocol version and gives the IO transport a stderr, as
		// the capture program does: without them Initialize fails and Close panics.
		{"mcp-go v0.37.0 drops structuredContent (mcp-go #522)", "TestMcpGoD1", opts("R02", "mcp-go", "v0.37.0", "D1", "T2"),
			[]string{"structuredContent must reach D1 as sent: it is absent"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repro")
			if err := safeio.WriteTree(dir, generate(t, tc.o).Files); err != nil {
				t.Fatal(err)
			}
			env := []string{"GOFLAGS=-mod=mod", "GOWORK=off"}
			if out := run(t, dir, env, "go", "mod", "tidy"); strings.Contains(out, "error") {
				t.Fatalf("go mod tidy: %s", out)
			}
			direct := run(t, dir, env, "go", "test", "-count=1", "-run", "^TestDirectReading$", ".")
			if !strings.HasPrefix(strings.TrimSpace(direct), "ok") {
				t.Errorf("the direct reading does not pass:\n%s", direct)
			}
			framework := run(t, dir, env, "go", "test", "-count=1", "-run", "^"+tc.test+"$", ".")
			if !strings.Contains(framework, "--- FAIL: "+tc.test) {
				t.Fatalf("%s does not fail at %s:\n%s", tc.test, tc.o.Version, framework)
			}
			for _, f := range tc.fails {
				if !strings.Contains(framework, f) {
					t.Errorf("%s does not say %q:\n%s", tc.test, f, framework)
				}
			}
		})
	}
}

// TestExportedJSTestRunsUnderNode writes the langchain-mcp-adapters-js reproduction and runs it
// with node --test, with the capture package's installation (examples/capture/js, npm ci) as its
// node_modules: the direct reading passes, the framework's fails where the doubles lose digits.
func TestExportedJSTestRunsUnderNode(t *testing.T) {
	testtier.Require(t, "node and the capture package's npm installation")
	modules, err := filepath.Abs(filepath.Join("..", "..", "examples", "capture", "js", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "@langchain", "mcp-adapters")); err != nil {
		testtier.Missing(t, "examples/capture/js has no node_modules: run npm ci there (.ci/run does before go test)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("no node on PATH: the TypeScript lanes and their reproductions need Node 20")
	}
	dir := filepath.Join(t.TempDir(), "repro")
	if err := safeio.WriteTree(dir, generate(t, opts("C02", "langchain-mcp-adapters-js", "1.1.4", "A2", "T2")).Files); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	version := run(t, dir, nil, "node", "--version")
	out := run(t, dir, nil, "node", "--test", "--test-reporter=tap")
	for _, want := range []string{
		"ok 1 - direct reading: the consumer decision on what the server sent",
		"not ok 2 - langchain-mcp-adapters-js 1.1.4 A2",
		"structuredContent.sequence 9007199254740993 must reach A2 exactly: got 9007199254740992",
		"# pass 4",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("node %s --test: the output lacks %q:\n%s", strings.TrimSpace(version), want, out)
		}
	}
}

// pythonRoot is the directory of the Python capture environment scripts/python-env builds
// (docs/capturing.md), as the script's root command prints it.
func pythonRoot(script string) (string, error) {
	out, err := exec.Command(script, "root").Output()
	if err != nil {
		return "", fmt.Errorf("%s root: %w", script, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// TestExportedPythonTestRunsInThePythonEnvironment writes the mcp-python reproduction of C02 and
// runs it with python3 -m unittest inside the Python capture environment (mcp 1.29.0): the direct
// reading passes, the SDK's fails where the float lost the digits.
func TestExportedPythonTestRunsInThePythonEnvironment(t *testing.T) {
	testtier.Require(t, "the Python root of scripts/python-env, as root")
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "python-env"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := pythonRoot(script)
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "usr", "bin", "python3"))
	}
	if err != nil || os.Geteuid() != 0 {
		testtier.Missing(t, "no Python capture environment (scripts/python-env builds it, as root; .ci/run does before go test)")
	}
	// A folder of its own under the environment's /tmp: two runs of the test at once (two
	// checkouts on one machine) must not write over each other's reproduction.
	parent, err := os.MkdirTemp(filepath.Join(root, "tmp"), "contractcheck-repro-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	dir := filepath.Join(parent, "repro")
	if err := safeio.WriteTree(dir, generate(t, opts("C02", "mcp-python", "1.29.0", "D1", "T2")).Files); err != nil {
		t.Fatal(err)
	}
	out := run(t, ".", nil, script, "run", "sh", "-c", "cd /tmp/"+filepath.Base(parent)+"/repro && python3 -m unittest -v")
	for _, want := range []string{
		"test_direct_reading (test_repro.Reproduction.test_direct_reading) ... ok",
		"structuredContent.unitCostRatio 0.1000000000000000055511151231257827 must reach D1 exactly: got 0.1",
		"FAILED (failures=1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("python3 -m unittest: the output lacks %q:\n%s", want, out)
		}
	}
}
