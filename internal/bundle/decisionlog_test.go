package bundle

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestStockOPADecisionLogsAgree serves the built-in bundle from a stock OPA with console decision
// logging and the carrier masked (docs/opa.md), posts every captured built-in record of the
// control lane and of go-sdk with its repetition, its source's digest and its place, captures the
// console log, and reads it back with check --decision-logs: the report is check's on the same
// records byte for byte, in JSON and text, both over the contract set's matrix (a scope the records
// cover whole) and over the records (--observations, with go-sdk's not_applicable records, which
// have no decision, among them).
func TestStockOPADecisionLogsAgree(t *testing.T) {
	opa := opaBinary(t)
	ctx := context.Background()
	dir := t.TempDir()
	b, err := Build(ctx, instrument.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := b.WriteTarGz(&buf); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, "contracts.tar.gz")
	writeFile(t, tarball, buf.Bytes())
	mask := mkdir(t, filepath.Join(dir, "mask"))
	writeFile(t, filepath.Join(mask, ".manifest"), []byte(`{"roots": ["system/log"]}`))
	writeFile(t, filepath.Join(mask, "mask.rego"), []byte("package system.log\n\nmask contains \"/input/carrier\"\n"))
	s, logs := run(t, opa, "--bundle", tarball, "--bundle", mask, "--set", "decision_logs.console=true")

	obs := func(lanes ...string) []string {
		var out []string
		for _, l := range lanes {
			out = append(out, filepath.Join("..", "..", "fixtures", "observations", l))
		}
		return out
	}
	records := instrument.Options{Observations: obs("direct", "go-sdk"), Scope: result.Scope{Lanes: []string{"direct", "go-sdk"}}}
	in, err := instrument.Load(ctx, records)
	if err != nil {
		t.Fatal(err)
	}
	recs := captured(t, in)
	jobs := make(chan *instrument.Record)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	client := &http.Client{Timeout: time.Minute}
	for range 4 {
		wg.Go(func() {
			for r := range jobs {
				input := inputOf(r)
				input["repetition"] = r.Repetition
				input["sourceSha256"] = in.Sources[r.Fixture].Sha256
				input["record"] = map[string]any{"file": r.File, "line": r.Line}
				if _, err := s.decide(client, input); err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
				}
			}
		})
	}
	for _, r := range recs {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d posts failed, first: %s", len(failures), failures[0])
	}
	logFile := filepath.Join(dir, "opa.log")
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := strings.Count(logs.String(), `"msg":"Decision Log"`)
		if n >= len(recs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d decisions in the console log", n, len(recs))
		}
		time.Sleep(100 * time.Millisecond)
	}
	writeFile(t, logFile, []byte(logs.String()))
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"msg":"Decision Log"`) && !strings.Contains(sc.Text(), `"erased":["/input/carrier"]`) {
			t.Fatalf("a decision logged with its carrier: %.300s", sc.Text())
		}
	}
	t.Logf("%d records posted; the console log holds %d lines", len(recs), strings.Count(logs.String(), "\n"))

	// The matrix case reads no records: check's run on the same pairs is the one on the records
	// posted, which the decisions name as they were posted.
	matrix := instrument.Options{Scope: result.Scope{Lanes: []string{"direct"}, Suites: []string{"paper"}}}
	matrixRecords := matrix
	matrixRecords.Observations = obs("direct")
	for _, tc := range []struct {
		name       string
		opts, same instrument.Options
	}{
		{"matrix", matrix, matrixRecords},
		{"records", records, records},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := check.Run(ctx, tc.same)
			if err != nil {
				t.Fatal(err)
			}
			got, counts, err := check.RunDecisionLogs(ctx, tc.opts, check.DecisionLogs{Paths: []string{logFile}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s; %d bindings", counts, want.Len())
			for _, format := range []string{"json", "text"} {
				g, w := renderReport(t, got, format), renderReport(t, want, format)
				if g != w {
					os.WriteFile(filepath.Join(dir, "got."+format), []byte(g), 0o600)
					t.Errorf("%s report from the decision logs differs from check's:\n%s", format, lineDiff(g, w))
				}
			}
		})
	}
}

func renderReport(t *testing.T, r *result.Report, format string) string {
	t.Helper()
	out, err := report.New(format, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := out.Output(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// lineDiff shows the first line where two texts differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  decision logs: " + al[i] + "\n  check:         " + bl[i]
		}
	}
	return "lengths " + strconv.Itoa(len(al)) + " and " + strconv.Itoa(len(bl)) + " lines"
}
