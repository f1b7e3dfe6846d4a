package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/version"

	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testtier"
)

// opaVersion is the OPA release the server tests run: the one go.mod requires (the version
// package of the OPA module this test links), built from the Go module proxy exactly as its own
// go.mod pins its dependencies (a stock OPA, no custom build).
var opaVersion = "v" + version.Version

// opaDir is the temporary GOBIN stockOPA built opa into ("" before), removed by TestMain.
var opaDir string

func TestMain(m *testing.M) {
	code := testkit.Run(m)
	if opaDir != "" {
		os.RemoveAll(opaDir)
	}
	os.Exit(code)
}

// opaBinary takes $CONTRACTCHECK_OPA, or in the integration tier builds the stock OPA once per
// test process (go install github.com/open-policy-agent/opa@<opaVersion> into a temporary GOBIN,
// from the Go module proxy); the fast tier skips a test that needs it otherwise.
func opaBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CONTRACTCHECK_OPA"); p != "" {
		return p
	}
	testtier.Require(t, "stock OPA, built from the Go module proxy (or set CONTRACTCHECK_OPA to an opa binary)")
	return stockOPA(t)
}

// stockOPA builds the stock OPA once per test process and returns its path.
var stockOPA = testkit.Once(func() (string, error) {
	dir, err := os.MkdirTemp("", "contractcheck-opa-")
	if err != nil {
		return "", err
	}
	opaDir = dir
	start := time.Now()
	cmd := exec.Command("go", "install", "github.com/open-policy-agent/opa@"+opaVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install github.com/open-policy-agent/opa@%s (the Go module proxy must be reachable, or set CONTRACTCHECK_OPA to an opa binary): %v\n%s", opaVersion, err, out)
	}
	fmt.Fprintf(os.Stderr, "built opa %s in %s\n", opaVersion, time.Since(start).Round(time.Second))
	return filepath.Join(dir, "opa"), nil
})

// server is a running `opa run --server` fed a bundle.
type server struct {
	url string
	cmd *exec.Cmd
}

