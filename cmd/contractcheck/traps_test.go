package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestMain lets a test run the command line in a child process (see runChild): a child is needed
// where the process itself is the subject (its time zone, its file size limit) or where a trap
// leaves work running that only the end of the process stops (CUE evaluation cannot be cancelled).

// child says how a trap's command line runs in a child process.
type child struct {
	env    []string // added to the environment
	ulimit int      // with a file size limit (ulimit -f), when > 0
}

// runChild runs the command line in a child process, killed after a minute: a hang fails.
func runChild(t *testing.T, c *child, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if c.ulimit > 0 {
		cmd = exec.CommandContext(ctx, "sh", append([]string{"-c", fmt.Sprintf(`ulimit -f %d; exec "$0" "$@"`, c.ulimit), os.Args[0]}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, os.Args[0], args...)
	}
	cmd.Env = append(append(os.Environ(), "CONTRACTCHECK_TEST_CHILD=1"), c.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("hung: killed after a minute\n%s", stderr.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// trapEnv is what a trap's setup gets: a scratch directory, and an --output file and a suite
// directory that hold a previous run's output, which no failing run may touch but a check whose
// instrument failed, which writes its report naming the failure to --output.
type trapEnv struct {
	dir, out, suite string
}

const previousReport = "the previous report\n"

// secret is what a file outside an input directory holds; no message may echo it.
const secret = "root:x:0:0:s3cr3t-do-not-echo:/root:/bin/bash"

// TestTraps is the bad-input corpus as a table: every kind of bad input, hostile program and
// unsafe output the checker was probed with. Each gives its documented exit code and a message
// naming the file and the position (line:col, a JSON pointer, or the policy or contract file);
// none echoes a file's contents beyond the offending token, none panics or hangs, and none
// touches a file: not the previous --output file or suite, not an input; only a run whose
// instrument failed (exit 3) replaces its --output file, with a report naming the failure.
func TestTraps(t *testing.T) {
	t.Parallel()
	rec := validRecord(t) // C01, direct, D1, repetition 1
	obsWith := func(t *testing.T, e trapEnv, lines ...string) string {
		testkit.WriteFile(t, filepath.Join(e.dir, "obs", "x.jsonl"), strings.Join(lines, "\n")+"\n")
		return filepath.Join(e.dir, "obs")
	}
	// withStructured gives C01's carrier a structured slot holding num.
	withStructured := func(num string) string {
		return strings.Replace(rec, `"carrier":{"content":`, `"carrier":{"structuredContent":{"n":`+num+`},"content":`, 1)
	}
	// policiesWith is a policy layer holding one file, beside the built-in policies.
	policiesWith := func(t *testing.T, file, src string) string {
		p := filepath.Join(t.TempDir(), "policies")
		testkit.WriteFile(t, filepath.Join(p, file), src)
		return p
	}
	// trapTask is a layer adding task T9 on C01, whose policy trap.t9 adds rule to a rule that
	// passes: the arguments that load it.
	trapTask := func(t *testing.T, rule string) []string {
		dir := t.TempDir()
		testkit.WriteFile(t, filepath.Join(dir, "contracts", "t9.cue"), "package contracts\n\ntasks: T9: {doc: \"A trap.\", role: \"guard\", policy: \"trap.t9\", compartment: \"content\", atoms: [\"block.count\"], appliesTo: fixtures: [\"C01\"]}\n")
		testkit.WriteFile(t, filepath.Join(dir, "policies", "t9.rego"), "package trap.t9\n\nreadout := {}\n\n"+rule)
		return []string{"--contracts", filepath.Join(dir, "contracts"), "--policies", filepath.Join(dir, "policies")}
	}
	// userFixture is a contracts layer adding fixture U01 of suite mine, and the fixtures layer
	// whose sources/mine/U01.json setup makes.
	userFixture := func(t *testing.T, setup func(src string)) []string {
		dir := t.TempDir()
		testkit.WriteFile(t, filepath.Join(dir, "contracts", "u01.cue"), "package contracts\n\nfixtures: U01: {suite: \"mine\", family: \"rich\", revision: \"2025-11-25\", tasks: [\"T4\"], doc: \"A user's fixture.\", targets: []}\n")
		setup(filepath.Join(dir, "fixtures", "sources", "mine", "U01.json"))
		return []string{"--contracts", filepath.Join(dir, "contracts"), "--fixtures", filepath.Join(dir, "fixtures")}
	}
	fifo := func(t *testing.T, p string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifoTrap := func(t *testing.T, p string) { fifo(t, p) }
	outsideSecret := func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "passwd")
		testkit.WriteFile(t, p, secret+"\n")
		return p
	}
	link := func(t *testing.T, target, p string) {
		os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	// leak makes p a symbolic link to a secret file outside every input directory.
	leak := func(t *testing.T, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		link(t, outsideSecret(t), p)
	}
	// layerWith is a layer directory named kind (policies, contracts) whose one file, name, trap
	// makes (leak, fifo).
	layerWith := func(t *testing.T, kind, name string, trap func(t *testing.T, p string)) string {
		dir := filepath.Join(t.TempDir(), kind)
		trap(t, filepath.Join(dir, name))
		return dir
	}
	mutateArgs := func(e trapEnv, more ...string) []string {
		return append([]string{"mutate", "--fixture", "C12", "--lane", "direct", "--stage", "A2", "--output", e.suite}, more...)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, e trapEnv) []string
		code  int
		want  string // a regular expression stderr must match
		child *child // run in a child process
	}{
		// Bad JSON in an observation record: file:line:col.
		{name: "record: truncated", code: 2, want: `obs/x\.jsonl:2:\d+: .*unexpected end of input`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, rec, `{"fixture": "C01",`), "--output", e.out}
			}},
		{name: "record: duplicate key", code: 2, want: `obs/x\.jsonl:1:\d+: duplicate key "stage" \(first occurrence at 1:\d+\)`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, strings.Replace(rec, `"stage":"D1"`, `"stage":"D1","stage":"A2"`, 1)), "--output", e.out}
			}},
		{name: "record: invalid UTF-8 in a string", code: 2, want: `obs/x\.jsonl:1:\d+: invalid UTF-8 byte 0xff in string`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, strings.Replace(rec, "Shipment", "Ship\xffment", 1)), "--output", e.out}
			}},
		{name: "record: byte order mark", code: 2, want: `obs/x\.jsonl:1:1: byte order mark`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, "\ufeff"+rec), "--output", e.out}
			}},
		{name: "record: unpaired surrogate escape", code: 2, want: `obs/x\.jsonl:1:\d+: unpaired surrogate escape \\ud800`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, strings.Replace(rec, "Shipment", `Ship\ud800ment`, 1)), "--output", e.out}
			}},
		{name: "record: leading zero", code: 2, want: `obs/x\.jsonl:1:\d+: invalid number: leading zeros`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, withStructured("007")), "--output", e.out}
			}},
		{name: "record: control character in a string", code: 2, want: `obs/x\.jsonl:1:\d+: control character U\+0001 in string must be escaped`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, strings.Replace(rec, "Shipment", "Ship\x01ment", 1)), "--output", e.out}
			}},
		{name: "record: nesting deeper than the limit", code: 2, want: `obs/x\.jsonl:1:\d+: nesting deeper than the limit of 256`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, withStructured(strings.Repeat("[", 300)+strings.Repeat("]", 300))), "--output", e.out}
			}},
		{name: "record: 0. and a million zeros and 1 (illegal value in OPA)", code: 2, want: `obs/x\.jsonl:1:\d+: number exceeds the limit of 4300 digits here`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, withStructured("0."+strings.Repeat("0", 1000000)+"1")), "--output", e.out}
			}},
		{name: "record: a million-digit integer (15 s in OPA)", code: 2, want: `obs/x\.jsonl:1:\d+: number exceeds the limit of 4300 digits here`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, withStructured("1"+strings.Repeat("0", 1000000))), "--output", e.out}
			}},
		{name: "record: exponent beyond the limit", code: 2, want: `obs/x\.jsonl:1:\d+: number exponent 10001 is beyond the limit`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, withStructured("1e10001")), "--output", e.out}
			}},
		{name: "record: line over 16 MiB", code: 2, want: `obs/x\.jsonl:2:1: line 2 is \d+ bytes, over the limit of 16777216 bytes`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, rec, `"`+strings.Repeat("x", 16<<20)+`"`), "--output", e.out}
			}},
		// Valid JSON, invalid record: file:line and a JSON pointer.
		{name: "record: captured without a carrier", code: 2, want: `obs/x\.jsonl:1: .*carrier`,
			setup: func(t *testing.T, e trapEnv) []string {
				i, j := strings.Index(rec, `"carrier":`), strings.Index(rec, `,"sourceSha256"`)
				return []string{"check", "--observations", obsWith(t, e, rec[:i]+rec[j+1:]), "--output", e.out}
			}},
		{name: "record: unknown lane", code: 2, want: `obs/x\.jsonl:1: /lane: unknown lane "nope"`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, strings.Replace(rec, `"lane":"direct"`, `"lane":"nope"`, 1)), "--output", e.out}
			}},
		{name: "record: source hash mismatch", code: 2, want: `obs/x\.jsonl:1: /sourceSha256: .* does not match fixture C01`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--observations", obsWith(t, e, replaceSha(rec)), "--output", e.out}
			}},
		{name: "records: a named pipe", code: 2, want: `obs/x\.jsonl: not a regular file \(a named pipe\)`,
			setup: func(t *testing.T, e trapEnv) []string {
				fifo(t, filepath.Join(e.dir, "obs", "x.jsonl"))
				return []string{"check", "--observations", filepath.Join(e.dir, "obs"), "--output", e.out}
			}},
		{name: "records: a link out of the directory", code: 2, want: `x\.jsonl: a symbolic link or '\.\.' leads outside the input directory`,
			setup: func(t *testing.T, e trapEnv) []string {
				obs := obsWith(t, e, rec)
				leak(t, filepath.Join(obs, "x.jsonl"))
				return []string{"check", "--observations", obs, "--output", e.out}
			}},
		// Sources.
		{name: "validate: schema-invalid source", code: 2, want: `bad\.json: /content/0/uri`,
			setup: func(t *testing.T, e trapEnv) []string {
				p := filepath.Join(e.dir, "bad.json")
				testkit.WriteFile(t, p, `{"content": [{"type": "resource_link", "uri": "not a uri", "name": "x"}]}`)
				return []string{"validate", p}
			}},
		{name: "validate: /dev/zero", code: 2, want: `/dev/zero: not a regular file \(a character device\)`,
			setup: func(t *testing.T, e trapEnv) []string { return []string{"validate", "/dev/zero"} }},
		{name: "validate: a named pipe", code: 2, want: `pipe\.json: not a regular file \(a named pipe\)`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"validate", fifo(t, filepath.Join(e.dir, "pipe.json"))}
			}},
		{name: "validate: a directory", code: 2, want: `not a regular file \(a directory\)`,
			setup: func(t *testing.T, e trapEnv) []string { return []string{"validate", e.dir} }},
		{name: "validate: a source over 16 MiB", code: 2, want: `big\.json: file is \d+ bytes, over the limit of 16777216 bytes`,
			setup: func(t *testing.T, e trapEnv) []string {
				p := filepath.Join(e.dir, "big.json")
				testkit.WriteFile(t, p, `{"content": [], "pad": "`+strings.Repeat("x", 16<<20)+`"}`)
				return []string{"validate", p}
			}},
		{name: "validate: unknown revision, no files", code: 2, want: `--revision: unknown MCP revision "2099-01-01": no schema layer holds`,
			setup: func(t *testing.T, e trapEnv) []string { return []string{"validate", "--revision", "2099-01-01"} }},
		{name: "validate: unknown revision, a file", code: 2, want: `--revision: unknown MCP revision "2099-01-01": no schema layer holds`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"validate", "--revision", "2099-01-01", "../../fixtures/sources/paper/C01.json"}
			}},
		{name: "fixtures: source linked out of the directory", code: 2, want: `sources/mine/U01\.json: a symbolic link or '\.\.' leads outside`,
			setup: func(t *testing.T, e trapEnv) []string {
				args := userFixture(t, func(src string) { leak(t, src) })
				return append([]string{"check", "--output", e.out}, args...)
			}},
		{name: "fixtures: source is a named pipe", code: 2, want: `sources/mine/U01\.json: not a regular file \(a named pipe\)`,
			setup: func(t *testing.T, e trapEnv) []string {
				args := userFixture(t, func(src string) { fifo(t, src) })
				return append([]string{"check", "--output", e.out}, args...)
			}},
		// Policies.
		{name: "policies: a .rego linked to a file outside", code: 2, want: `leak\.rego: a symbolic link or '\.\.' leads outside the input directory`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--policies", layerWith(t, "policies", "leak.rego", leak), "--output", e.out}
			}},
		{name: "policies: a .rego that is not Rego shows only the token", code: 2, want: `policies/leak\.rego:1:\d+: rego_parse_error: [^\n]*\n\tat ":"`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--policies", policiesWith(t, "leak.rego", secret+"\n"), "--output", e.out}
			}},
		{name: "policies: a .rego that is a named pipe", code: 2, want: `pipe\.rego: not a regular file \(a named pipe\)`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--policies", layerWith(t, "policies", "pipe.rego", fifoTrap), "--output", e.out}
			}},
		{name: "policies: http.send is outside the sandbox", code: 2, want: `policies/net\.rego:3:\d+: .*http\.send`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--policies", policiesWith(t, "net.rego", "package net\n\nr := http.send({\"method\": \"get\", \"url\": \"https://example.com\"})\n"), "--output", e.out}
			}},
		{name: "policies: a rule over numbers.range never ends", code: 3,
			want: `obs/x\.jsonl:1: task T9 \(C01 direct v1 default D1\): policy trap\.t9 \(.*policies/t9\.rego\): stopped at the time limit of 300ms`,
			setup: func(t *testing.T, e trapEnv) []string {
				args := trapTask(t, "diagnostics contains {\"atom\": \"block.count\", \"path\": \"\", \"kind\": \"missing\"} if {\n\tsome i in numbers.range(1, 1000000000000)\n\ti < 0\n}\n")
				return append([]string{"check", "--observations", obsWith(t, e, rec), "--eval-timeout", "300ms", "--output", e.out}, args...)
			}},
		{name: "policies: a memory bomb", code: 3, child: &child{},
			want: `obs/x\.jsonl:1: task T9 \(C01 direct v1 default D1\): policy trap\.t9 \(.*policies/t9\.rego\): stopped at the memory budget of 384MiB`,
			setup: func(t *testing.T, e trapEnv) []string {
				args := trapTask(t, "diagnostics contains {\"atom\": \"block.count\", \"path\": \"\", \"kind\": \"missing\"} if {\n\txs := [s | some i in numbers.range(1, 1000000); s := sprintf(\"%0999999d\", [i])]\n\tcount(xs) < 0\n}\n")
				return append([]string{"check", "--observations", obsWith(t, e, rec), "--memory-budget", "384MiB", "--eval-timeout", "1m", "--output", e.out}, args...)
			}},
		{name: "policies: the local time zone is UTC whatever TZ says", code: 0, want: `^$`, child: &child{env: []string{"TZ=America/New_York"}},
			setup: func(t *testing.T, e trapEnv) []string {
				args := trapTask(t, "diagnostics contains {\"atom\": \"block.count\", \"path\": \"\", \"kind\": \"missing\"} if {\n\ttime.date([0, \"Local\"]) != [1970, 1, 1]\n}\n")
				return append([]string{"check", "--observations", obsWith(t, e, rec)}, args...)
			}},
		// Contracts.
		{name: "contracts: CUE syntax error", code: 2, want: `contracts/broken\.cue:3:10: expected '}'`,
			setup: func(t *testing.T, e trapEnv) []string {
				c := filepath.Join(t.TempDir(), "contracts")
				testkit.WriteFile(t, filepath.Join(c, "broken.cue"), "package contracts\n\nlanes: {\n")
				return []string{"check", "--contracts", c, "--output", e.out}
			}},
		{name: "contracts: a .cue that is a named pipe", code: 2, want: `pipe\.cue: not a regular file \(a named pipe\)`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--contracts", layerWith(t, "contracts", "pipe.cue", fifoTrap), "--output", e.out}
			}},
		{name: "contracts: a .cue linked to a file outside", code: 2, want: `leak\.cue: a symbolic link or '\.\.' leads outside the input directory`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--contracts", layerWith(t, "contracts", "leak.cue", leak), "--output", e.out}
			}},
		{name: "contracts: a comprehension over list.Range never ends", code: 3, child: &child{},
			want: `load contracts: contracts \(builtin:contracts, .*/contracts\): stopped at the time limit of 1s`,
			setup: func(t *testing.T, e trapEnv) []string {
				c := filepath.Join(t.TempDir(), "contracts")
				testkit.WriteFile(t, filepath.Join(c, "bomb.cue"), "package contracts\n\nimport \"list\"\n\n_bomb: [for i in list.Range(0, 1000000000, 1) {i}]\n")
				return []string{"check", "--contracts", c, "--load-timeout", "1s", "--output", e.out}
			}},
		// Outputs that would destroy an input, or cannot be written.
		{name: "output: a record file", code: 2, want: `--output .*obs/x\.jsonl is inside .*obs, an input directory of this run: refused`,
			setup: func(t *testing.T, e trapEnv) []string {
				obs := obsWith(t, e, rec)
				return []string{"check", "--observations", obs, "--output", filepath.Join(obs, "x.jsonl")}
			}},
		{name: "output: a policy file", code: 2, want: `--output .*tasks/t1\.rego is inside .*policies, an input directory of this run: refused`,
			setup: func(t *testing.T, e trapEnv) []string {
				p := policiesWith(t, "tasks/t1.rego", "package mine\n")
				return []string{"check", "--policies", p, "--output", filepath.Join(p, "tasks", "t1.rego")}
			}},
		{name: "output: a record file through a linked directory", code: 2, want: `an input directory of this run: refused`,
			setup: func(t *testing.T, e trapEnv) []string {
				obs := obsWith(t, e, rec)
				link(t, obs, filepath.Join(e.dir, "elsewhere"))
				return []string{"check", "--observations", obs, "--output", filepath.Join(e.dir, "elsewhere", "x.jsonl")}
			}},
		{name: "output: a directory", code: 2, want: `--output .* is a directory: name a file`,
			setup: func(t *testing.T, e trapEnv) []string { return []string{"check", "--output", e.dir} }},
		{name: "output: compare onto its policies", code: 2, want: `--output .*policies/lib/views\.rego is inside .*policies, an input directory`,
			setup: func(t *testing.T, e trapEnv) []string {
				p := policiesWith(t, "lib/views.rego", "package mine\n")
				return []string{"compare", "--policies", p, "--output", filepath.Join(p, "lib", "views.rego")}
			}},
		{name: "output: challenge onto a case of its suite", code: 2, want: `--output .*cases/C06\.direct\.A2\.alter-number\.json is inside .*alpha, an input directory`,
			setup: func(t *testing.T, e trapEnv) []string {
				fx := builtinCopy(t, "fixtures")
				s := filepath.Join(fx, "challenge", "alpha")
				return []string{"challenge", s, "--output", filepath.Join(s, "cases", "C06.direct.A2.alter-number.json")}
			}},
		{name: "output: a write cut short by the file size limit", code: 2, want: `write report .*out\.txt: .*file too large`, child: &child{ulimit: 64},
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--format", "json", "--output", e.out}
			}},
		// mutate: the suite is written whole or not at all, never into an input.
		{name: "mutate: a suite cut short by the file size limit", code: 2, want: `write suite .*suite: .*file too large`, child: &child{ulimit: 1},
			setup: func(t *testing.T, e trapEnv) []string { return mutateArgs(e) }},
		{name: "mutate: a suite inside the fixtures", code: 2, want: `--output .*fixtures/suite/cases is inside .*fixtures, an input directory`,
			setup: func(t *testing.T, e trapEnv) []string {
				fx := filepath.Join(t.TempDir(), "fixtures")
				testkit.WriteFile(t, filepath.Join(fx, "README"), "a fixtures layer with no sources yet\n")
				return []string{"mutate", "--fixture", "C12", "--lane", "direct", "--stage", "A2", "--fixtures", fx, "--output", filepath.Join(fx, "suite")}
			}},
		{name: "mutate: an --output that holds more than a suite", code: 2, want: `--output .*suite holds .*suite/README\.md, which is not part of a challenge suite .*--force`,
			setup: func(t *testing.T, e trapEnv) []string {
				testkit.WriteFile(t, filepath.Join(e.suite, "README.md"), "# my notes\n")
				return mutateArgs(e)
			}},
		{name: "mutate: cases/ links out of the suite, with --force", code: 2, want: `suite/cases is a symbolic link that leads out of .*suite: not followed`,
			setup: func(t *testing.T, e trapEnv) []string {
				if err := os.Rename(filepath.Join(e.suite, "cases"), filepath.Join(e.suite, "kept")); err != nil {
					t.Fatal(err)
				}
				link(t, t.TempDir(), filepath.Join(e.suite, "cases"))
				return mutateArgs(e, "--force")
			}},
		{name: "mutate: a source that is a named pipe", code: 2, want: `src\.json: not a regular file \(a named pipe\)`,
			setup: func(t *testing.T, e trapEnv) []string {
				return mutateArgs(e, "--source", fifo(t, filepath.Join(e.dir, "src.json")))
			}},
		{name: "challenge: a case that is a named pipe", code: 2, want: `cases/C06\.direct\.A2\.alter-number\.json: not a regular file \(a named pipe\)`,
			setup: func(t *testing.T, e trapEnv) []string {
				fx := builtinCopy(t, "fixtures")
				s := filepath.Join(fx, "challenge", "alpha")
				fifo(t, filepath.Join(s, "cases", "C06.direct.A2.alter-number.json"))
				return []string{"challenge", s, "--output", e.out}
			}},
		// The limits' own flags.
		{name: "flags: a memory budget that is not a size", code: 2, want: `"lots" is not a size`,
			setup: func(t *testing.T, e trapEnv) []string {
				return []string{"check", "--memory-budget", "lots", "--output", e.out}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Side by side: each trap's files lie below its own directory, and a run keeps its
			// limits and print output in its context (the memory bomb runs in a child process).
			t.Parallel()
			e := trapEnv{dir: t.TempDir()}
			e.out = filepath.Join(e.dir, "out.txt")
			testkit.WriteFile(t, e.out, previousReport)
			e.suite = filepath.Join(e.dir, "suite")
			testkit.WriteFile(t, filepath.Join(e.suite, "cases", "old.json"), "{}\n")
			args := tc.setup(t, e)
			// Every file the test made, inputs and outputs, lies below one directory.
			root := filepath.Dir(e.dir)
			before := snapshot(t, root)
			var code int
			var stdout, stderr string
			if tc.child != nil {
				code, stdout, stderr = runChild(t, tc.child, args...)
			} else {
				code, stdout, stderr = cli(t, args...)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout %.2000s\nstderr %.2000s", code, tc.code, stdout, stderr)
			}
			if !regexp.MustCompile(tc.want).MatchString(stderr) {
				t.Errorf("stderr does not match %q:\n%.2000s", tc.want, stderr)
			}
			for _, bad := range []string{"s3cr3t", "panic:", "panicked", "goroutine "} {
				if strings.Contains(stderr, bad) {
					t.Errorf("stderr holds %q:\n%.2000s", bad, stderr)
				}
			}
			got, err := os.ReadFile(e.out)
			switch {
			case err != nil:
				t.Errorf("the previous --output file: %v", err)
			case tc.code == result.ExitInstrument && strings.Contains(strings.Join(args, " "), "--output "+e.out):
				// The instrument failed: the report is written all the same, naming the failure
				// (an input error writes none). The rest of the tree is as it was.
				if !strings.Contains(string(got), "INCOMPLETE: the instrument failed:") {
					t.Errorf("the --output of a failed run does not name the failure:\n%s", got)
				}
				testkit.WriteFile(t, e.out, previousReport)
			case string(got) != previousReport:
				t.Errorf("the previous --output file was touched: %q", got)
			}
			if after := snapshot(t, root); after != before {
				t.Errorf("files were touched:\n%.3000s\nnow\n%.3000s", before, after)
			}
		})
	}
}

// snapshot lists every entry below dir, with each file's contents.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %v", rel, d.Type())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
