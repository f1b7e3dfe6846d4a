package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testtier"
)

// productionPage is the page whose §3 TestProductionSection3 runs.
const productionPage = "../../docs/production.md"

// docBlocks are the indented code blocks of the section of a markdown page whose heading starts
// with heading, in order, each without its indentation.
func docBlocks(t *testing.T, page, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	in, inBlock := false, false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = strings.HasPrefix(line, heading)
			inBlock = false
		case !in:
		case strings.HasPrefix(line, "    "):
			if !inBlock {
				blocks = append(blocks, "")
				inBlock = true
			}
			blocks[len(blocks)-1] += line[4:] + "\n"
		case strings.TrimSpace(line) == "" && inBlock:
			blocks[len(blocks)-1] += "\n"
		default:
			inBlock = false
		}
	}
	return blocks
}

// maskBundle is the mask bundle opaPage (docs/opa.md) shows ("Decision logs"): the manifest its
// sentence names (`mask/.manifest` `{…}`) and the rego block of package system.log. It writes
// both below dir.
func maskBundle(t *testing.T, opaPage, dir string) {
	t.Helper()
	data, err := os.ReadFile(opaPage)
	if err != nil {
		t.Fatal(err)
	}
	manifest := regexp.MustCompile("`mask/\\.manifest` `(\\{[^`\n]*\\})`").FindSubmatch(data)
	policy := regexp.MustCompile("(?s)```rego\n(package system\\.log\n.*?)```").FindSubmatch(data)
	if manifest == nil || policy == nil {
		t.Fatal("docs/opa.md shows no mask bundle (`mask/.manifest` `{…}` and a rego block of package system.log)")
	}
	testkit.WriteFile(t, filepath.Join(dir, "mask", ".manifest"), string(manifest[1]))
	testkit.WriteFile(t, filepath.Join(dir, "mask", "mask.rego"), string(policy[1]))
}

