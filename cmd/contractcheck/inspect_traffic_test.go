package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/probe"
)

// The messages the hostile agent below sends through the stdio relay: an initialize whose client
// name holds a bidi override, U+2028 and a byte that is not UTF-8; a tools/call; and a line that
// is not JSON, with an ANSI escape and a workflow command, which the server refuses (400), so the
// relay, and the run, fail.
const (
	hostileInit = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"\u202eevil\u2028\xff\",\"version\":\"1\"}}}"
	hostileCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture_tool","arguments":{}}}`
	hostileJunk = "::error::pwned \x1b[31m red"
)

// hostileScript is the agent: printf's octal escapes give the bytes above, and the relay is
// CONTRACTCHECK_MCP_COMMAND, this test binary playing contractcheck.
const hostileScript = `export CONTRACTCHECK_TEST_CHILD=1
printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"\342\200\256evil\342\200\250\377","version":"1"}}}\n' > msgs
printf '%s\n' '` + hostileCall + `' >> msgs
printf '::error::pwned \033[31m red\n' >> msgs
eval "$CONTRACTCHECK_MCP_COMMAND" < msgs`

// TestProbeTraffic: probe --traffic keeps a failed run's MCP messages through the stdio relay byte
// for byte and says where, with the provider API named or unknown; inspect traffic shows the run escaped
// and, as JSON, exactly.
func TestProbeTraffic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider []string
		code     int
		want     []string // in probe's output
	}{
		{name: "records written, exit 1", provider: []string{"--provider", "openai-chat"}, code: 1,
			want: []string{"execution_failed for 1", "probe: the traffic of every run is in "}},
		{name: "the provider API unknown, H4 bound to nothing, exit 1", code: 1,
			want: []string{"provider API is unknown", "H4 is bound to nothing", "probe: the traffic of every run is in "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "probe-out")
			args := append([]string{"probe", "--lane", "hostile-agent", "--version", "0.1.0", "--fixture", "C09", "--repetitions", "1",
				"--traffic", "--output", out}, tt.provider...)
			args = append(args, "--", "sh", "-c", "cd "+shownPath(dir)+" && "+hostileScript)
			code, _, stderr := cli(t, args...)
			if code != tt.code {
				t.Fatalf("probe exit %d, want %d\n%s", code, tt.code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("probe's output lacks %q:\n%s", w, stderr)
				}
			}

			stdout, _ := cliOK(t, "inspect", "traffic", "--probe-output", out, "--fixture", "C09", "--format", "json")
			var got struct{ Runs []probe.Traffic }
			if err := json.Unmarshal([]byte(stdout), &got); err != nil || len(got.Runs) != 1 {
				t.Fatalf("%v: %s", err, stdout)
			}
			xs := got.Runs[0].Exchanges
			if len(xs) != 3 {
				t.Fatalf("%d exchanges, want the three messages:\n%s", len(xs), stdout)
			}
			for i, want := range []string{hostileInit, hostileCall, hostileJunk} {
				if string(xs[i].Request) != want || xs[i].Endpoint != "mcp" || xs[i].Seq != i+1 {
					t.Errorf("exchange %d: %s %q, want %q", i+1, xs[i].Endpoint, xs[i].Request, want)
				}
			}
			if xs[2].Status != 400 || !bytes.Contains(xs[1].Response, []byte("Route optimised")) {
				t.Errorf("responses: %d %s; %d %s", xs[1].Status, xs[1].Response, xs[2].Status, xs[2].Response)
			}

			stdout, _ = cliOK(t, "inspect", "traffic", "--probe-output", out, "--fixture", "C09")
			for _, w := range []string{"hostile-agent 0.1.0 default C09 repetition 1: 3 exchanges", "#1 mcp POST /mcp → 200",
				`\u202eevil\u2028\xff`, "#3 mcp POST /mcp → 400", `::error::pwned \u001b[31m red`, "Route optimised"} {
				if !strings.Contains(stdout, w) {
					t.Errorf("inspect's text lacks %q:\n%s", w, stdout)
				}
			}
			assertTrafficSafe(t, stdout)
		})
	}
}

// assertTrafficSafe fails when out holds a control, bidi or line separator character, or a line
// that starts a CI workflow command.
func assertTrafficSafe(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.ContainsAny(line, "\x1b\x07\r\u202e\u2028\u2029") || !utf8.ValidString(line) {
			t.Errorf("unsafe line %q", line)
		}
	}
}

// TestInspectTraffic: inspect traffic reads a traffic file by its path, shows every body escaped
// line by line, and refuses what is not a run's traffic.
func TestInspectTraffic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	x := probe.Exchange{Seq: 1, Endpoint: "provider", Method: "POST", Path: "/v1/messages", Query: "beta=true",
		RequestHeaders: map[string][]string{"X-Api-Key": {"[redacted]"}, "Content-Type": {"application/json"}},
		Request:        probe.Body("{\"a\":\"\x1b]0;title\x07\"}\n::warning::x\n\xc3\x28"),
		Status:         200, ResponseHeaders: map[string][]string{"Content-Type": {"text/event-stream"}},
		Response: probe.Body("event: message_start\ndata: {}\n\n"), ResponseOmitted: 5, Redacted: true}
	h := probe.TrafficHeader{Format: probe.TrafficFormat, FormatVersion: probe.TrafficVersion, Lane: "acme", LaneVersion: "1",
		Configuration: "default", Run: "batch", Fixtures: []string{"C01", "C02"}, Repetition: 2, Exchanges: 1}
	var file bytes.Buffer
	for _, v := range []any{h, x} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		file.Write(append(b, '\n'))
	}
	good := filepath.Join(dir, "2.ndjson")
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("2.ndjson", file.String())
	h.FormatVersion = 9
	future, _ := json.Marshal(h)
	for _, tc := range []cliCase{
		{name: "by file", args: []string{good}, inOutput: []string{
			"acme 1 default batch repetition 2: 1 exchanges (fixtures C01, C02)",
			"#1 provider POST /v1/messages?beta=true → 200 (a credential redacted in a body)",
			"  > X-Api-Key: [redacted]",
			"  > body (34 bytes, not UTF-8: its stray bytes shown as \\xNN):",
			`  >   {"a":"\u001b]0;title\u0007"}`, "  >   ::warning::x", `  >   \xc3(`,
			"  < body (31 bytes, 5 more past the bound not kept):", "  <   event: message_start", "  <   data: {}\n  <\n"}},
		{name: "nothing named", code: 2, inOutput: []string{"name a run"}},
		{name: "both a file and a directory", args: []string{good, "--probe-output", dir, "--fixture", "C01"}, code: 2, inOutput: []string{"not both"}},
		{name: "a directory with no traffic", args: []string{"--probe-output", dir, "--fixture", "C01"}, code: 2, inOutput: []string{"holds no traffic/ directory"}},
		{name: "not a traffic file", args: []string{write("x.ndjson", `{"fixture":"C01"}`+"\n")}, code: 2, inOutput: []string{"not a probe's traffic file"}},
		{name: "another format version", args: []string{write("v9.ndjson", string(future)+"\n")}, code: 2, inOutput: []string{"format version 9"}},
		{name: "a count that disagrees", args: []string{write("short.ndjson", strings.SplitAfter(file.String(), "\n")[0])}, code: 2, inOutput: []string{"0 exchanges, the header says 1"}},
		{name: "no such file", args: []string{filepath.Join(dir, "nope.ndjson")}, code: 2, inOutput: []string{"nope.ndjson"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, _ := tc.run(t, "inspect", "traffic")
			assertTrafficSafe(t, stdout)
		})
	}
}
