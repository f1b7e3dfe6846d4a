package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// ciCommand is one `contractcheck …` command of a CI file, and whether the file runs it whatever
// the commands before it said (GitHub's `if: always()`, GitLab's after_script).
type ciCommand struct {
	line   int
	args   []string
	always bool
}

// ciCommands extracts the contractcheck commands of a workflow file, in order: each `run:` value or
// script list item that starts with "contractcheck ". The CI files keep each command on one line
// and use no shell syntax in them, so the fields are the arguments.
func ciCommands(t *testing.T, file string) []ciCommand {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cmdLine := regexp.MustCompile(`^\s*(?:-\s+(?:run:\s+)?|run:\s+)contractcheck (.*)$`)
	var out []ciCommand
	always, afterScript := false, false
	for i, l := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(trimmed, "- name:") || strings.HasPrefix(trimmed, "- uses:"):
			always = false // a new GitHub step
		case strings.HasPrefix(trimmed, "if: always()"):
			always = true
		case strings.HasSuffix(trimmed, ":") && !strings.HasPrefix(l, "    "):
			afterScript = trimmed == "after_script:" // a GitLab job's key
		}
		m := cmdLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if strings.ContainsAny(m[1], "$|&;<>`\"'\\") {
			t.Fatalf("%s:%d: the command uses shell syntax this test does not run: %s", file, i+1, m[1])
		}
		out = append(out, ciCommand{line: i + 1, args: strings.Fields(m[1]), always: always || afterScript})
	}
	return out
}

// TestCIExamples runs the CI examples of docs/ci.md: the page holds examples/ci/*.yml verbatim,
// and every contractcheck command of each file runs, in order, in a repository laid out as the
// page says (a layer from init, records under captures/, a committed lock). On the records as
// captured the job passes and writes its reports; after a record changes without a new lock every
// gate refuses it (exit 2, naming the file); after it is locked, the gate fails (exit 1) at the
// record's line, the steps that always run still write their reports, and the job stops where CI
// would stop it.
func TestCIExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	schemaFile := filepath.Join(root, "internal", "report", "testdata", "sarif", "sarif-schema-2.1.0.json")
	records, err := os.ReadFile(filepath.Join(root, "fixtures", "observations", "direct", "v1", "default.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"github-workflow.yml", "gitlab-ci.yml"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(root, "examples", "ci", file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(page), "```yaml\n"+string(data)+"```\n") {
				t.Errorf("docs/ci.md does not show examples/ci/%s as it is", file)
			}
			if !strings.Contains(string(data), "go install github.com/contractcheck/contractcheck/cmd/contractcheck@${CONTRACTCHECK_VERSION}") {
				t.Errorf("%s does not install the checker with go install at a pinned version", file)
			}
			cmds := ciCommands(t, path)
			var shape []string
			for _, c := range cmds {
				s := c.args[0]
				if c.always {
					s += " (always)"
				}
				shape = append(shape, s)
			}
			want := map[string]string{"github-workflow.yml": "test check check (always) check (always)", "gitlab-ci.yml": "test check check (always)"}[file]
			if strings.Join(shape, " ") != want {
				t.Fatalf("%s: commands %q, want %q", file, shape, want)
			}

			t.Chdir(t.TempDir())
			initLayer(t, "contractcheck")
			capture := filepath.Join("captures", "direct", "v1", "default.jsonl")
			testkit.WriteFile(t, capture, string(records))
			lock := []string{"lock", "--contracts", "contractcheck", "--policies", "contractcheck", "--observations", "captures"}
			if code, _, stderr := cli(t, lock...); code != 0 {
				t.Fatalf("lock: %s", stderr)
			}

			// run runs the commands as CI would: in order, a failing one stops all but those that
			// always run. It returns each command's exit code and output (-1: not run).
			type ran struct {
				code           int
				stdout, stderr string
			}
			run := func() []ran {
				out := make([]ran, len(cmds))
				failed := false
				for i, c := range cmds {
					if failed && !c.always {
						out[i] = ran{code: -1}
						continue
					}
					code, stdout, stderr := cli(t, c.args...)
					out[i] = ran{code, stdout, stderr}
					if code != 0 && !c.always {
						failed = true
					}
				}
				return out
			}
			isCheck := func(c ciCommand) bool { return c.args[0] == "check" }
			output := func(c ciCommand) string {
				for i, a := range c.args {
					if a == "--output" && i+1 < len(c.args) {
						return c.args[i+1]
					}
				}
				return ""
			}

			// The records as captured: the job passes and writes every report.
			for i, r := range run() {
				c := cmds[i]
				if r.code != 0 {
					t.Fatalf("%s:%d: contractcheck %s: exit %d\n%s%s", file, c.line, strings.Join(c.args, " "), r.code, r.stdout, r.stderr)
				}
				if o := output(c); o != "" {
					checkCIReport(t, schemaFile, o, "profile contractcheck satisfied")
					if !strings.Contains(r.stderr, "report written to "+o) {
						t.Errorf("%s:%d: the verdict is not on stderr: %q", file, c.line, r.stderr)
					}
				}
			}

			// A record changed and not locked: every gate refuses to run, naming the file.
			data, err = os.ReadFile(capture)
			if err != nil {
				t.Fatal(err)
			}
			changed := strings.ReplaceAll(string(data), "manifests/NWF-4471-KX.pdf", "manifests/NWF-4471-KY.pdf")
			if changed == string(data) {
				t.Fatal("the records no longer hold the link this test changes")
			}
			testkit.WriteFile(t, capture, changed)
			for i, r := range run() {
				c := cmds[i]
				if isCheck(c) && r.code != -1 && (r.code != 2 || !strings.Contains(r.stderr, "changed      "+filepath.ToSlash(capture)+" (record)")) {
					t.Errorf("%s:%d: after a record changed without a lock: exit %d, want 2 naming it\n%s", file, c.line, r.code, r.stderr)
				}
			}

			// Locked: the gate fails at the record; the reports that always run are written.
			for _, o := range []string{"contractcheck-report.json", "contractcheck.sarif", "contractcheck-junit.xml"} {
				os.Remove(o)
			}
			if code, _, stderr := cli(t, lock...); code != 0 {
				t.Fatalf("lock: %s", stderr)
			}
			gated := false
			for i, r := range run() {
				c := cmds[i]
				if !isCheck(c) {
					continue
				}
				if r.code == -1 {
					t.Errorf("%s:%d: a check CI would run did not run", file, c.line)
					continue
				}
				if r.code != 1 {
					t.Errorf("%s:%d: contractcheck %s: exit %d, want 1 (a required contract unmet)\n%s", file, c.line, strings.Join(c.args, " "), r.code, r.stderr)
				}
				if o := output(c); o != "" {
					checkCIReport(t, schemaFile, o, "profile contractcheck NOT satisfied")
				}
				if strings.Contains(strings.Join(c.args, " "), "--format github") {
					gated = true
					want := "::error file=" + filepath.ToSlash(capture) + ",line=45,"
					if !strings.Contains(r.stdout, want) {
						t.Errorf("%s:%d: no annotation %q\n%s", file, c.line, want, r.stdout)
					}
				}
				if strings.Contains(strings.Join(c.args, " "), "--format junit") {
					gated = true
				}
			}
			if !gated {
				t.Errorf("%s gates on no format a CI shows (github, junit)", file)
			}
		})
	}
}

