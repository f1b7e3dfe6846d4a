// Command upload measures `contractcheck collect` as a fleet of stock OPAs feeds it: it posts
// decision-log batches over HTTP, gzip-compressed JSON arrays of events as OPA's decision_logs
// plugin uploads them (Content-Encoding: gzip, the bearer token when given), from several
// uploaders at once, each waiting for the answer to its batch before the next as one OPA's plugin
// does, and prints the rate collect took them at (scripts/bench-fleet).
//
//	go run ./internal/bench/upload -prepare DIR -decisions 1000000 [-batch 640]
//	go run ./internal/bench/upload -post DIR -url http://127.0.0.1:8282/logs [-clients 4] [-token-file F]
//
// -prepare writes the batches to DIR (outside any timing, once per size): the decision-log events
// a stock OPA serving the built-in bundle (built with --quote-data, the mask beside it) logs for
// every built-in captured record, which are the inputs BenchmarkServerDecisions posts to one OPA,
// repeated until there are -decisions of them. Each pass over the records gives every event a
// repetition of its own (the record's repetition plus the pass times the records' highest one) and
// a decision id of its own, so that no two decisions are the same reading: a census grows with
// them as it would with a fleet's traffic, where collect takes a decision logged twice once. The
// events are cut into batches of -batch events (640 events of these are about OPA's default
// upload_size_limit_bytes, 32 KiB compressed); DIR/set.json, written last, says how many.
//
// -post waits for collect's GET /status, posts every batch of DIR once (the uploaders take the
// next batch in turn), and prints as JSON the decisions, batches and compressed bytes posted, the
// uploaders, the seconds from the first post to the last answer and the decisions a second.
// Any answer but 200 stops it (exit 1, naming the batch, the status and collect's answer), and
// collect's counters must say it took every decision posted and refused nothing.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Set is what -prepare writes to DIR/set.json: the batches DIR holds.
type Set struct {
	Decisions int   `json:"decisions"` // events in all the batches
	Batches   int   `json:"batches"`   // files DIR/<8 digits>.json.gz
	Bytes     int64 `json:"bytes"`     // their compressed size
	Records   int   `json:"records"`   // the captured records one pass posts
}

// Result is what -post prints.
type Result struct {
	Decisions          int     `json:"decisions"`
	Batches            int     `json:"batches"`
	Bytes              int64   `json:"bytes"`
	Clients            int     `json:"clients"`
	Seconds            float64 `json:"seconds"`
	DecisionsPerSecond float64 `json:"decisionsPerSecond"`
}

