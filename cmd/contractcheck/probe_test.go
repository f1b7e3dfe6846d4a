package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestProbeBrokenCommand: a command that fails gives execution_failed records and exit 1, and the
// probe profile then fails the gate on them: a broken agent is never green.
func TestProbeBrokenCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider []string
		binding  string
	}{
		{"with --provider", []string{"--provider", "anthropic"}, "(H4: anthropic)"},
		// No model request, no --provider: the API is unknown, and the records are still written.
		{"without --provider", nil, "(H4: bound to nothing, the provider API unknown)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "probe-out")
			args := append([]string{"probe", "--lane", "broken-agent", "--version", "0.1.0"}, tt.provider...)
			args = append(args, "--fixture", "C09", "--repetitions", "2", "--output", out, "--", "sh", "-c", `printf 'no key\n::error::x\n' >&2; exit 3`)
			code, _, stderr := cli(t, args...)
			if code != 1 {
				t.Fatalf("probe exit %d, want 1\n%s", code, stderr)
			}
			for _, w := range []string{"probe: C09 repetition 2: execution_failed: the command exited with exit status 3",
				"execution_failed for 2", tt.binding, "probe: no fixture of the visibility readout was probed", "judge it: contractcheck check --observations"} {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "\n::error") {
				t.Errorf("the command's output put a workflow command at the start of a line:\n%s", stderr)
			}
			recs, err := os.ReadFile(filepath.Join(out, "broken-agent", "0.1.0", "default.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(recs, []byte(`"state":"execution_failed"`)); n != 2 {
				t.Errorf("%d execution_failed records, want 2:\n%s", n, recs)
			}
			code, stdout, stderr := cli(t, "check", "--observations", out, "--contracts", out, "--profile", "probe")
			if code != 1 || !strings.Contains(stdout, "execution_failed") {
				t.Errorf("check exit %d, want 1\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// TestProbeUsage: probe's usage errors exit 2 and write nothing.
func TestProbeUsage(t *testing.T) {
	t.Parallel()
	runUsageCases(t, "probe", []usageCase{
		{"no command", []string{"--lane", "a", "--version", "1", "--output", "OUT"}, "give the agent command after --"},
		{"arguments before --", []string{"--lane", "a", "--version", "1", "--output", "OUT", "sh", "--", "true"}, "give the agent command after --"},
		{"no output", []string{"--lane", "a", "--version", "1", "--", "true"}, "--output is required"},
		{"an unknown provider", []string{"--lane", "a", "--version", "1", "--provider", "x", "--output", "OUT", "--", "true"}, "--provider"},
		{"an unknown fixture", []string{"--lane", "a", "--version", "1", "--fixture", "ZZ9", "--output", "OUT", "--", "true"}, "ZZ9"},
		{"negative jobs", []string{"--lane", "a", "--version", "1", "--jobs", "-2", "--output", "OUT", "--", "true"}, "--jobs -2: a number of runs at once"},
	})
}

// TestServe: serve answers MCP over stdio with the fixture's bytes, and refuses what it cannot do.
func TestServe(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture_tool","arguments":{}}}`,
	}, "\n") + "\n"
	var stdout, stderr bytes.Buffer
	code := runWithStdin([]string{"serve", "--fixture", "C05", "--stdio"}, strings.NewReader(in), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"protocolVersion":"2025-06-18"`) ||
		!strings.HasPrefix(lines[1], `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"station\":\"EGNM\"`) {
		t.Errorf("serve answered:\n%s", stdout.String())
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no fixture", []string{"serve", "--stdio"}, "--fixture is required"},
		{"no transport", []string{"serve", "--fixture", "C05"}, "one of --stdio and --listen"},
		{"beyond loopback", []string{"serve", "--fixture", "C05", "--listen", "0.0.0.0:0"}, "only a loopback address"},
		{"unknown fixture", []string{"serve", "--fixture", "NOPE", "--stdio"}, `unknown fixture "NOPE"`},
		{"relay off loopback", []string{"serve", "--stdio", "--probe", "http://example.com/r/x/mcp"}, "127.0.0.1 only"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q:\n%s", code, tt.want, stderr)
			}
		})
	}
}

// TestShownPath: an output path reaches the terminal as one shell word, its control and bidi
// characters escaped in bash's $'…' quotes, so it can neither start a workflow command nor
// reorder the line, and can still be pasted.
func TestShownPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, in, want string }{
		{"plain", "probe-out", "probe-out"},
		{"a space", "my probe", "'my probe'"},
		{"a newline and a workflow command", "x\n::error::pwned", `$'x\n::error::pwned'`},
		{"bidi and escape", "a\u202eb\x1b[31m", `$'a\u202eb\x1b[31m'`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := shownPath(tt.in); got != tt.want {
				t.Errorf("shownPath(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// What probe says of the visibility readout after its runs: a line per stage, a hint when no
// visibility fixture was probed, and why not when its records cannot be judged as they are (the
// probe succeeded all the same) — every line safe for a CI log.
func TestWriteProbeVisibility(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		vs   []result.Visibility
		err  error
		want []string
	}{
		{"category", []result.Visibility{{Stage: "H4", Category: "mixed", Nearest: "both", Disagree: []string{"V02"}}},
			nil, []string{"probe: what reaches the model at H4: mixed (nearest both; V02 differs) (docs/visibility.md)\n"}},
		{"nothing served", []result.Visibility{{Lane: "acme", Version: "1", Configuration: "default", Stage: "H4", Category: "neither", OnError: "rewritten",
			Fixtures: []result.VisibilityFixture{{Fixture: "V01", State: "captured", Shape: "nothing"}, {Fixture: "V04", State: "captured", Shape: "rewritten"}}}},
			nil, []string{"probe: what reaches the model at H4: neither, on error rewritten (docs/visibility.md)\n",
				"probe: WARNING: acme 1 default at H4: no record carries anything of what the MCP server served"}},
		{"nothing probed", nil, nil, []string{"add --suite visibility"}},
		{"not judged", nil, errors.New("out/x.jsonl:4: /carrier: missing properties 'api'\n::error::pwned"),
			[]string{"probe: what reaches the model: not judged here (check will say the same): out/x.jsonl:4: /carrier: missing properties 'api'\\n::error::pwned\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeProbeVisibility(&b, tt.vs, tt.err)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), "\n::") {
				t.Errorf("a line starts a workflow command:\n%s", b.String())
			}
		})
	}
}

// TestProbeJobs: --jobs 0 is the cores (the default), not a usage error, and --jobs 1 one run at
// a time: either probe runs, the command's failure its records' (exit 1).
func TestProbeJobs(t *testing.T) {
	t.Parallel()
	for _, jobs := range []string{"0", "1", "3"} {
		t.Run("jobs="+jobs, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "probe-out")
			code, _, stderr := cli(t, "probe", "--lane", "broken-agent", "--version", "0.1.0", "--provider", "openai-chat", "--jobs", jobs,
				"--fixture", "C0[7-9]", "--repetitions", "1", "--output", out, "--", "sh", "-c", "exit 3")
			if code != 1 || !strings.Contains(stderr, "probe: 3 runs; H4 captured for 0 fixture repetitions, execution_failed for 3") {
				t.Errorf("exit %d, want 1 with 3 runs:\n%s", code, stderr)
			}
		})
	}
}