// recordAcme makes the recording §2 of docs/production.md makes (rec, lane acme-agent, version
// 1.4.0) with contractcheck record, the traffic driven by the test: a stand-in MCP server's
// tools/call result (a text and a resource link) and the Chat Completions request carrying it to
// a fake provider. It returns the recorded fixture's id, its source and the carrier record paired.
func recordAcme(t *testing.T, out string) (fixture string, source, carrier json.RawMessage) {
	t.Helper()
	code, stderr := recordTraffic{
		lane: "acme-agent", version: "1.4.0",
		result:   `{"content":[{"type":"text","text":"order A-1 shipped"},{"type":"resource_link","uri":"https://orders.example/A-1","name":"A-1"}]}`,
		provider: fakeprovider.New(fakeprovider.Config{Tool: "lookup"}),
	}.run(t, out)
	if code != 0 {
		t.Fatalf("record: exit %d\n%s", code, stderr)
	}
	sources, _ := filepath.Glob(filepath.Join(out, "sources", "recorded", "R*.json"))
	if len(sources) != 1 {
		t.Fatalf("the recording holds %d sources, want 1", len(sources))
	}
	fixture = strings.TrimSuffix(filepath.Base(sources[0]), ".json")
	src, err := os.ReadFile(sources[0])
	if err != nil {
		t.Fatal(err)
	}
	recs, err := os.ReadFile(filepath.Join(out, "acme-agent", "1.4.0", "default.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(recs), []byte("\n")) {
		var rec struct {
			Stage, State string
			Carrier      json.RawMessage
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("the recorded pair %s: %v", line, err)
		}
		if rec.Stage == "H4" && rec.State == "captured" {
			return fixture, bytes.TrimSpace(src), rec.Carrier
		}
	}
	t.Fatalf("the recording holds no captured H4 record:\n%s", recs)
	return "", nil, nil
}

// TestProductionSection3 runs §3 of docs/production.md as a user does after §2: the page's own
// commands, in order, in a shell, with contractcheck (this test's binary standing in for the
// command) and stock OPA (CONTRACTCHECK_OPA) on PATH. Only what a user fills in is substituted:
// the log directory and OPA's port (in a temporary directory, on a free port), the fixture id,
// the tools/call result and the provider request item (of a recording rec the test makes with
// contractcheck record, lane acme-agent, as §2 does; acme is made by the page's `contractcheck
// init … acme`; mask is docs/opa.md's mask bundle). OPA's own start-up lines reach the terminal and not one decision
// event does; the final check gives the verdict a direct check of the recording gives, with the
// bindings posted held (no INCOMPLETE). A second run starts OPA as the page says on a bundle
// that is not there: OPA's error reaches the terminal.
func TestProductionSection3(t *testing.T) {
	testtier.Require(t, "stock OPA (CONTRACTCHECK_OPA) and curl, to run docs/production.md §3")
	opa := os.Getenv("CONTRACTCHECK_OPA")
	if opa == "" {
		testtier.Missing(t, "CONTRACTCHECK_OPA must name a stock opa binary (v1.22.3)")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		testtier.Missing(t, "docs/production.md §3 posts with curl")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(productionPage)
	if err != nil {
		t.Fatal(err)
	}
	initCmd := regexp.MustCompile("`contractcheck (init [^`]*acme)`").FindSubmatch(page)
	if initCmd == nil {
		t.Fatal("docs/production.md no longer says which `contractcheck init … acme` makes its layer acme")
	}
	blocks := docBlocks(t, productionPage, "## 3.")
	if len(blocks) != 4 {
		t.Fatalf("§3 has %d code blocks, want 4 (bundle, OPA, the post, check):\n%s", len(blocks), strings.Join(blocks, "----\n"))
	}
	opaPage, err := filepath.Abs("../../docs/opa.md")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	bin := filepath.Join(work, ".bin")
	testkit.WriteFile(t, filepath.Join(bin, "contractcheck"), "#!/bin/sh\nCONTRACTCHECK_TEST_CHILD=1 exec "+shellQuote(self)+" \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "contractcheck"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(opa, filepath.Join(bin, "opa")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	if code, _, stderr := cli(t, strings.Fields(string(initCmd[1]))...); code != 0 {
		t.Fatalf("contractcheck %s: %s", initCmd[1], stderr)
	}
	fixture, source, carrier := recordAcme(t, filepath.Join(work, "rec"))
	maskBundle(t, opaPage, work)
	addr := testkit.FreeAddr(t)
	logDir := filepath.Join(work, "var", "log", "opa")
	fill := func(block string, subs ...string) string {
		for i := 0; i < len(subs); i += 2 {
			if !strings.Contains(block, subs[i]) {
				t.Fatalf("§3's block no longer holds %q:\n%s", subs[i], block)
			}
			block = strings.ReplaceAll(block, subs[i], subs[i+1])
		}
		return block
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CONTRACTCHECK_TEST_CHILD=")
	shell := func(script string) *exec.Cmd {
		cmd := exec.Command("sh", "-ec", script)
		cmd.Dir, cmd.Env = work, env
		return cmd
	}
	runBlock := func(name, script string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		cmd := shell(script)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return code, stdout.String(), stderr.String()
	}
	bundle, start, post, check := blocks[0], blocks[1], blocks[2], blocks[3]
	start = fill(start, "/var/log/opa", logDir, "127.0.0.1:8181", addr)
	post = fill(post, "localhost:8181", addr, `"R3f9a0c12d4e7"`, `"`+fixture+`"`,
		"{...the tools/call result...}", string(source), "{...the provider request item...}", string(carrier))
	check = fill(check, "/var/log/opa", logDir)

	if code, stdout, stderr := runBlock("bundle", bundle); code != 0 {
		t.Fatalf("§3 bundle: exit %d\n%s%s", code, stdout, stderr)
	}

	// OPA runs until the test stops it; what it shows the user is its terminal.
	var terminal testkit.Buffer
	opaCmd := shell(start)
	opaCmd.Stdout, opaCmd.Stderr = &terminal, &terminal
	opaCmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := opaCmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- opaCmd.Wait() }()
	stop := func() {
		_ = syscall.Kill(-opaCmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-opaCmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}
	ready := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && !ready; {
		select {
		case err := <-exited:
			t.Fatalf("§3's OPA exited before it served (%v); the terminal showed:\n%s", err, terminal.String())
		default:
		}
		if resp, err := http.Get("http://" + addr + "/health?bundles"); err == nil {
			ready = resp.StatusCode == http.StatusOK
			resp.Body.Close()
		}
		if !ready {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !ready {
		stop()
		t.Fatalf("§3's OPA did not serve its bundles within a minute; the terminal showed:\n%s", terminal.String())
	}
	code, answer, stderr := runBlock("post", post)
	if code != 0 || !strings.Contains(answer, `"result"`) || strings.Contains(answer, `"errors"`) {
		stop()
		t.Fatalf("§3's post: exit %d, answer %s%s", code, answer, stderr)
	}
	stop()
	if term := terminal.String(); !strings.Contains(term, "Initializing server") || strings.Contains(term, "Decision Log") {
		t.Errorf("the terminal shows OPA's own lines and no decision event; it showed:\n%s", term)
	}
	logged, err := os.ReadFile(filepath.Join(logDir, "decisions.log"))
	if err != nil || !bytes.Contains(logged, []byte(`"msg":"Decision Log"`)) {
		t.Fatalf("the decision log holds no decision (%v):\n%s", err, logged)
	}

	code, stdout, stderr := runBlock("check", check)
	wantCode, wantOut, wantErr := cli(t, "check", "--no-cache", "--fixtures", filepath.Join(work, "rec"), "--observations", filepath.Join(work, "rec"),
		"--contracts", filepath.Join(work, "rec"), "--contracts", filepath.Join(work, "acme"), "--policies", filepath.Join(work, "acme"),
		"--profile", "acme", "--lane", "acme-agent")
	if wantCode != 0 && wantCode != 1 {
		t.Fatalf("the direct check of the recording gives no verdict (exit %d): the page's layer does not gate its lane\n%s%s", wantCode, wantOut, wantErr)
	}
	if code != wantCode || strings.Contains(stdout, "INCOMPLETE") {
		t.Fatalf("§3's check: exit %d, the direct check's %d\n%s%s", code, wantCode, stdout, stderr)
	}
	gate := regexp.MustCompile(`(?m)^gate: .*$`)
	if g, w := gate.FindString(stdout), gate.FindString(wantOut); g == "" || g != w {
		t.Errorf("§3's check says %q, the direct check %q", g, w)
	}
	t.Logf("§3's check: exit %d, %s", code, gate.FindString(stdout))
	if !strings.Contains(stderr, "decision logs: 1 decisions of contractcheck/decision") {
		t.Errorf("§3's check does not say it read the one decision posted:\n%s", stderr)
	}

	t.Run("a start-up error reaches the terminal", func(t *testing.T) {
		broken := strings.ReplaceAll(start, "contracts.tar.gz", "missing.tar.gz")
		code, stdout, stderr := runBlock("OPA on a missing bundle", broken)
		if out := stdout + stderr; code == 0 && !strings.Contains(out, "missing.tar.gz") {
			t.Errorf("OPA's start-up error does not reach the terminal (exit %d):\n%s", code, out)
		} else if !strings.Contains(out, "missing.tar.gz") {
			t.Errorf("the terminal does not name the bundle OPA could not load:\n%s", out)
		}
	})
}

// shellQuote is s as one POSIX shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
