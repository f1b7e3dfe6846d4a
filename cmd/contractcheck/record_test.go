package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordHelp: record --help lists its flags and the check that judges its output.
func TestRecordHelp(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := cli(t, "record", "--help")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, w := range []string{"--lane", "--version", "--configuration", "--suite", "--mcp ", "--mcp-command", "--provider ", "--provider-api", "--listen", "--output", "--redact", "--max-records", "--max-bytes", "--duration", "--ca-file", "--profile record", "stdio"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("record --help does not mention %q", w)
		}
	}
}

// TestRecordUsage: record's usage errors exit 2 naming the flag, and write nothing.
func TestRecordUsage(t *testing.T) {
	t.Parallel()
	ok := []string{"--lane", "a", "--version", "1", "--provider", "http://127.0.0.1:9", "--mcp", "http://127.0.0.1:9/mcp", "--output", "OUT"}
	with := func(drop string, extra ...string) []string {
		var out []string
		for i := 0; i < len(ok); i += 2 {
			if ok[i] != drop {
				out = append(out, ok[i], ok[i+1])
			}
		}
		return append(out, extra...)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no lane", with("--lane"), "--lane is required"},
		{"no output", with("--output"), "--output is required"},
		{"no provider", with("--provider"), "--provider is required"},
		{"no MCP server", with("--mcp"), "--mcp"},
		{"a bad pointer", with("", "--redact", "owner"), `--redact "owner"`},
		{"an unknown provider API", with("", "--provider-api", "x"), "--provider-api"},
		{"an unclosed quote", with("--mcp", "--mcp-command", "'node"), "--mcp-command"},
		{"arguments before --", with("", "node", "--", "x"), "give the agent command after --"},
		{"a listen address without port", with("", "--listen", "127.0.0.1"), "--listen"},
		{"stdio without a command", []string{"stdio", "--to", "http://127.0.0.1:9/x"}, "give the MCP server command after --"},
		{"stdio without --to", []string{"stdio", "--", "true"}, "--to is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"record"}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			code, _, stderr := cli(t, args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q:\n%s", code, tt.want, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused recording wrote its output")
			}
		})
	}
}
