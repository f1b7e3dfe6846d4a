package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/collect"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// collectBatch is a gzip batch of the decisions a bundle built with --quote-data logs for the
// control lane's captured records of C05, and how many decisions it holds.
func collectBatch(t *testing.T) ([]byte, int) {
	t.Helper()
	events := reportkit.DecisionEvents(t, inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Fixtures: []string{"C05"}}})
	return reportkit.GzipBatch(t, events), len(events)
}

// startCollect starts contractcheck collect (the test binary plays it) with args on a free
// loopback address, killed when t ends; it returns the address, the command and its standard
// error, which the test may read while collect runs.
func startCollect(t *testing.T, args ...string) (string, *exec.Cmd, *testkit.Buffer) {
	t.Helper()
	addr := testkit.FreeAddr(t)
	cmd := exec.Command(os.Args[0], append(append([]string{"collect"}, args...), "--listen", addr)...)
	cmd.Env = append(os.Environ(), "CONTRACTCHECK_TEST_CHILD=1")
	stderr := &testkit.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return addr, cmd, stderr
}

// TestCollectCommand runs contractcheck collect (the test binary plays it): it answers GET
// /status, and on SIGTERM stops taking connections but finishes the upload in flight (its body
// half sent when the signal comes) before it exits 0, saying its counters on stderr; the batch is
// on disk.
func TestCollectCommand(t *testing.T) {
	t.Parallel()
	batch, n := collectBatch(t)
	dir := filepath.Join(t.TempDir(), "batches")
	addr, cmd, stderr := startCollect(t, "--dir", dir)
	base := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(base + collect.StatusPath)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("collect never answered /status: %v\n%s", err, stderr.String())
		}
	}
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, base+collect.DefaultPath, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Content-Type", "application/json")
	type answer struct {
		status int
		body   []byte
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, body, err}
	}()
	if _, err := pw.Write(batch[:len(batch)/2]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the request is in flight
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := pw.Write(batch[len(batch)/2:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	a := <-answered
	if a.err != nil || a.status != http.StatusOK {
		t.Fatalf("the upload in flight at SIGTERM: HTTP %d %s %v\n%s", a.status, a.body, a.err, stderr.String())
	}
	var acc collect.Accepted
	if err := json.Unmarshal(a.body, &acc); err != nil || acc.Batch != 1 || acc.Decisions != n {
		t.Errorf("answer %s (%v), want batch 1 of %d decisions", a.body, err, n)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("collect after SIGTERM: %v\n%s", err, stderr.String())
	}
	want := fmt.Sprintf("collect: stopped; accepted 1 batches (%d decisions, 0 other events); none refused", n)
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not say the counters (%q):\n%s", want, stderr.String())
	}
	if names, err := collect.Batches(dir); err != nil || len(names) != 1 {
		t.Errorf("batches on disk: %v %v", names, err)
	}
}

// TestCollectCensusCommand: collect --census folds the batches it takes into a census that check
// --census reports on while collect runs, with check --decision-logs's report and exit code on
// the same batches: whole (exit 0), and lacking bindings (exit 2, the lacking listed); a --census
// collect cannot write to, or one marked complete, is exit 2 naming it.
func TestCollectCensusCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		scope []string // the report's scope
		code  int
		want  string // in the report
	}{
		{name: "every expected binding", scope: []string{"--lane", "direct", "--fixture", "C05"}, code: 0, want: `"verdict": "`},
		{name: "lacking bindings", scope: []string{"--lane", "direct", "--suite", "paper"}, code: 2, want: `"lacking": {`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			batch, _ := collectBatch(t)
			dir, cdir := filepath.Join(t.TempDir(), "batches"), filepath.Join(t.TempDir(), "census")
			addr, cmd, stderr := startCollect(t, "--dir", dir, "--census", cdir)
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				req, _ := http.NewRequest(http.MethodPost, "http://"+addr+collect.DefaultPath, bytes.NewReader(batch))
				req.Header.Set("Content-Encoding", "gzip")
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("HTTP %d\n%s", resp.StatusCode, stderr.String())
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("collect never answered: %v\n%s", err, stderr.String())
				}
			}
			// collect runs on: the report is made from its census while it does.
			args := append([]string{"check", "--format", "json"}, tc.scope...)
			code, out, errOut := cli(t, append(append([]string{}, args...), "--census", cdir)...)
			wcode, wout, _ := cli(t, append(append([]string{}, args...), "--decision-logs", dir)...)
			if code != tc.code || wcode != tc.code {
				t.Fatalf("exit %d from the census, %d from the batches, want %d\n%s", code, wcode, tc.code, errOut)
			}
			if out != wout {
				t.Errorf("the report on the census differs from the report on the batches:\n%s\n---\n%s", out, wout)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("the report lacks %q:\n%s", tc.want, out)
			}
			if !strings.Contains(errOut, "1 batches collected, sequence 1 to 1") {
				t.Errorf("the note does not say the window:\n%s", errOut)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("collect after SIGTERM: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), ", folded into the census "+cdir+";") {
				t.Errorf("collect does not say the census it folds into:\n%s", stderr.String())
			}
		})
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	complete := filepath.Join(t.TempDir(), "complete")
	if err := os.MkdirAll(complete, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(complete, "complete.json"), []byte(`{"census":1,"profile":"strict","parts":0,"readings":0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	runUsageCases(t, "collect", []usageCase{
		{name: "a file, not a directory", args: []string{"--dir", "OUT", "--census", file, "--listen", "127.0.0.1:0"}, want: file},
		{name: "a census marked complete", args: []string{"--dir", "OUT", "--census", complete, "--listen", "127.0.0.1:0"}, want: complete + " holds a census its writer marked complete"},
	})
}
