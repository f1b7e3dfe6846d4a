package probeenv

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
		wantErr  bool
	}{
		{name: "plain", in: "/bin/cc serve --stdio --probe http://127.0.0.1:1/r/t", want: []string{"/bin/cc", "serve", "--stdio", "--probe", "http://127.0.0.1:1/r/t"}},
		{name: "blanks", in: "  a \t b\n", want: []string{"a", "b"}},
		{name: "empty", in: "", want: nil},
		{name: "single quotes", in: `'/a b/cc' 'x"y' ''`, want: []string{"/a b/cc", `x"y`, ""}},
		{name: "double quotes", in: `"a \"b\" \\ \$ \x" c`, want: []string{`a "b" \ $ \x`, "c"}},
		{name: "backslash", in: `a\ b c\'d`, want: []string{"a b", "c'd"}},
		{name: "joined", in: `a'b'"c"d`, want: []string{"abcd"}},
		{name: "unterminated single", in: `'a`, wantErr: true},
		{name: "unterminated double", in: `"a`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Split(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLoadTransport(t *testing.T) {
	for _, tc := range []struct {
		name, transport string
		stdioByDefault  bool
		wantStdio       bool
		wantErr         bool
	}{
		{name: "default http", wantStdio: false},
		{name: "default stdio", stdioByDefault: true, wantStdio: true},
		{name: "stdio", transport: "stdio", wantStdio: true},
		{name: "http over a stdio default", transport: "http", stdioByDefault: true, wantStdio: false},
		{name: "unknown", transport: "sse", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONTRACTCHECK_MCP_URL", "http://127.0.0.1:1/r/t/mcp")
			t.Setenv("CONTRACTCHECK_MCP_COMMAND", "'/a b/contractcheck' serve --stdio --probe http://127.0.0.1:1/r/t/mcp")
			t.Setenv("PROBE_TRANSPORT", tc.transport)
			e, err := Load(tc.stdioByDefault)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if e.Stdio != tc.wantStdio || e.MCPCommand[0] != "/a b/contractcheck" || len(e.MCPCommand) != 5 {
				t.Fatalf("Stdio %v (want %v), MCPCommand %q", e.Stdio, tc.wantStdio, e.MCPCommand)
			}
		})
	}
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		url       string
		wantCalls int
		wantErr   string
	}{
		{name: "environment read, run called", url: "http://127.0.0.1:1/mcp", wantCalls: 1, wantErr: "run's own"},
		{name: "environment missing, run not called", url: "", wantCalls: 0, wantErr: "CONTRACTCHECK_MCP_URL is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONTRACTCHECK_MCP_URL", tc.url)
			t.Setenv("CONTRACTCHECK_MCP_COMMAND", "")
			t.Setenv("PROBE_TRANSPORT", "http")
			calls := 0
			err := Run(false, func(ctx context.Context, env Env) error {
				calls++
				if env.MCPURL != tc.url {
					t.Errorf("env.MCPURL = %q, want %q", env.MCPURL, tc.url)
				}
				if d, ok := ctx.Deadline(); !ok || time.Until(d) > Budget {
					t.Errorf("deadline %v (%v), want one within %v", d, ok, Budget)
				}
				return errors.New("run's own")
			})
			if calls != tc.wantCalls {
				t.Errorf("run called %d times, want %d", calls, tc.wantCalls)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Run: %v, want an error holding %q", err, tc.wantErr)
			}
		})
	}
}