// checkCIReport checks a report a CI step wrote: the JSON report's verdict, a SARIF log valid
// against SARIF 2.1.0, a JUnit document with the XSD's root; each saying what the gate said.
func checkCIReport(t *testing.T, schemaFile, path, verdict string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("the step did not write %s: %v", path, err)
		return
	}
	satisfied := !strings.Contains(verdict, "NOT")
	switch filepath.Ext(path) {
	case ".json":
		var r struct {
			ReportVersion int `json:"reportVersion"`
			Gate          struct {
				Satisfied bool `json:"satisfied"`
			} `json:"gate"`
		}
		if err := json.Unmarshal(data, &r); err != nil || r.ReportVersion != result.Version || r.Gate.Satisfied != satisfied {
			t.Errorf("%s: reportVersion %d, satisfied %v, want %d, %v (%v)", path, r.ReportVersion, r.Gate.Satisfied, result.Version, satisfied, err)
		}
	case ".sarif":
		if err := testkit.SARIFSchemaError(t, schemaFile, data); err != nil {
			t.Errorf("the SARIF output is not valid SARIF 2.1.0: %v", err)
		}
		if !satisfied && !strings.Contains(string(data), `"level": "error"`) {
			t.Errorf("%s: no error result", path)
		}
	case ".xml":
		var doc struct {
			XMLName  xml.Name
			Failures int `xml:"failures,attr"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil || doc.XMLName.Local != "testsuites" || (doc.Failures > 0) == satisfied {
			t.Errorf("%s: root %s, %d failures (%v)", path, doc.XMLName.Local, doc.Failures, err)
		}
	default:
		t.Errorf("%s: a report this test does not know", path)
	}
}
