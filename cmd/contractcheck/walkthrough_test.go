package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testtier"
)

// step is one thing the walkthrough does: write a file, or run a command and expect output.
type step struct {
	line    int      // where it is in the page
	file    string   // a file to write, or
	content string   // its content
	args    []string // a command to run (after "contractcheck")
	want    []string // lines its output must hold, in order ("…" lines skipped)
	exit    int
}

// parseWalkthrough reads a page's steps: a "<!-- file: PATH -->" line followed by a fenced block
// writes the block to PATH; in a ```console block, each "$ contractcheck …" line is a command and
// the lines after it, up to the next command, its expected output (whole lines, in order; a "…"
// line skips any number of lines, a "…" inside a line any text), with "[exit N]" its exit code.
func parseWalkthrough(t *testing.T, path string) []step {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []step
	var pendingFile string
	var cur *step
	inConsole, inFile := false, false
	var body strings.Builder
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case inFile && strings.HasPrefix(line, "```"):
			steps = append(steps, step{line: n, file: pendingFile, content: body.String()})
			inFile, pendingFile = false, ""
		case inFile:
			body.WriteString(line + "\n")
		case inConsole && strings.HasPrefix(line, "```"):
			inConsole, cur = false, nil
		case inConsole && strings.HasPrefix(line, "$ contractcheck "):
			steps = append(steps, step{line: n, args: strings.Fields(strings.TrimPrefix(line, "$ contractcheck "))})
			cur = &steps[len(steps)-1]
		case inConsole && strings.HasPrefix(line, "[exit ") && cur != nil:
			code, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "[exit "), "]"))
			if err != nil {
				t.Fatalf("%s:%d: %q", path, n, line)
			}
			cur.exit = code
		case inConsole && cur != nil:
			cur.want = append(cur.want, line)
		case strings.HasPrefix(line, "<!-- file: "):
			pendingFile = strings.TrimSuffix(strings.TrimPrefix(line, "<!-- file: "), " -->")
		case strings.HasPrefix(line, "```console"):
			inConsole = true
		case strings.HasPrefix(line, "```") && pendingFile != "":
			inFile = true
			body.Reset()
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}

// TestWalkthrough runs docs/writing-a-contract.md: every file it shows is written and every
// command it shows is run, in order, in a fresh directory, with the exit code and the output lines
// the page shows.
func TestWalkthrough(t *testing.T) {
	runWalkthrough(t, "writing-a-contract.md", 8)
}

// TestProbeWalkthrough runs docs/probe.md the same way: its agent is plain Python (standard
// library only), so the test needs python3, as a user following the page does. It starts the agent
// 66 times, most of the fast tier's time: it is in the integration tier.
func TestProbeWalkthrough(t *testing.T) {
	testtier.Require(t, "python3, started 66 times by the page's probe")
	if _, err := exec.LookPath("python3"); err != nil {
		testtier.Missing(t, "docs/probe.md's agent needs python3")
	}
	runWalkthrough(t, "probe.md", 6)
}

// runWalkthrough runs a page under docs/ that has at least min steps.
func runWalkthrough(t *testing.T, page string, min int) {
	doc, err := filepath.Abs("../../docs/" + page)
	if err != nil {
		t.Fatal(err)
	}
	steps := parseWalkthrough(t, doc)
	if len(steps) < min {
		t.Fatalf("the walkthrough has %d steps: the page's markers are off", len(steps))
	}
	t.Chdir(t.TempDir())
	for _, s := range steps {
		if s.file != "" {
			if err := os.MkdirAll(filepath.Dir(s.file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.file, []byte(s.content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		code, stdout, stderr := cli(t, s.args...)
		out := stdout + stderr
		where := fmt.Sprintf("%s:%d: contractcheck %s", page, s.line, strings.Join(s.args, " "))
		if code != s.exit {
			t.Fatalf("%s: exit %d, want %d\n%s", where, code, s.exit, tail(out))
		}
		rest := out
		for _, w := range s.want {
			if w == "…" || w == "" {
				continue
			}
			loc := lineMatcher(w).FindStringIndex(rest)
			if loc == nil {
				t.Fatalf("%s: the output lacks (in order) %q\n%s", where, w, tail(out))
			}
			rest = rest[loc[1]:]
		}
	}
}

// lineMatcher matches one whole output line as the page shows it, a "…" inside the line standing
// for any text (a count that changes whenever a built-in file is added, say).
func lineMatcher(w string) *regexp.Regexp {
	parts := strings.Split(w, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?m)^` + strings.Join(parts, ".*") + `$`)
}

// tail is the end of a long output, for a failure message.
func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

// TestStudyWalkthrough runs docs/study.md: every command it shows, with the exit code and the
// output lines the page shows (the numbers it states about the study), and checks that every
// carrier it quotes is, byte for byte, the carrier of the record it names.
func TestStudyWalkthrough(t *testing.T) {
	checkQuotedCarriers(t, "study.md", 9)
	runWalkthrough(t, "study.md", 8)
}

// checkQuotedCarriers checks a page under docs/ that quotes at least min carriers: a
// "<!-- carrier: FILE:LINE -->" line followed by a fenced block of one line, which must be the
// bytes of the carrier member of the record at that line of FILE (relative to the repository
// root).
func checkQuotedCarriers(t *testing.T, page string, min int) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	n := 0
	for i, line := range lines {
		ref, ok := strings.CutPrefix(line, "<!-- carrier: ")
		if !ok {
			continue
		}
		ref = strings.TrimSuffix(ref, " -->")
		where := fmt.Sprintf("docs/%s:%d", page, i+1)
		if i+3 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") || lines[i+3] != "```" {
			t.Fatalf("%s: the carrier of %s is not one line in a fenced block after the marker", where, ref)
		}
		file, num, ok := strings.Cut(ref, ":")
		lineNo, err := strconv.Atoi(num)
		if !ok || err != nil || lineNo < 1 {
			t.Fatalf("%s: %q is not FILE:LINE", where, ref)
		}
		records, err := os.ReadFile(filepath.Join("..", "..", file))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		recs := strings.Split(string(records), "\n")
		if lineNo > len(recs) {
			t.Fatalf("%s: %s has %d lines", where, file, len(recs))
		}
		var rec struct {
			Carrier json.RawMessage `json:"carrier"`
		}
		if err := json.Unmarshal([]byte(recs[lineNo-1]), &rec); err != nil {
			t.Fatalf("%s: %s: %v", where, ref, err)
		}
		if string(rec.Carrier) != lines[i+2] {
			t.Errorf("%s: the quoted carrier is not the carrier of %s:\nquoted:  %s\nrecord:  %s", where, ref, lines[i+2], rec.Carrier)
		}
		n++
	}
	if n < min {
		t.Fatalf("docs/%s quotes %d carriers, want at least %d: the page's markers are off", page, n, min)
	}
}