// startServer writes the built-in contract set's bundle and starts a stock OPA server on a free
// loopback port with it, waiting until the bundle is activated.
func startServer(t testing.TB, profile string) *server {
	t.Helper()
	opa := opaBinary(t)
	b, err := Build(context.Background(), inputs.Options{Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "contracts.tar.gz")
	var buf bytes.Buffer
	if err := b.WriteTarGz(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := run(t, opa, "--log-level", "error", "--bundle", path)
	return s
}

// decide posts one input to data.contractcheck.decision and returns the decision, numbers kept
// as written.
func (s *server) decide(client *http.Client, input map[string]any) (map[string]any, error) {
	body, err := json.Marshal(map[string]any{"input": input})
	if err != nil {
		return nil, err
	}
	resp, err := client.Post(s.url+"/v1/data/contractcheck/decision", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
	}
	doc, err := strictjson.Decode("response", data, strictjson.DefaultLimits)
	if err != nil {
		return nil, err
	}
	res, ok := doc.(map[string]any)["result"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no decision: %s", data)
	}
	return res, nil
}

// captured reads every captured built-in observation record with the instrument.
func captured(t testing.TB, in *instrument.Instrument) []*instrument.Record {
	t.Helper()
	files, err := in.Options().RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	var recs []*instrument.Record
	err = in.ReadRecords(context.Background(), files, func(r *instrument.Record) error {
		if r.State == "captured" {
			recs = append(recs, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func inputOf(r *instrument.Record) map[string]any {
	return map[string]any{"fixture": r.Fixture, "lane": r.Lane, "laneVersion": r.LaneVersion,
		"configuration": r.Configuration, "stage": r.Stage, "carrier": r.Carrier}
}

// canonical is a value's canonical JSON (sorted keys, numbers as written); a list of diagnostics
// is sorted first, as a set.
func canonical(v any, set bool) string {
	if items, ok := v.([]any); ok && set {
		ss := make([]string, len(items))
		for i, x := range items {
			ss[i] = canonical(x, false)
		}
		sort.Strings(ss)
		return "[" + strings.Join(ss, ",") + "]"
	}
	b, err := strictjson.Marshal(normalize(v))
	if err != nil {
		return fmt.Sprintf("unprintable %v", err)
	}
	return string(b)
}

// normalize turns the Go values of a verdict ([]map[string]any), or rego's result values
// (json.Number numbers), into a JSON tree strictjson writes.
func normalize(v any) any {
	switch x := v.(type) {
	case []map[string]any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = normalize(m)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// compare holds one record's decision to check's readings, binding for binding, and returns
// the mismatches: each task's result is check's reading as a decision of a bundle built with
// quote (Settings.QuoteData) logs it (decisionlog.EncodeTaskResult): the values of the user's
// data described by their digests, or quoted as their JSON text.
func compare(rec *instrument.Record, readings []result.Reading, decision map[string]any, quote bool) []string {
	at := fmt.Sprintf("%s:%d (%s %s %s %s %s)", rec.File, rec.Line, rec.Fixture, rec.Lane, rec.LaneVersion, rec.Configuration, rec.Stage)
	if errs, ok := decision["errors"]; ok {
		return []string{fmt.Sprintf("%s: the decision is errors %v", at, errs)}
	}
	results, _ := decision["results"].([]any)
	byTask := map[string]map[string]any{}
	for _, r := range results {
		m, _ := r.(map[string]any)
		task, _ := m["task"].(string)
		byTask[task] = m
	}
	var out []string
	if len(results) != len(readings) {
		out = append(out, fmt.Sprintf("%s: %d task results, check has %d bindings", at, len(results), len(readings)))
	}
	for _, want := range readings {
		got, ok := byTask[want.Task]
		if !ok {
			out = append(out, fmt.Sprintf("%s %s: no result from OPA", at, want.Task))
			continue
		}
		if got["outcome"] != want.Outcome {
			out = append(out, fmt.Sprintf("%s %s: outcome %v, check %s", at, want.Task, got["outcome"], want.Outcome))
		}
		logged, err := decisionlog.EncodeTaskResult(want.Task, want.Outcome, want.Diagnostics, want.Readout, quote)
		if err != nil {
			out = append(out, fmt.Sprintf("%s %s: %v", at, want.Task, err))
			continue
		}
		if g, w := canonical(got["diagnostics"], true), canonical(logged["diagnostics"], true); g != w {
			out = append(out, fmt.Sprintf("%s %s: diagnostics\n\tOPA   %s\n\tcheck %s", at, want.Task, g, w))
		}
		if g, w := canonical(got["readout"], false), canonical(logged["readout"], false); g != w {
			out = append(out, fmt.Sprintf("%s %s: readout\n\tOPA   %s\n\tcheck %s", at, want.Task, g, w))
		}
	}
	return out
}

// TestStockOPAAgreesWithCheck starts a stock OPA server on the built-in contract set's bundle,
// posts every built-in captured observation record and requires each decision to equal what
// check evaluates on the same record, binding for binding: outcome, diagnostics and readout. It
// holds together, end to end, what the bundle writes a second time for a stock OPA: the decision
// (rego/decision.rego, check's evaluation of a record), the projector, provider acceptance, the
// strict JSON reader and the differences (each also compared alone, in process, by
// TestProjectorAgrees, TestProviderAcceptanceAgrees, TestJSONTextAgrees and TestDiffAgrees).
// The other built-in profiles differ from strict in the null policy (optional-null) and the
// result-metadata policy (withhold-private-meta): their bundles are held to check on every
// record whose bindings the profile changes, and on the fixtures with private metadata.
func TestStockOPAAgreesWithCheck(t *testing.T) {
	opaBinary(t) // first: in the fast tier the test is skipped before it loads anything
	ctx := context.Background()
	strict, err := instrument.Load(ctx, inputs.Options{Profile: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	recs := captured(t, strict)
	if len(recs) == 0 {
		t.Fatal("no captured record to post: a comparison on nothing proves nothing")
	}
	for _, profile := range []string{"strict", "optional-null", "withhold-private-meta"} {
		t.Run(profile, func(t *testing.T) {
			in := strict
			if profile != "strict" {
				if in, err = instrument.Load(ctx, inputs.Options{Profile: profile}); err != nil {
					t.Fatal(err)
				}
			}
			var posted []*instrument.Record
			for _, r := range recs {
				if profile == "strict" || len(strict.Model.Fixtures[r.Fixture].PrivateMeta) > 0 || changes(t, strict, in, r) {
					posted = append(posted, r)
				}
			}
			if len(posted) == 0 {
				t.Fatalf("profile %s changes no binding of the built-in records: nothing to compare", profile)
			}
			s := startServer(t, profile)
			var (
				mu         sync.Mutex
				mismatches []string
				bindings   int
				wg         sync.WaitGroup
			)
			jobs := make(chan *instrument.Record)
			client := &http.Client{Timeout: time.Minute}
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for rec := range jobs {
						readings, err := in.Evaluate(ctx, rec)
						var out []string
						if err != nil {
							out = []string{fmt.Sprintf("%s:%d: check: %v", rec.File, rec.Line, err)}
						} else if d, err := s.decide(client, inputOf(rec)); err != nil {
							out = []string{fmt.Sprintf("%s:%d: OPA: %v", rec.File, rec.Line, err)}
						} else {
							out = compare(rec, readings, d, false)
						}
						mu.Lock()
						bindings += len(readings)
						mismatches = append(mismatches, out...)
						mu.Unlock()
					}
				}()
			}
			for _, r := range posted {
				jobs <- r
			}
			close(jobs)
			wg.Wait()
			t.Logf("%d of %d captured records posted, %d bindings compared", len(posted), len(recs), bindings)
			if len(mismatches) > 0 {
				sort.Strings(mismatches)
				shown := mismatches[:min(len(mismatches), 25)]
				t.Fatalf("%d of %d bindings differ between the stock OPA server and check (first %d):\n%s", len(mismatches), bindings, len(shown), strings.Join(shown, "\n"))
			}
		})
	}
}

// TestStockOPAAgreesOnUncatalogued posts the generated sources no catalogue entry names
// (TestUncataloguedAgrees's) to a stock OPA server on the built-in bundle: each decision equals
// check's verdicts, task for task.
func TestStockOPAAgreesOnUncatalogued(t *testing.T) {
	s := startServer(t, "strict")
	client := &http.Client{Timeout: time.Minute}
	agreeOnUncatalogued(t, func(input map[string]any) (map[string]any, error) { return s.decide(client, input) })
}

// changes reports whether check's readings of a record differ between two instruments.
func changes(t *testing.T, a, b *instrument.Instrument, r *instrument.Record) bool {
	t.Helper()
	ra, err := a.Evaluate(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Evaluate(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(ra) != len(rb) {
		return true
	}
	for i := range ra {
		if ra[i].Outcome != rb[i].Outcome || canonical(ra[i].Diagnostics, true) != canonical(rb[i].Diagnostics, true) {
			return true
		}
	}
	return false
}

// TestServerRefusesUnknownInput posts inputs the contract model does not know: the decision is
// a list of errors, never an outcome.
func TestServerRefusesUnknownInput(t *testing.T) {
	s := startServer(t, "strict")
	client := &http.Client{Timeout: time.Minute}
	base := map[string]any{"fixture": "C01", "lane": "go-sdk", "laneVersion": "v1.8.0", "configuration": "default", "stage": "D1", "carrier": map[string]any{}}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range base {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"unknown fixture", with("fixture", "C99"), `unknown fixture "C99"`},
		{"unknown lane", with("lane", "nope"), `unknown lane "nope"`},
		{"unknown version", with("laneVersion", "v0"), `lane go-sdk has no version "v0"`},
		{"unknown configuration", with("configuration", "x"), `lane go-sdk has no configuration "x"`},
		{"stage not observed", with("stage", "A2"), "lane go-sdk declares stage A2 not_applicable"},
		{"no carrier", with("carrier", nil), "input.carrier is missing"},
		{"task not evaluated", with("task", "T5"), `task "T5" is not evaluated on fixture C01`},
		{"task not at the stage", map[string]any{"fixture": "R06", "lane": "openai-agents-js", "laneVersion": "0.5.4", "configuration": "default",
			"stage": "M3", "carrier": map[string]any{}, "task": "TP"}, `task "TP" is not evaluated at stage M3 (only at H4)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := s.decide(client, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			errs, _ := d["errors"].([]any)
			if _, has := d["results"]; has || !strings.Contains(fmt.Sprint(errs), tc.want) {
				t.Errorf("decision %v, want errors naming %q", d, tc.want)
			}
		})
	}
}

// BenchmarkServerDecisions measures the stock OPA server's decisions per second on the built-in
// captured records, posted round-robin by as many clients as GOMAXPROCS, beside its floor: the
// same server, clients and request bodies, posted to a document the bundle does not define
// (floorPath), which OPA answers with an empty result after reading the input. The floor is what
// the HTTP exchange and OPA's reading of the input cost on this machine at this minute: it runs
// before and after the decisions, so that they are bracketed by it (scripts/bench prints the
// decisions' rate as a share of the two floors' mean).
func BenchmarkServerDecisions(b *testing.B) {
	s := startServer(b, "strict")
	in, err := instrument.Load(context.Background(), inputs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	recs := captured(b, in)
	inputs := make([]map[string]any, len(recs))
	for i, r := range recs {
		inputs[i] = inputOf(r)
	}
	floor := func(b *testing.B) {
		serverRate(b, inputs, func(client *http.Client, input map[string]any) error {
			return s.undefined(client, input)
		})
	}
	decisions := func(s *server, inputs []map[string]any) func(*testing.B) {
		return func(b *testing.B) {
			serverRate(b, inputs, func(client *http.Client, input map[string]any) error {
				_, err := s.decide(client, input)
				return err
			})
		}
	}
	b.Run("floor-before", floor)
	b.Run("decision", decisions(s, inputs))
	if path := os.Getenv(baselineEnv); path != "" {
		base := serveBundle(b, path)
		shared := decidedByBoth(b, s, base, inputs)
		// Baseline and current alternate as A B B A, so that a machine that speeds up or slows
		// down steadily over the four runs weighs on both alike.
		b.Run("paired/baseline-1", decisions(base, shared))
		b.Run("paired/current-1", decisions(s, shared))
		b.Run("paired/current-2", decisions(s, shared))
		b.Run("paired/baseline-2", decisions(base, shared))
	}
	b.Run("floor-after", floor)
}

// baselineEnv names a bundle (a .tar.gz an earlier contractcheck wrote) that
// BenchmarkServerDecisions serves beside the current one, alternating with it on the inputs both
// decide (scripts/bench builds the bundle of the commit issue 30's work started from): the ratio
// of the two is measured on one machine in one run, where an earlier run's decisions/s depend on
// how busy the machine was then.
const baselineEnv = "CONTRACTCHECK_BENCH_BASELINE"

// serveBundle starts a stock OPA server on a free loopback port with the bundle at path.
func serveBundle(t testing.TB, path string) *server {
	t.Helper()
	s, _ := run(t, opaBinary(t), "--log-level", "error", "--bundle", path)
	return s
}

// decidedByBoth are the inputs both servers decide (a decision with results, not errors): a
// baseline bundle from before a lane or fixture was added answers its records with errors, which
// cost a fraction of a decision. It fails the benchmark when none are left.
func decidedByBoth(b *testing.B, current, base *server, inputs []map[string]any) []map[string]any {
	b.Helper()
	client := &http.Client{Timeout: time.Minute}
	var shared []map[string]any
	for _, input := range inputs {
		ok := true
		for _, s := range []*server{current, base} {
			d, err := s.decide(client, input)
			if err != nil {
				b.Fatal(err)
			}
			if _, failed := d["errors"]; failed {
				ok = false
			}
		}
		if ok {
			shared = append(shared, input)
		}
	}
	if len(shared) == 0 {
		b.Fatalf("%s: the baseline bundle decides none of the %d inputs", baselineEnv, len(inputs))
	}
	b.Logf("%d of %d inputs decided by both bundles", len(shared), len(inputs))
	return shared
}

// serverRate posts the inputs round-robin with post from as many clients as GOMAXPROCS and
// reports the requests answered per second as decisions/s.
func serverRate(b *testing.B, inputs []map[string]any, post func(*http.Client, map[string]any) error) {
	var next sync.Mutex
	i := 0
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		client := &http.Client{Timeout: time.Minute}
		for pb.Next() {
			next.Lock()
			input := inputs[i%len(inputs)]
			i++
			next.Unlock()
			if err := post(client, input); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}

// floorPath is a document no bundle of this project defines: OPA reads a posted input and
// answers {} (no result) for it.
const floorPath = "/v1/data/contractcheck_bench_floor/undefined"

// undefined posts one input to floorPath and checks that the answer holds no result.
func (s *server) undefined(client *http.Client, input map[string]any) error {
	body, err := json.Marshal(map[string]any{"input": input})
	if err != nil {
		return fmt.Errorf("encode input: %w", err)
	}
	resp, err := client.Post(s.url+floorPath, "application/json", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("post %s: %w", floorPath, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read answer of %s: %w", floorPath, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", floorPath, resp.StatusCode, data)
	}
	doc, err := strictjson.Decode("response", data, strictjson.DefaultLimits)
	if err != nil {
		return fmt.Errorf("decode answer of %s: %w", floorPath, err)
	}
	if _, ok := doc.(map[string]any)["result"]; ok {
		return fmt.Errorf("%s has a result: %s", floorPath, data)
	}
	return nil
}