func main() {
	prepare := flag.String("prepare", "", "write the batches to this new directory")
	decisions := flag.Int("decisions", 1_000_000, "with -prepare: this many decisions")
	batch := flag.Int("batch", 640, "with -prepare: events a batch")
	post := flag.String("post", "", "post the batches this directory holds (-prepare wrote it)")
	target := flag.String("url", "", "with -post: collect's upload URL (http://127.0.0.1:8282/logs)")
	clients := flag.Int("clients", 4, "with -post: uploaders posting at once, each one batch at a time")
	tokenFile := flag.String("token-file", "", "with -post: file holding collect's bearer token")
	flag.Parse()
	var err error
	switch {
	case flag.NArg() != 0:
		err = usage("no arguments are taken, %q given", flag.Args())
	case (*prepare == "") == (*post == ""):
		err = usage("give -prepare DIR or -post DIR")
	case *prepare != "":
		if *decisions <= 0 || *batch <= 0 {
			err = usage("-decisions and -batch must be positive")
			break
		}
		err = prepareBatches(context.Background(), *prepare, *decisions, *batch)
	default:
		var res Result
		if res, err = postBatches(*post, *target, *clients, *tokenFile); err == nil {
			var out []byte
			if out, err = json.Marshal(res); err == nil {
				fmt.Println(string(out))
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "upload:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usage(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// Sentinels stand for an event's decision id and repetition in its encoded template, replaced in
// each pass (neither is a value a record or a verdict holds: templateOf checks it).
const (
	idSentinel         = "contractcheck-bench-upload-id"
	repetitionSentinel = "987654321987654"
	// timeSentinel stands for the event's timestamp, timerSentinel for its request id and
	// metrics, which differ from one OPA event to the next.
	timeSentinel  = "contractcheck-bench-upload-time"
	timerSentinel = "876543219876543"
)

// epoch is the first event's timestamp.
var epoch = time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)

// template is one captured record's event, encoded with the sentinels, and its repetition.
type template struct {
	json       []byte
	repetition int
}

// prepareBatches writes n decisions in batches of size events to dir, then dir/set.json.
func prepareBatches(ctx context.Context, dir string, n, size int) error {
	if _, err := os.Stat(dir); err == nil {
		return usage("-prepare %s: it exists (remove it to write it again)", dir)
	}
	templates, err := builtinTemplates(ctx)
	if err != nil {
		return err
	}
	step := 0
	for _, t := range templates {
		step = max(step, t.repetition)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("-prepare: %w", err)
	}
	set := Set{Records: len(templates)}
	var body bytes.Buffer
	events := 0
	flush := func() error {
		body.WriteByte(']')
		name := filepath.Join(dir, fmt.Sprintf("%08d.json.gz", set.Batches+1))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		if _, err := zw.Write(body.Bytes()); err != nil {
			return fmt.Errorf("gzip %s: %w", name, err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("gzip %s: %w", name, err)
		}
		if err := os.WriteFile(name, gz.Bytes(), 0o640); err != nil {
			return fmt.Errorf("write batch: %w", err)
		}
		set.Batches++
		set.Bytes += int64(gz.Len())
		body.Reset()
		events = 0
		return nil
	}
	for i := range n {
		pass, t := i/len(templates), templates[i%len(templates)]
		if events == 0 {
			body.WriteByte('[')
		} else {
			body.WriteByte(',')
		}
		ev := bytes.ReplaceAll(t.json, []byte(`"`+idSentinel+`"`), []byte(fmt.Sprintf(`"bench-%d-%d"`, pass, i%len(templates))))
		ev = bytes.ReplaceAll(ev, []byte(repetitionSentinel), []byte(strconv.Itoa(t.repetition+pass*step)))
		ev = bytes.ReplaceAll(ev, []byte(timeSentinel), epoch.Add(time.Duration(i)*731*time.Microsecond).AppendFormat(nil, time.RFC3339Nano))
		ev = bytes.ReplaceAll(ev, []byte(timerSentinel), strconv.AppendInt(nil, 20_000+int64(i*7919%180_000), 10))
		body.Write(ev)
		events++
		set.Decisions++
		if events == size {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if events > 0 {
		if err := flush(); err != nil {
			return err
		}
	}
	data, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("encode set.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "set.json"), append(data, '\n'), 0o640); err != nil {
		return fmt.Errorf("write set.json: %w", err)
	}
	return nil
}

// builtinTemplates are the events a stock OPA serving the built-in bundle (the default profile,
// --quote-data, the mask beside it) logs for every built-in captured record, in the records'
// order, as internal/testkit/reportkit.DecisionEvents makes them for the tests: check's own
// verdicts encoded as the bundle's decision, the carrier erased by the mask.
func builtinTemplates(ctx context.Context) ([]template, error) {
	in, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		return nil, fmt.Errorf("load the built-in contract set: %w", err)
	}
	files, err := in.Options().RecordFiles()
	if err != nil {
		return nil, fmt.Errorf("the built-in records: %w", err)
	}
	var out []template
	err = in.ReadRecords(ctx, files, func(rec *instrument.Record) error {
		if rec.State != "captured" {
			return nil
		}
		rs, err := in.Evaluate(ctx, rec)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
		}
		results := make([]any, 0, len(rs))
		for _, r := range rs {
			tr, err := decisionlog.EncodeTaskResult(r.Task, r.Outcome, r.Diagnostics, r.Readout, true)
			if err != nil {
				return fmt.Errorf("%s:%d: task %s: %w", rec.File, rec.Line, r.Task, err)
			}
			results = append(results, tr)
		}
		input := map[string]any{"fixture": rec.Fixture, "lane": rec.Lane, "laneVersion": rec.LaneVersion, "configuration": rec.Configuration,
			"stage": rec.Stage, "repetition": json.Number(repetitionSentinel), "record": map[string]any{"file": rec.File, "line": rec.Line}}
		res := maps.Clone(input)
		res["profile"], res["results"] = in.Options().Profile, results
		// The members OPA v1.22 adds to every event beside the decision (v1/plugins/logs/plugin.go,
		// EventV1): collect reads past them, but they are bytes to take, decompress and store.
		ev := map[string]any{"decision_id": idSentinel, "path": decisionlog.Path, "level": "info", "msg": "Decision Log",
			"type": "openpolicyagent.org/decision_logs", "input": input, "erased": []any{"/input/carrier"}, "result": res,
			"labels": map[string]any{"id": "bench-upload", "version": "1.22.3"}, "bundles": map[string]any{"contractcheck": map[string]any{"revision": "bench"}},
			"requested_by": "127.0.0.1:40000", "req_id": json.Number(timerSentinel), "timestamp": timeSentinel,
			"metrics": map[string]any{"counter_server_query_cache_hit": 1, "timer_rego_input_parse_ns": json.Number(timerSentinel),
				"timer_rego_query_eval_ns": json.Number(timerSentinel), "timer_server_handler_ns": json.Number(timerSentinel)}}
		data, err := strictjson.Marshal(ev)
		if err != nil {
			return fmt.Errorf("%s:%d: encode the event: %w", rec.File, rec.Line, err)
		}
		if n := bytes.Count(data, []byte(repetitionSentinel)); n != 2 {
			return fmt.Errorf("%s:%d: the event holds the repetition's stand-in %d times, not twice (input and result)", rec.File, rec.Line, n)
		}
		if n := bytes.Count(data, []byte(timerSentinel)); n != 4 {
			return fmt.Errorf("%s:%d: the event holds the timers' stand-in %d times, not 4", rec.File, rec.Line, n)
		}
		if n := bytes.Count(data, []byte(timeSentinel)) + bytes.Count(data, []byte(idSentinel)); n != 2 {
			return fmt.Errorf("%s:%d: the event holds the decision id's and the timestamp's stand-ins %d times, not once each", rec.File, rec.Line, n)
		}
		if n := bytes.Count(data, []byte(idSentinel)); n != 1 {
			return fmt.Errorf("%s:%d: the event holds the decision id's stand-in %d times, not once", rec.File, rec.Line, n)
		}
		out = append(out, template{json: data, repetition: rec.Repetition})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the built-in records: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("no built-in record is captured: nothing to log")
	}
	return out, nil
}

// status is the part of collect's GET /status the driver checks.
type status struct {
	Accepted struct {
		Decisions int64 `json:"decisions"`
	} `json:"accepted"`
	Refused map[string]int64 `json:"refused"`
}

// refused is the requests collect refused, every reason together.
func (s status) refused() int64 {
	var n int64
	for _, v := range s.Refused {
		n += v
	}
	return n
}

// postBatches posts every batch of dir to target from clients uploaders.
func postBatches(dir, target string, clients int, tokenFile string) (Result, error) {
	if target == "" {
		return Result{}, usage("-post needs -url")
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Result{}, usage("-url %q is not an http(s) URL", target)
	}
	if clients <= 0 {
		return Result{}, usage("-clients must be positive")
	}
	token := ""
	if tokenFile != "" {
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return Result{}, fmt.Errorf("-token-file: %w", err)
		}
		token = strings.TrimSpace(string(data))
	}
	var set Set
	data, err := os.ReadFile(filepath.Join(dir, "set.json"))
	if err != nil {
		return Result{}, fmt.Errorf("-post: %w (write the batches with -prepare first)", err)
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return Result{}, fmt.Errorf("-post: %s: %w", filepath.Join(dir, "set.json"), err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if err != nil {
		return Result{}, fmt.Errorf("-post: %w", err)
	}
	sort.Strings(names)
	if len(names) != set.Batches {
		return Result{}, fmt.Errorf("-post: %s holds %d batches, its set.json says %d", dir, len(names), set.Batches)
	}
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	statusURL := *u
	statusURL.Path, statusURL.RawQuery = "/status", ""
	before, err := waitStatus(client, statusURL.String(), token)
	if err != nil {
		return Result{}, err
	}
	var next atomic.Int64
	var failed atomic.Bool
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(names) {
					return
				}
				if err := postOne(client, target, token, names[i]); err != nil {
					failed.Store(true)
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return Result{}, err
	}
	after, err := getStatus(client, statusURL.String(), token)
	if err != nil {
		return Result{}, err
	}
	if took := after.Accepted.Decisions - before.Accepted.Decisions; took != int64(set.Decisions) {
		return Result{}, fmt.Errorf("collect took %d decisions, %d were posted", took, set.Decisions)
	}
	if n := after.refused() - before.refused(); n != 0 {
		return Result{}, fmt.Errorf("collect refused %d requests: %v", n, after.Refused)
	}
	res := Result{Decisions: set.Decisions, Batches: set.Batches, Bytes: set.Bytes, Clients: clients,
		Seconds: elapsed.Seconds(), DecisionsPerSecond: float64(set.Decisions) / elapsed.Seconds()}
	return res, nil
}

// postOne posts the batch in file as OPA's plugin does and wants 200.
func postOne(client *http.Client, target, token, file string) error {
	body, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read batch: %w", err)
	}
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("post %s: %w", file, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return fmt.Errorf("post %s: reading the answer: %w", file, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("post %s: HTTP %d: %q", file, resp.StatusCode, answer)
	}
	return nil
}

// waitStatus polls collect's status until it answers, for up to two minutes while nothing
// listens (collect loads the contract set before it listens); an answer that is not the status
// (a wrong token: 401) ends it at once.
func waitStatus(client *http.Client, statusURL, token string) (status, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s, err := getStatus(client, statusURL, token)
		var answered answerError
		if err == nil || errors.As(err, &answered) || time.Now().After(deadline) {
			return s, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// answerError is an answer from collect that is not the one wanted.
type answerError struct{ msg string }

func (e answerError) Error() string { return e.msg }

// getStatus is collect's GET /status.
func getStatus(client *http.Client, statusURL, token string) (status, error) {
	var s status
	req, err := http.NewRequest(http.MethodGet, statusURL, nil)
	if err != nil {
		return s, fmt.Errorf("GET %s: %w", statusURL, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return s, fmt.Errorf("GET %s: %w", statusURL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return s, fmt.Errorf("GET %s: %w", statusURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return s, answerError{fmt.Sprintf("GET %s: HTTP %d: %q", statusURL, resp.StatusCode, data)}
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, answerError{fmt.Sprintf("GET %s: %v", statusURL, err)}
	}
	return s, nil
}
