package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// cli runs the command line as a user would and returns the exit code and both streams.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// cliOK runs the command line as cli does, ends the test unless it exits 0 (the command line and
// both streams in the message), and returns both streams.
func cliOK(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := cli(t, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout, stderr
}

// builtinCopy copies a built-in directory (contracts, policies or fixtures) into a temporary
// directory the test may corrupt, and returns its path.
func builtinCopy(t *testing.T, name string) string {
	t.Helper()
	sub, err := fs.Sub(contractcheck.Builtin, name)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, sub); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCheckBuiltinGolden keeps the built-in check's text, the summary and the details, what the
// goldens hold; the summary is what a CI log shows, so it stays short and within 120 columns.
func TestCheckBuiltinGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		golden string
	}{
		{name: "summary", args: []string{"check"}, golden: "check.golden"},
		{name: "details", args: []string{"check", "--details"}, golden: "check-details.golden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _ := cliOK(t, tc.args...)
			if !testkit.Golden(t, filepath.Join("testdata", tc.golden), []byte(stdout), *update) {
				t.Logf("check output:\n%s", stdout)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if tc.name == "summary" && len(lines) > 150 {
				t.Errorf("the summary is %d lines, more than 150", len(lines))
			}
			for i, l := range lines {
				if n := escape.Width(l); n > 120 {
					t.Errorf("line %d is %d columns wide, more than 120: %q", i+1, n, l)
				}
			}
		})
	}
}

