package bundle

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// logService is a decision-log service for a stock OPA's upload (decision_logs.service): it
// stores each batch OPA posts to /logs as it came (gzip-compressed) in its own file, and counts
// the events the batches hold.
type logService struct {
	dir string
	mu  sync.Mutex
	n   int
	// events counts the events of the batches received.
	events int
	// errs are what went wrong reading a batch.
	errs []string
}

func (l *logService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil || r.URL.Path != "/logs" {
		l.errs = append(l.errs, fmt.Sprintf("%s %s: %v", r.Method, r.URL.Path, err))
		http.Error(w, "bad upload", http.StatusBadRequest)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	var events []json.RawMessage
	if err == nil {
		err = json.NewDecoder(zr).Decode(&events)
	}
	if err != nil {
		l.errs = append(l.errs, fmt.Sprintf("batch %d: %v", l.n+1, err))
		http.Error(w, "bad batch", http.StatusBadRequest)
		return
	}
	l.n++
	l.events += len(events)
	if err := os.WriteFile(filepath.Join(l.dir, fmt.Sprintf("batch-%04d.json.gz", l.n)), body, 0o600); err != nil {
		l.errs = append(l.errs, err.Error())
	}
	w.WriteHeader(http.StatusOK)
}

func (l *logService) counts() (batches, events int, errs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.events, append([]string(nil), l.errs...)
}

// TestStockOPAUploadedDecisionsAgree serves the built-in bundle from a stock OPA that uploads its
// decision logs to a log service (decision_logs.service) with a tiny upload limit, so that OPA
// cuts and re-encodes its chunks (v1/plugins/logs/encoder.go decodes the events it re-encodes
// without exact numbers), posts every captured record of X08 and C02 (numbers past float64: a
// 64-bit integer's overflow, 2^53 + 1) with the mask of docs/opa.md, and reads the gzip batches
// the service received back:
//   - from a bundle built with --quote-data, check --decision-logs gives check's own report on the
//     same records, byte for byte, in JSON and text;
//   - from a bundle built without it, each decision is check's verdict on its record, binding for
//     binding, with the values of the user's data described (decisionlog.EncodeTaskResult), and
//     the census read back counts what check counts.
//
// Either way no batch holds a carrier, a source, or (without --quote-data) a value check's
// diagnostics quote.
func TestStockOPAUploadedDecisionsAgree(t *testing.T) {
	opa := opaBinary(t)
	ctx := context.Background()
	opts, in, recs, want := bigNumberRecords(t)
	for _, quote := range []bool{true, false} {
		name := map[bool]string{true: "quoted", false: "described"}[quote]
		t.Run(name, func(t *testing.T) {
			batches := uploadDecisions(t, opa, Settings{QuoteData: quote}, in, recs)
			got, counts, err := check.RunDecisionLogs(ctx, opts, check.DecisionLogs{Paths: []string{batches}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s; %d bindings", counts, want.Len())
			formats := []string{"json", "text"}
			if !quote {
				// The diagnostics say the values' digests: the report's counts are check's.
				formats = nil
				g, w := reportkit.Render(t, got, "text"), reportkit.Render(t, want, "text")
				if gl, wl := summaryLine(g), summaryLine(w); gl != wl || gl == "" {
					t.Errorf("the census read back counts\n  %s\ncheck counts\n  %s", gl, wl)
				}
				compareUploaded(t, ctx, in, recs, batches)
			}
			reportkit.SameAsCheck(t, "the uploaded decision logs", got, want, formats...)
		})
	}
}

// bigNumberRecords are the built-in captured records of X08 and C02 (numbers past float64), with
// the options that select them (every lane's records, named, so that check --decision-logs
// expects the records' bindings), the instrument loaded from them and check's report on them.
func bigNumberRecords(t *testing.T) (inputs.Options, *instrument.Instrument, []*instrument.Record, *result.Report) {
	t.Helper()
	ctx := context.Background()
	lanes, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "observations", "*"))
	if err != nil || len(lanes) == 0 {
		t.Fatalf("the built-in records: %v", err)
	}
	opts := inputs.Options{Observations: lanes, Scope: result.Scope{Fixtures: []string{"X08", "C02"}}}
	in, err := instrument.Load(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*instrument.Record
	for _, r := range captured(t, in) {
		if r.Fixture == "X08" || r.Fixture == "C02" {
			recs = append(recs, r)
		}
	}
	want, err := check.Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return opts, in, recs, want
}

// postedInput is the input a record is posted with: its position and carrier (inputOf), its
// repetition, its source's digest and its place.
func postedInput(in *instrument.Instrument, r *instrument.Record) map[string]any {
	input := inputOf(r)
	input["repetition"] = r.Repetition
	input["sourceSha256"] = in.Sources[r.Fixture].Sha256
	input["record"] = map[string]any{"file": r.File, "line": r.Line}
	return input
}

// summaryLine is a text report's line that counts the bindings by outcome.
func summaryLine(report string) string {
	for _, l := range strings.Split(report, "\n") {
		if strings.Contains(l, " bindings: ") {
			return l
		}
	}
	return ""
}

// uploadDecisions starts a stock OPA on the built-in bundle built with settings, the mask beside
// it, uploading its decision logs to a log service with a 4096-byte upload limit; posts recs (with
// their repetition, source digest and place) and returns the directory of the batches the
// service received once they hold every decision. No batch holds the carrier or the source.
func uploadDecisions(t *testing.T, opa string, settings Settings, in *instrument.Instrument, recs []*instrument.Record) string {
	t.Helper()
	dir := t.TempDir()
	tarball, mask := maskedBundle(t, dir, settings)
	logs := &logService{dir: mkdir(t, filepath.Join(dir, "uploaded"))}
	receiver := httptest.NewServer(logs)
	t.Cleanup(receiver.Close)
	config := filepath.Join(dir, "config.yaml")
	testkit.WriteFile(t, config, fmt.Sprintf(`services:
  logs:
    url: %s
decision_logs:
  service: logs
  reporting:
    min_delay_seconds: 1
    max_delay_seconds: 1
    upload_size_limit_bytes: 4096
`, receiver.URL))
	s, opaLog := run(t, opa, "--bundle", tarball, "--bundle", mask, "--config-file", config)
	client := &http.Client{Timeout: time.Minute}
	for _, r := range recs {
		if _, err := s.decide(client, postedInput(in, r)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		batches, events, errs := logs.counts()
		if len(errs) > 0 {
			t.Fatalf("the log service: %v", errs)
		}
		if events >= len(recs) {
			t.Logf("%d records posted; OPA uploaded them in %d batches", len(recs), batches)
			if batches < 2 {
				t.Fatalf("%d batches: the upload limit did not make OPA cut its chunks", batches)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d decisions uploaded in %d batches; OPA's log:\n%s", events, len(recs), batches, opaLog.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	files, err := filepath.Glob(filepath.Join(logs.dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, f := range files {
		text := reportkit.GunzipFile(t, f)
		if bytes.Contains(text, []byte(`"carrier"`)) || bytes.Contains(text, []byte(`"source"`)) {
			t.Errorf("%s holds a carrier or a source", f)
		}
		all = append(all, text...)
	}
	// C02's and X08's numbers are the user's data: in the batches, exact, when quoted; else not
	// at all.
	for _, n := range []string{"9007199254740993", "-9223372036854775809"} {
		if bytes.Contains(all, []byte(n)) != settings.QuoteData {
			t.Errorf("the batches hold %s: %v; quoting the user's data: %v", n, bytes.Contains(all, []byte(n)), settings.QuoteData)
		}
	}
	return logs.dir
}

// compareUploaded reads the batches back with the decision-log reader and holds each decision to
// check's verdict on the record it names, binding for binding: the outcome, and the diagnostics
// and readout as a bundle without --quote-data logs them (the values described).
func compareUploaded(t *testing.T, ctx context.Context, in *instrument.Instrument, recs []*instrument.Record, batches string) {
	t.Helper()
	byPlace := map[string]*instrument.Record{}
	for _, r := range recs {
		byPlace[fmt.Sprintf("%s:%d", r.File, r.Line)] = r
	}
	var mismatches []string
	bindings := 0
	_, err := decisionlog.Read(ctx, []string{batches}, nil, func(d *decisionlog.Decision) error {
		if d.Record == nil {
			return fmt.Errorf("%s: no record named", d.At())
		}
		rec := byPlace[fmt.Sprintf("%s:%d", d.Record.File, d.Record.Line)]
		if rec == nil {
			return fmt.Errorf("%s: the record %s:%d was not posted", d.At(), d.Record.File, d.Record.Line)
		}
		readings, err := in.Evaluate(ctx, rec)
		if err != nil {
			return err
		}
		if len(readings) != len(d.Results) {
			mismatches = append(mismatches, fmt.Sprintf("%s: %d results, check %d", d.At(), len(d.Results), len(readings)))
			return nil
		}
		for i, w := range readings {
			bindings++
			g := d.Results[i]
			logged, err := decisionlog.EncodeTaskResult(w.Task, w.Outcome, w.Diagnostics, w.Readout, false)
			if err != nil {
				return err
			}
			wantDiags := canonical(asJSON(t, logged["diagnostics"]), true)
			gotDiags := canonical(asJSON(t, append([]result.Diagnostic{}, g.Diagnostics...)), true)
			if g.Task != w.Task || g.Outcome != w.Outcome || gotDiags != wantDiags || canonical(g.Readout, false) != canonical(w.Readout, false) {
				mismatches = append(mismatches, fmt.Sprintf("%s %s: %s %s %s, check %s %s %s", d.At(), w.Task,
					g.Outcome, gotDiags, canonical(g.Readout, false), w.Outcome, wantDiags, canonical(w.Readout, false)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d task results compared (every repetition)", bindings)
	if bindings == 0 {
		t.Fatal("no binding compared")
	}
	if len(mismatches) > 0 {
		t.Errorf("%d bindings differ from check's (first %d):\n%s", len(mismatches), min(5, len(mismatches)), strings.Join(mismatches[:min(5, len(mismatches))], "\n"))
	}
}
