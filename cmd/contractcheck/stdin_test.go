package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// cliIn runs the command line with standard input read from stdin.
func cliIn(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runWithStdin(args, stdin, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestValidateStdinAndEveryBadFile reads a source from standard input (`validate -`), and lists
// every bad file, not just the first, exiting 2 when any is bad.
func TestValidateStdinAndEveryBadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad1 := filepath.Join(dir, "bad1.json")
	bad2 := filepath.Join(dir, "bad2.json")
	testkit.WriteFile(t, good, `{"content": [{"type": "text", "text": "ok"}], "isError": false}`)
	testkit.WriteFile(t, bad1, `{"content": [{"type": "resource_link", "uri": "not a uri", "name": "x"}]}`)
	testkit.WriteFile(t, bad2, "{\"content\": [\n  {\"type\": \"text\", \"text\": 1e99999}]}")
	runCases(t, false, []cliCase{
		{name: "a valid source on standard input", stdin: `{"content": [{"type": "text", "text": "ok"}]}`, args: []string{"validate", "-"},
			inStdout: []string{"ok <stdin> (2025-11-25, result)"}},
		{name: "an invalid source on standard input", stdin: `{"content": [{"type": "image", "data": "%%%", "mimeType": "image/png"}]}`, args: []string{"validate", "-"},
			code: 2, inStderr: []string{"<stdin>: /content/0/data", "1 of 1 sources are invalid"}},
		{name: "bad JSON on standard input names the line and column", stdin: "{\n  \"content\": [,]}", args: []string{"validate", "-"},
			code: 2, inStderr: []string{"<stdin>:2:15"}},
		{name: "every bad file, and the good ones", args: []string{"validate", bad1, good, bad2, "-"}, stdin: `{"content": []}`,
			code: 2, inStdout: []string{"ok " + good + " ", "ok <stdin> "},
			inStderr: []string{bad1 + ": /content/0/uri", bad2 + ":2:", "2 of 4 sources are invalid"}},
		{name: "standard input named twice", args: []string{"validate", "-", "-"}, code: 2, inStderr: []string{"- is given 2 times: standard input is read once"}},
	})
}

// TestObservationsStdin reads JSONL records from standard input (--observations -): the same
// verdict as the file they came from, and a bad record named <stdin>:<line>.
func TestObservationsStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../fixtures/observations/direct/v1/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cliIn(t, bytes.NewReader(data), "check", "--observations", "-", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"file": "<stdin>"`) {
		t.Errorf("check --observations - : exit %d, want 0 and records from <stdin>\n%.2000s\n%s", code, stdout, stderr)
	}
	lines := strings.SplitAfter(string(data), "\n")
	bad := lines[0] + lines[1] + "{\"fixture\": \"C01\"}\n"
	code, _, stderr = cliIn(t, strings.NewReader(bad), "check", "--observations", "-")
	if code != 2 || !strings.Contains(stderr, "<stdin>:3: ") {
		t.Errorf("a bad record on standard input: exit %d, want 2 naming <stdin>:3\n%s", code, stderr)
	}
	code, _, stderr = cliIn(t, strings.NewReader(""), "check", "--observations", "-", "--observations", "-")
	if code != 2 || !strings.Contains(stderr, "--observations - is given twice") {
		t.Errorf("--observations - twice: exit %d\n%s", code, stderr)
	}
}