// validRecord returns the first direct-lane record of fixture C01, which the tests then corrupt.
func validRecord(t *testing.T) string {
	t.Helper()
	data, err := fs.ReadFile(contractcheck.Builtin, "fixtures/observations/direct/v1/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

// builtinLine returns the first line of a built-in file that holds every one of subs.
func builtinLine(t *testing.T, file string, subs ...string) string {
	t.Helper()
	data, err := fs.ReadFile(contractcheck.Builtin, file)
	if err != nil {
		t.Fatal(err)
	}
lines:
	for _, l := range strings.Split(string(data), "\n") {
		for _, sub := range subs {
			if !strings.Contains(l, sub) {
				continue lines
			}
		}
		return l
	}
	t.Fatalf("no line of %s holds %q", file, subs)
	return ""
}

func TestInputErrors(t *testing.T) {
	t.Parallel()
	rec := validRecord(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) []string // returns the extra arguments
		want  []string                                // every string must appear in stderr
	}{
		{
			name: "malformed JSON record",
			setup: func(t *testing.T, dir string) []string {
				testkit.WriteFile(t, filepath.Join(dir, "obs", "x.jsonl"), rec+"\n{\"fixture\": \"C01\",\n")
				return []string{"--observations", filepath.Join(dir, "obs")}
			},
			want: []string{"obs/x.jsonl:2:", "unexpected end"},
		},
		{
			name: "duplicate key in a record",
			setup: func(t *testing.T, dir string) []string {
				testkit.WriteFile(t, filepath.Join(dir, "obs", "x.jsonl"), strings.Replace(rec, `"stage":"D1"`, `"stage":"D1","stage":"A2"`, 1)+"\n")
				return []string{"--observations", filepath.Join(dir, "obs")}
			},
			want: []string{"obs/x.jsonl:1:", `duplicate key "stage"`},
		},
		{
			name: "record whose sourceSha256 does not match",
			setup: func(t *testing.T, dir string) []string {
				testkit.WriteFile(t, filepath.Join(dir, "obs", "x.jsonl"), replaceSha(rec)+"\n")
				return []string{"--observations", filepath.Join(dir, "obs")}
			},
			want: []string{"obs/x.jsonl:1:", "/sourceSha256", "does not match fixture C01"},
		},
		{
			name: "unknown lane",
			setup: func(t *testing.T, dir string) []string {
				testkit.WriteFile(t, filepath.Join(dir, "obs", "x.jsonl"), strings.Replace(rec, `"lane":"direct"`, `"lane":"nope"`, 1)+"\n")
				return []string{"--observations", filepath.Join(dir, "obs")}
			},
			want: []string{"obs/x.jsonl:1:", `/lane: unknown lane "nope"`},
		},
		{
			name: "unknown stage",
			setup: func(t *testing.T, dir string) []string {
				testkit.WriteFile(t, filepath.Join(dir, "obs", "x.jsonl"), strings.Replace(rec, `"stage":"D1"`, `"stage":"Z9"`, 1)+"\n")
				return []string{"--observations", filepath.Join(dir, "obs")}
			},
			want: []string{"obs/x.jsonl:1:", "/stage"},
		},
		{
			name: "schema-invalid record: captured without a carrier",
			setup: func(t *testing.T, dir string) []string {
				i, j := strings.Index(rec, `"carrier":`), strings.Index(rec, `,"sourceSha256"`)
				testkit.WriteFile(t, filepath.Join(dir, "obs", "x.jsonl"), rec[:i]+rec[j+1:]+"\n")
				return []string{"--observations", filepath.Join(dir, "obs")}
			},
			want: []string{"obs/x.jsonl:1", "carrier"},
		},
		{
			name: "schema-invalid source",
			setup: func(t *testing.T, dir string) []string {
				testkit.WriteFile(t, filepath.Join(dir, "contracts", "u01.cue"), "package contracts\n\nfixtures: U01: {suite: \"mine\", family: \"rich\", revision: \"2025-11-25\", tasks: [\"T4\"], doc: \"An image.\", targets: []}\n")
				testkit.WriteFile(t, filepath.Join(dir, "fixtures", "sources", "mine", "U01.json"),
					`{"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]}`)

				return []string{"--contracts", filepath.Join(dir, "contracts"), "--fixtures", filepath.Join(dir, "fixtures")}
			},
			want: []string{"fixtures/sources/mine/U01.json", "/content/0/data"},
		},
		{
			name: "CUE syntax error",
			setup: func(t *testing.T, dir string) []string {
				c := filepath.Join(dir, "contracts")
				testkit.WriteFile(t, filepath.Join(c, "broken.cue"), "package contracts\n\nlanes: {\n")
				return []string{"--contracts", c}
			},
			want: []string{"contracts/broken.cue:3:10", "expected '}'"},
		},
		{
			name: "Rego syntax error",
			setup: func(t *testing.T, dir string) []string {
				p := filepath.Join(dir, "policies")
				testkit.WriteFile(t, filepath.Join(p, "broken.rego"), "package broken\n\nx if {\n")
				return []string{"--policies", p}
			},
			want: []string{"policies/broken.rego:4", "rego_parse_error"},
		},
		{
			name: "carrier that violates its stage's carrier schema",
			setup: func(t *testing.T, dir string) []string {
				h4 := builtinLine(t, "fixtures/observations/openai-agents/0.22.0/default.jsonl", `"stage":"H4"`, `"type":"function_call_output"`)
				bad := strings.Replace(h4, `"type":"function_call_output"`, `"type":"function_call"`, 1)
				testkit.WriteFile(t, filepath.Join(dir, "obs", "x.jsonl"), bad+"\n")
				return []string{"--observations", filepath.Join(dir, "obs")}
			},
			want: []string{"obs/x.jsonl:1:", "/carrier/type", "(carrier schema carriers/", ".stages.H4.carrier)"},
		},
		{
			name: "adk-go A2 record whose carrier is unrelated",
			setup: func(t *testing.T, dir string) []string {
				a2 := builtinLine(t, "fixtures/observations/adk-go/v1.7.0/default.jsonl", `"stage":"A2"`, `"state":"captured"`)
				i, j := strings.Index(a2, `"carrier":`), strings.Index(a2, `,"sourceSha256"`)
				if i < 0 || j < i {
					t.Fatal("the adk-go A2 record has no carrier before its sourceSha256")
				}
				testkit.WriteFile(t, filepath.Join(dir, "obs", "x.jsonl"), a2[:i]+`"carrier":{"completely":"unrelated"}`+a2[j:]+"\n")
				return []string{"--observations", filepath.Join(dir, "obs")}
			},
			want: []string{"obs/x.jsonl:1: /carrier:", "'completely' not allowed"},
		},
		{
			name: "a lane stage naming a carrier schema that is not there",
			setup: func(t *testing.T, dir string) []string {
				c := filepath.Join(dir, "contracts")
				testkit.WriteFile(t, filepath.Join(c, "mine.cue"), ownLane("mine", `{
			exposure: "observed"
			doc:      "The request."
			carrier:  "carriers/missing.schema.json"
			compartments: {}
			unbound: {content: "none", error: "none", meta: "none", structured: "none"}
		}`))

				return []string{"--contracts", c}
			},
			want: []string{"contracts/mine.cue:15:4: lanes.mine.stages.H4.carrier:", "missing.schema.json"},
		},
		{
			name:  "unknown profile",
			setup: func(t *testing.T, dir string) []string { return []string{"--profile", "nope"} },
			want:  []string{`unknown profile "nope"`},
		},
		{
			name:  "unknown format",
			setup: func(t *testing.T, dir string) []string { return []string{"--format", "yaml"} },
			want:  []string{`unknown format "yaml"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cliCase{args: tc.setup(t, t.TempDir()), code: 2, inStderr: tc.want}.run(t, "check")
		})
	}
}

// replaceSha changes one hex digit of the record's sourceSha256.
func replaceSha(rec string) string {
	i := strings.Index(rec, `"sourceSha256":"`) + len(`"sourceSha256":"`)
	c := "0"
	if rec[i] == '0' {
		c = "1"
	}
	return rec[:i] + c + rec[i+1:]
}

// draftLayer is a user layer of a draft revision whose results hold no top-level content
// (outputs, each for an audience in a format), its schema.json carrying a urn $id: schemas/ holds
// mcp/DRAFT-2026-12-01/, fixtures/ four sources of it that no catalogue entry names.
const draftLayer = "testdata/draft-outputs"

func TestValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	testkit.WriteFile(t, good, `{"content": [{"type": "text", "text": "ok"}], "isError": false}`)
	testkit.WriteFile(t, bad, `{"content": [{"type": "resource_link", "uri": "not a uri", "name": "x"}]}`)
	runCases(t, false, []cliCase{
		{name: "every catalogued source", args: []string{"validate"}, code: 0, inStdout: []string{"ok builtin:fixtures/sources/extended/X04.json (2025-11-25, error response)"}},
		{name: "a valid file", args: []string{"validate", good}, code: 0, inStdout: []string{"ok " + good + " (2025-11-25, result)"}},
		{name: "an invalid uri names the pointer", args: []string{"validate", bad}, code: 2, inStderr: []string{bad + ": /content/0/uri"}},
		{name: "array structuredContent needs 2026-07-28", args: []string{"validate", "--revision", "2025-11-25", "../../fixtures/sources/extended/X01.json"}, code: 2, inStderr: []string{"/structuredContent"}},
		{name: "the same file at its own revision", args: []string{"validate", "--revision", "2026-07-28", "../../fixtures/sources/extended/X01.json"}, code: 0},
		{name: "a layer's revision finds the layer's sources no catalogue entry names", args: []string{"validate", "--schemas", draftLayer + "/schemas", "--fixtures", draftLayer + "/fixtures", "--revision", "DRAFT-2026-12-01"}, code: 0,
			inStdout: []string{"ok " + draftLayer + "/fixtures/sources/drafts/D01.json (DRAFT-2026-12-01, result)\n" +
				"ok " + draftLayer + "/fixtures/sources/drafts/D02.json (DRAFT-2026-12-01, result)\n" +
				"ok " + draftLayer + "/fixtures/sources/drafts/D03.json (DRAFT-2026-12-01, result)\n" +
				"ok " + draftLayer + "/fixtures/sources/drafts/D04.json (DRAFT-2026-12-01, result response)\n"}},
		{name: "without --revision they are read at the pinned one, not skipped", args: []string{"validate", "--schemas", draftLayer + "/schemas", "--fixtures", draftLayer + "/fixtures"}, code: 2,
			inStderr: []string{"contractcheck: fixture D04 (no catalogue entry): " + draftLayer + "/fixtures/sources/drafts/D04.json: /result: missing property 'content'\ncontractcheck: 4 of 50 sources are invalid"}},
		{name: "a revision nothing has", args: []string{"validate", "--schemas", draftLayer + "/schemas", "--revision", "DRAFT-2026-12-01"}, code: 2,
			inStderr: []string{"contractcheck: --revision DRAFT-2026-12-01: no catalogued source has this revision, and no fixture layer holds a source without a catalogue entry (looked in builtin:fixtures/sources): nothing to validate"}},
	})
}

func TestRegoTestVerb(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := cli(t, "test")
	if code != 0 || !strings.Contains(stdout, " passed, 0 failed") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	p := filepath.Join(t.TempDir(), "policies")
	testkit.WriteFile(t, filepath.Join(p, "failing_test.rego"), "package failing_test\n\ntest_fails if {\n\t1 == 2\n}\n")
	code, stdout, _ = cli(t, "test", "--policies", p)
	if code != 1 || !strings.Contains(stdout, "FAIL failing_test.test_fails") || strings.Contains(stdout, "contractcheck.tasks") {
		t.Errorf("a failing Rego test in a layer: exit %d, want 1 and only the layer's tests\n%s", code, stdout)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	rec := validRecord(t) // C01 at D1, repetition 1
	rep := func(n int, r string) string {
		return strings.Replace(r, `"repetition":1`, fmt.Sprintf(`"repetition":%d`, n), 1)
	}
	altered := strings.Replace(rec, `"text":"Shipment`, `"text":"Parcel`, 1)
	if altered == rec {
		t.Fatal("the C01 record no longer holds the text this test alters")
	}
	tests := []struct {
		name    string
		records []string
		code    int
		stdout  string
	}{
		{name: "agreeing repetitions of the control pass", records: []string{rep(1, rec), rep(2, rec), rep(3, rec)}, code: 0, stdout: "gate: profile strict satisfied"},
		{name: "a repetition that disagrees is unstable: the instrument failed", records: []string{rep(1, rec), rep(2, altered), rep(3, rec)}, code: 3, stdout: "gate: the instrument failed (1 unstable bindings)"},
		{name: "an unmet control is a required contract unmet", records: []string{rep(1, altered)}, code: 1, stdout: "gate: profile strict NOT satisfied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := filepath.Join(t.TempDir(), "obs")
			testkit.WriteFile(t, filepath.Join(obs, "direct.jsonl"), strings.Join(tc.records, "\n")+"\n")
			code, stdout, stderr := cli(t, "check", "--observations", obs)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) {
				t.Errorf("exit %d (want %d), stdout lacks %q:\n%s\n%s", code, tc.code, tc.stdout, stdout, stderr)
			}
		})
	}
}

// TestReadmeFindings keeps the README's findings table what the tool prints: it is produced, not
// typed.
func TestReadmeFindings(t *testing.T) {
	t.Parallel()
	stdout, _ := cliOK(t, "check", "--format", "markdown")
	const begin, end = "<!-- findings:begin -->\n", "<!-- findings:end -->"
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatal("README.md has no findings block")
	}
	if *update {
		s = s[:i+len(begin)] + stdout + s[j:]
		testkit.WriteFile(t, "../../README.md", s)
	}
	if got := s[i+len(begin) : strings.Index(s, end)]; got != stdout {
		t.Errorf("README findings differ from `check --format markdown` (go test ./cmd/contractcheck -run Readme -update):\n%s", stdout)
	}
}

// TestGroupVerbAlone: a verb that only groups others (capture, inspect), run without one of them,
// is a usage error (exit 2) saying what to name; with an argument, cobra refuses it alike.
func TestGroupVerbAlone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "capture", args: []string{"capture"}, want: "capture: name the lane (contractcheck capture direct)"},
		{name: "inspect", args: []string{"inspect"}, want: "inspect: name what to inspect (contractcheck inspect fixture ID"},
		{name: "inspect with an unknown subcommand", args: []string{"inspect", "nothing"}, want: `unknown command "nothing" for "contractcheck inspect"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}
