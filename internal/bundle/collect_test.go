package bundle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/collect"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
	"github.com/contractcheck/contractcheck/internal/testtier"
)

// TestStockOPAsUploadToCollect: three stock OPAs serve the built-in bundle (built with
// --quote-data, the mask beside it), each uploading its decision logs to one collect
// (decision_logs.service with a bearer token, upload_size_limit_bytes 4096 so that OPA cuts and
// re-encodes its chunks); every captured record of X08 and C02 (numbers past float64) is posted
// to one of them in turn. Collect takes every batch (none refused), and check --decision-logs
// over its directory gives check's own report on the same records, byte for byte in JSON and
// text: binding for binding, numbers exact; so does check --census over the census collect folded
// the batches into (collect --census), which covers the same batches.
func TestStockOPAsUploadToCollect(t *testing.T) {
	testtier.Require(t, "three stock OPA servers uploading to collect")
	opa := opaBinary(t)
	ctx := context.Background()
	opts, in, recs, want := bigNumberRecords(t)
	dir := t.TempDir()
	batches := filepath.Join(dir, "batches")
	const token = "fleet-token"
	census := filepath.Join(dir, "census")
	col, err := collect.New(in, collect.Options{Dir: batches, Census: census, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	service := httptest.NewServer(col)
	t.Cleanup(service.Close)
	tarball, mask := maskedBundle(t, dir, Settings{QuoteData: true})
	config := filepath.Join(dir, "config.yaml")
	testkit.WriteFile(t, config, fmt.Sprintf(`services:
  collect:
    url: %s
    credentials:
      bearer:
        token: %s
decision_logs:
  service: collect
  reporting:
    min_delay_seconds: 1
    max_delay_seconds: 2
    upload_size_limit_bytes: 4096
`, service.URL, token))
	const fleet = 3
	servers := make([]*server, fleet)
	logs := make([]*testkit.Buffer, fleet)
	for i := range servers {
		servers[i], logs[i] = run(t, opa, "--bundle", tarball, "--bundle", mask, "--config-file", config)
	}
	// Each OPA is posted a third of the records, the three at once.
	var g errgroup.Group
	for i, s := range servers {
		g.Go(func() error {
			client := &http.Client{Timeout: time.Minute}
			for j := i; j < len(recs); j += fleet {
				if _, err := s.decide(client, postedInput(in, recs[j])); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		st := col.Status()
		refused := int64(0)
		for _, n := range st.Refused {
			refused += n
		}
		if refused > 0 {
			t.Fatalf("collect refused uploads: %+v", st)
		}
		if st.Accepted.Decisions >= int64(len(recs)) {
			t.Logf("%d records posted to %d OPAs; collect took them in %d batches", len(recs), fleet, st.Accepted.Batches)
			if st.Accepted.Decisions != int64(len(recs)) {
				t.Errorf("collect took %d decisions, %d were made", st.Accepted.Decisions, len(recs))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("collect took %d of %d decisions in %d batches; the first OPA's log:\n%s", st.Accepted.Decisions, len(recs), st.Accepted.Batches, logs[0].String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Every OPA uploaded, in more than one chunk each.
	instances := map[string]int{}
	names, err := collect.Batches(batches)
	if err != nil {
		t.Fatal(err)
	}
	var disk int64
	for _, n := range names {
		for _, id := range batchLabels(t, filepath.Join(batches, n)) {
			instances[id]++
		}
		if info, err := os.Stat(filepath.Join(batches, n)); err == nil {
			disk += info.Size()
		}
	}
	t.Logf("%d bytes on disk, %.0f a decision (OPA's own events, gzip'd in chunks of at most 4096 bytes)", disk, float64(disk)/float64(len(recs)))
	if len(instances) != fleet || len(names) < 2*fleet {
		t.Errorf("%d batches from OPAs %v, want at least two from each of %d", len(names), instances, fleet)
	}
	got, counts, err := check.RunDecisionLogs(ctx, opts, check.DecisionLogs{Paths: []string{batches}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; %d bindings", counts, want.Len())
	if counts.Window.Batches != len(names) {
		t.Errorf("window %+v, want %d batches", counts.Window, len(names))
	}
	reportkit.SameAsCheck(t, "collect's directory", got, want, "json", "text")
	// The census collect folded the batches into, while it runs: check's report too.
	fromCensus, read, err := check.RunCensuses(ctx, opts, []string{census}, "")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := censusdir.Parts(census)
	if err != nil {
		t.Fatal(err)
	}
	var censusDisk int64
	for _, p := range parts {
		if info, err := os.Stat(filepath.Join(census, p)); err == nil {
			censusDisk += info.Size()
		}
	}
	t.Logf("census %s; %d bytes on disk, %.0f a decision", read, censusDisk, float64(censusDisk)/float64(len(recs)))
	if len(read.Read) != 1 || read.Read[0].Window != counts.Window {
		t.Errorf("the census covers %+v, the batches %+v", read.Read, counts.Window)
	}
	reportkit.SameAsCheck(t, "collect's census", fromCensus, want, "json", "text")
}

// batchLabels is the labels.id (OPA's instance id) of each event of a gzip batch.
func batchLabels(t *testing.T, file string) []string {
	t.Helper()
	text := reportkit.GunzipFile(t, file)
	var events []struct {
		Labels struct {
			ID string `json:"id"`
		} `json:"labels"`
	}
	if err := json.Unmarshal(text, &events); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.Labels.ID
	}
	return ids
}

// TestStockOPARetriesWhatCollectRefused: a stock OPA uploads verdicts on sources no catalogue
// entry names to a collect started without the --fixtures layer that holds them: collect refuses
// every batch (422 unknown_fixture) and writes nothing, and OPA keeps the batch and posts it
// again (OPA v1.22 retries every status outside 2xx). A collect restarted on the same address
// and directory with the layer takes the retried batches, and the report over its directory is
// check's on the layer's records: a refusal collect's own flags cause loses nothing.
func TestStockOPARetriesWhatCollectRefused(t *testing.T) {
	testtier.Require(t, "a stock OPA server uploading to collect")
	opa := opaBinary(t)
	ctx := context.Background()
	mine := inputs.Options{Fixtures: []string{uncataloguedLayer(t)}, Scope: result.Scope{Lanes: []string{"direct"}, Suites: []string{"mine"}}}
	inMine, err := instrument.Load(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	recs := captured(t, inMine)
	want, err := check.Run(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	batches := filepath.Join(dir, "batches")
	addr := testkit.FreeAddr(t)
	// start serves a collector on addr until the returned stop is called.
	start := func(in *instrument.Instrument) (*collect.Collector, func()) {
		c, err := collect.New(in, collect.Options{Dir: batches})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		sctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- collect.Serve(sctx, c, ln, collect.Config{}, io.Discard) }()
		return c, func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
			if err := c.Close(); err != nil {
				t.Error(err)
			}
		}
	}
	first, stop := start(builtin)
	tarball, mask := maskedBundle(t, dir, Settings{QuoteData: true})
	config := filepath.Join(dir, "config.yaml")
	testkit.WriteFile(t, config, fmt.Sprintf(`services:
  collect:
    url: http://%s
decision_logs:
  service: collect
  reporting:
    min_delay_seconds: 1
    max_delay_seconds: 2
`, addr))
	s, opaLog := run(t, opa, "--bundle", tarball, "--bundle", mask, "--config-file", config)
	client := &http.Client{Timeout: time.Minute}
	for _, r := range recs {
		input := inputOf(r)
		src := inMine.Sources[r.Fixture]
		input["repetition"], input["sourceSha256"] = r.Repetition, src.Sha256
		input["source"], input["suite"] = src.Doc, "mine"
		input["record"] = map[string]any{"file": r.File, "line": r.Line}
		if _, err := s.decide(client, input); err != nil {
			t.Fatal(err)
		}
	}
	// waitFor polls until ok, or fails saying what.
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never; OPA's log:\n%s", what, opaLog.String())
			}
		}
	}
	waitFor("the batch refused twice (OPA posts it again)", func() bool { return first.Status().Refused[collect.ReasonUnknownFixture] >= 2 })
	stop()
	if st := first.Status(); st.Accepted.Batches != 0 {
		t.Fatalf("the collector without the layer took batches: %+v", st)
	}
	if names, err := collect.Batches(batches); err != nil || len(names) != 0 {
		t.Fatalf("a refused batch is on disk: %v %v", names, err)
	}
	second, stop := start(inMine)
	defer stop()
	waitFor("the retried batches taken", func() bool { return second.Status().Accepted.Decisions >= int64(len(recs)) })
	t.Logf("refused %d times without the layer; %+v with it", first.Status().Refused[collect.ReasonUnknownFixture], second.Status().Accepted)
	got, _, err := check.RunDecisionLogs(ctx, mine, check.DecisionLogs{Paths: []string{batches}})
	if err != nil {
		t.Fatal(err)
	}
	reportkit.SameAsCheck(t, "collect's directory", got, want, "json", "text")
}
