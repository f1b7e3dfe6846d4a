package bundle

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// maskedBundle writes below dir the built-in bundle built with settings (contracts.tar.gz) and,
// for beside it, the mask bundle of docs/opa.md (mask/), and returns both paths.
func maskedBundle(t *testing.T, dir string, settings Settings) (tarball, mask string) {
	t.Helper()
	b, err := BuildWith(context.Background(), inputs.Options{}, settings)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := b.WriteTarGz(&buf); err != nil {
		t.Fatal(err)
	}
	tarball = filepath.Join(dir, "contracts.tar.gz")
	testkit.WriteFile(t, tarball, buf.String())
	mask = filepath.Join(dir, "mask")
	testkit.WriteFile(t, filepath.Join(mask, ".manifest"), MaskManifest)
	testkit.WriteFile(t, filepath.Join(mask, "mask.rego"), MaskPolicy)
	return tarball, mask
}

// TestStockOPADecisionLogsAgree serves the built-in bundle from a stock OPA with console decision
// logging and the carrier masked (docs/opa.md), posts every captured built-in record of the
// control lane and of go-sdk with its repetition, its source's digest and its place, and records
// of sources no catalogue entry names (with their source, two repetitions each), captures the
// console log, and reads it back with check --decision-logs: the report is check's on the same
// records byte for byte, in JSON and text, over the contract set's matrix (scopes the records cover
// whole: the control lane's paper suite, the uncatalogued layer) and over the records
// (--observations, with go-sdk's not_applicable records, which have no decision, among them).
func TestStockOPADecisionLogsAgree(t *testing.T) {
	opa := opaBinary(t)
	ctx := context.Background()
	dir := t.TempDir()
	// Quoting the user's data (the mask keeps it out of the input): the report read back is
	// check's own, diagnostics' values and all.
	tarball, mask := maskedBundle(t, dir, Settings{QuoteData: true})
	s, logs := run(t, opa, "--bundle", tarball, "--bundle", mask, "--set", "decision_logs.console=true")

	obs := func(lanes ...string) []string {
		var out []string
		for _, l := range lanes {
			out = append(out, filepath.Join("..", "..", "fixtures", "observations", l))
		}
		return out
	}
	records := inputs.Options{Observations: obs("direct", "go-sdk"), Scope: result.Scope{Lanes: []string{"direct", "go-sdk"}}}
	in, err := instrument.Load(ctx, records)
	if err != nil {
		t.Fatal(err)
	}
	recs := captured(t, in)
	// The sources no catalogue entry names (internal/instrument/testdata/uncatalogued), each with
	// two repetitions at every stage of the control lane, posted with their source.
	mine := inputs.Options{Fixtures: []string{uncataloguedLayer(t)}, Scope: result.Scope{Lanes: []string{"direct"}, Suites: []string{"mine"}}}
	inMine, err := instrument.Load(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	mineRecs := captured(t, inMine)
	type post struct {
		rec *instrument.Record
		in  *instrument.Instrument
	}
	jobs := make(chan post)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	client := &http.Client{Timeout: time.Minute}
	for range 4 {
		wg.Go(func() {
			for p := range jobs {
				r := p.rec
				input := inputOf(r)
				input["repetition"] = r.Repetition
				src := p.in.Sources[r.Fixture]
				input["sourceSha256"] = src.Sha256
				if p.in == inMine {
					input["source"], input["suite"] = src.Doc, "mine"
				}
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
		jobs <- post{r, in}
	}
	for _, r := range mineRecs {
		jobs <- post{r, inMine}
	}
	close(jobs)
	posted := len(recs) + len(mineRecs)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d posts failed, first: %s", len(failures), failures[0])
	}
	logFile := filepath.Join(dir, "opa.log")
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := strings.Count(logs.String(), `"msg":"Decision Log"`)
		if n >= posted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d decisions in the console log", n, posted)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A run reads the decisions of the fixtures it knows, as it reads records: the log is split
	// into the built-in fixtures' and the uncatalogued ones', OPA's own lines in both.
	var builtin, uncatalogued strings.Builder
	for _, l := range strings.SplitAfter(logs.String(), "\n") {
		isDecision := strings.Contains(l, `"msg":"Decision Log"`)
		if !isDecision || !strings.Contains(l, `"suite":"mine"`) {
			builtin.WriteString(l)
		}
		if !isDecision || strings.Contains(l, `"suite":"mine"`) {
			uncatalogued.WriteString(l)
		}
	}
	testkit.WriteFile(t, logFile, builtin.String())
	mineLog := filepath.Join(dir, "opa-mine.log")
	testkit.WriteFile(t, mineLog, uncatalogued.String())
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"msg":"Decision Log"`) && !strings.Contains(sc.Text(), `"erased":["/input/carrier"`) {
			t.Fatalf("a decision logged with its carrier: %.300s", sc.Text())
		}
		if strings.Contains(sc.Text(), `"suite":"mine"`) && !strings.Contains(sc.Text(), `"/input/source"`) {
			t.Fatalf("a decision logged with its source: %.300s", sc.Text())
		}
	}
	t.Logf("%d records posted; the console log holds %d lines", posted, strings.Count(logs.String(), "\n"))

	// The matrix case reads no records: check's run on the same pairs is the one on the records
	// posted, which the decisions name as they were posted.
	matrix := inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Suites: []string{"paper"}}}
	matrixRecords := matrix
	matrixRecords.Observations = obs("direct")
	for _, tc := range []struct {
		name       string
		opts, same inputs.Options
		log        string
	}{
		{"matrix", matrix, matrixRecords, logFile},
		{"records", records, records, logFile},
		{"uncatalogued", mine, mine, mineLog},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := check.Run(ctx, tc.same)
			if err != nil {
				t.Fatal(err)
			}
			got, counts, err := check.RunDecisionLogs(ctx, tc.opts, check.DecisionLogs{Paths: []string{tc.log}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s; %d bindings", counts, want.Len())
			for _, format := range []string{"json", "text"} {
				g, w := reportkit.Render(t, got, format), reportkit.Render(t, want, format)
				if g != w {
					os.WriteFile(filepath.Join(dir, "got."+format), []byte(g), 0o600)
					t.Errorf("%s report from the decision logs differs from check's:\n%s", format, reportkit.LineDiff(g, w))
				}
			}
		})
	}
}

// uncataloguedLayer is a fixtures layer of the sources no catalogue entry names
// (internal/instrument/testdata/uncatalogued) with the control lane's records of each, at every
// stage and two repetitions: the carrier is the source as it is.
func uncataloguedLayer(t *testing.T) string {
	t.Helper()
	from := filepath.Join("..", "instrument", "testdata", "uncatalogued", "sources", "mine")
	dir := t.TempDir()
	es, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range es {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		testkit.WriteFile(t, filepath.Join(dir, "sources", "mine", e.Name()), string(data))
		sum := sha256.Sum256(data)
		for _, stage := range []string{"D1", "A2", "M3", "H4"} {
			for rep := 1; rep <= 2; rep++ {
				rec, err := json.Marshal(map[string]any{"fixture": strings.TrimSuffix(e.Name(), ".json"), "lane": "direct", "laneVersion": "v1",
					"configuration": "default", "stage": stage, "repetition": rep, "state": "captured", "carrier": json.RawMessage(bytes.TrimSpace(data)),
					"sourceSha256": hex.EncodeToString(sum[:]), "origin": "captured"})
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, string(rec))
			}
		}
	}
	testkit.WriteFile(t, filepath.Join(dir, "observations", "direct.jsonl"), strings.Join(lines, "\n")+"\n")
	return dir
}
