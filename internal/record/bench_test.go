package record

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/guard"
)

// Benchmark shape: benchCalls tool calls over benchConns concurrent connections, each call a
// tools/call through the MCP proxy and a Chat Completions request carrying its result through
// the provider proxy; the same traffic is first sent to the upstreams directly.
const (
	benchCalls    = 10_000
	benchConns    = 64
	benchDeadline = 3 * time.Minute
)

// toolsCallServer is a stand-in MCP server that answers every request as a tools/call: answer
// gives the call's result (JSON) from its id and arguments, and whether to send it as an SSE
// stream (else as JSON).
func toolsCallServer[A any](answer func(id string, args A) (result string, sse bool)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Arguments A `json:"arguments"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		result, sse := answer(string(m.ID), m.Params.Arguments)
		resp := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message\ndata: "+resp+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, resp)
	})
}

// benchMCP answers tools/call {"n": N} with a result naming N (every result distinct), as JSON
// or as an SSE stream.
func benchMCP(sse bool) http.Handler {
	return toolsCallServer(func(_ string, args struct{ N int }) (string, bool) {
		n := strconv.Itoa(args.N)
		return `{"content":[{"type":"text","text":"order ` + n + ` shipped"}],"structuredContent":{"order":` + n + `,"state":"shipped"}}`, sse
	})
}

// benchUpstreams serves mcp (at /mcp) and benchProvider(stream), and returns the options of a
// recording between the two (version 1; lane and output are the caller's) and the function that
// stops both servers.
func benchUpstreams(mcp http.Handler, stream bool) (Options, func()) {
	m := httptest.NewServer(mcp)
	p := httptest.NewServer(benchProvider(stream))
	return Options{Version: "1", MCPURL: m.URL + "/mcp", ProviderURL: p.URL}, func() { p.Close(); m.Close() }
}

// benchProvider answers every Chat Completions request with a final text, plain or streamed.
func benchProvider(stream bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if !stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","created":1700000000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f, _ := w.(http.Flusher)
		for _, d := range []string{`{"choices":[{"index":0,"delta":{"role":"assistant","content":"Do"}}]}`, `{"choices":[{"index":0,"delta":{"content":"ne."},"finish_reason":"stop"}]}`, "[DONE]"} {
			_, _ = io.WriteString(w, "data: "+d+"\n\n")
			if f != nil {
				f.Flush()
			}
		}
	})
}

// benchTraffic sends the calls over conns connections and returns each request's latency.
func benchTraffic(ctx context.Context, mcpURL, providerURL string, stream bool, base, calls int) ([]time.Duration, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: benchConns, MaxConnsPerHost: benchConns, MaxIdleConns: 2 * benchConns}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	var (
		mu   sync.Mutex
		lats []time.Duration
	)
	do := func(url, body string, auth string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", auth)
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		mu.Lock()
		lats = append(lats, d)
		mu.Unlock()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %s", url, resp.Status)
		}
		return b, err
	}
	errs := fanOut(ctx, benchConns, calls, func(i int) error {
		n := base + i
		args := `{"n":` + strconv.Itoa(n) + `}`
		resp, err := do(mcpURL, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"lookup","arguments":`+args+`}}`, "Bearer bench-mcp-token-000")
		if err != nil {
			return err
		}
		text := "order " + strconv.Itoa(n) + " shipped"
		if !strings.Contains(string(resp), text) {
			return fmt.Errorf("tools/call %d: %s", n, resp)
		}
		id := "call_" + strconv.Itoa(n)
		argText, _ := json.Marshal(args)
		body := `{"model":"m","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"look it up"},{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"lookup","arguments":` + string(argText) + `}}]},{"role":"tool","tool_call_id":"` + id + `","content":"` + text + `"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`
		_, err = do(providerURL+"/v1/chat/completions", body, "Bearer sk-bench-provider-key-000")
		return err
	})
	if len(errs) > 0 {
		return lats, errs[0]
	}
	return lats, nil
}

// fanOut calls call(1), …, call(calls) from conns goroutines, each taking the next number until
// every number is taken or ctx is done; a goroutine stops at its first failed call. It returns
// the failures in the order they came.
func fanOut(ctx context.Context, conns, calls int, call func(i int) error) []error {
	var (
		next atomic.Int64
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for range conns {
		wg.Go(func() {
			for {
				i := int(next.Add(1))
				if i > calls || ctx.Err() != nil {
					return
				}
				if err := call(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// startRun starts Run(ctx, o) in the background (o.Ready set, o.Executable the test's binary) and
// returns record's endpoints once it listens, and stop, which cancels the run and returns what Run
// returned. A Run that returns before it listens fails tb.
func startRun(tb testing.TB, ctx context.Context, o Options) (Endpoints, func() (*Result, error)) {
	tb.Helper()
	ready := make(chan Endpoints, 1)
	o.Ready = func(ep Endpoints) { ready <- ep }
	o.Executable = os.Args[0]
	var res *Result
	var rerr error
	done := make(chan struct{})
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(done)
		res, rerr = Run(rctx, o)
	}()
	stop := func() (*Result, error) {
		cancel()
		<-done
		return res, rerr
	}
	select {
	case ep := <-ready:
		return ep, stop
	case <-done:
		cancel()
		tb.Fatalf("record: %v", rerr)
		return Endpoints{}, nil
	}
}

// quantile is the q-quantile of the durations, in milliseconds.
func quantile(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
}

// benchRounds is the number of rounds BenchmarkRecord alternates the three routes in, so that
// the load of the machine falls on all three alike.
const benchRounds = 20

// BenchmarkRecord drives benchCalls tool calls over benchConns connections on loopback, plain and
// streamed, through three routes in the same run: directly to the upstreams, through bare
// httputil.ReverseProxys of the same shape (a hop that records nothing: the floor of any proxy on
// the same cores) and through record, alternating the routes in benchRounds rounds. It reports the
// pairs written (want all) and, per request, the latency each proxy adds over the direct route at
// the median and the 99th percentile, what record adds over the bare hop (record-vs-bare, the
// cost of recording; the goal is at most 1 ms at the median and 5 ms at p99) and the ratio of the
// two added latencies. Each iteration is the whole run (run it with -benchtime=1x); a run past
// benchDeadline fails:
//
//	go test ./internal/record -run '^$' -bench 'Record$' -benchtime 1x -count 3
func BenchmarkRecord(b *testing.B) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "streamed"}[stream]
		b.Run(name, func(b *testing.B) {
			o, closeUpstreams := benchUpstreams(benchMCP(stream), stream)
			defer closeUpstreams()
			o.Lane = "bench"
			for it := range b.N {
				ctx, cancel := context.WithTimeout(context.Background(), benchDeadline)
				bare := httptest.NewServer(bareProxies(o.MCPURL, o.ProviderURL))
				o.Output = filepath.Join(b.TempDir(), "rec"+strconv.Itoa(it))
				ep, stop := startRun(b, ctx, o)
				var direct, bared, proxied []time.Duration
				var cpuDirect, cpuBare, cpuRecord time.Duration
				per := benchCalls / benchRounds
				for round := range benchRounds {
					base := round * per
					for _, route := range []struct {
						name          string
						mcp, provider string
						lats          *[]time.Duration
						cpu           *time.Duration
					}{
						{"direct", o.MCPURL, o.ProviderURL, &direct, &cpuDirect},
						{"bare proxies", bare.URL + "/mcp", bare.URL + "/provider", &bared, &cpuBare},
						{"record", ep.MCP, ep.Provider, &proxied, &cpuRecord},
					} {
						before := processCPU()
						l, err := benchTraffic(ctx, route.mcp, route.provider, stream, base, per)
						*route.cpu += processCPU() - before
						if err != nil {
							_, _ = stop()
							cancel()
							b.Fatalf("%s: %v", route.name, err)
						}
						*route.lats = append(*route.lats, l...)
					}
				}
				bare.Close()
				res, rerr := stop()
				cancel()
				if rerr != nil {
					b.Fatalf("record: %v", rerr)
				}
				if res.Pairs != benchCalls || res.Lost() {
					b.Errorf("%s; want all %d pairs", res.Stats, benchCalls)
				}
				d50, d99 := quantile(direct, 0.5), quantile(direct, 0.99)
				bare50, bare99 := quantile(bared, 0.5)-d50, quantile(bared, 0.99)-d99
				rec50, rec99 := quantile(proxied, 0.5)-d50, quantile(proxied, 0.99)-d99
				b.ReportMetric(float64(res.Pairs), "pairs")
				b.ReportMetric(d50, "direct-p50-ms")
				b.ReportMetric(bare50, "bare-added-p50-ms")
				b.ReportMetric(bare99, "bare-added-p99-ms")
				b.ReportMetric(rec50, "record-added-p50-ms")
				b.ReportMetric(rec99, "record-added-p99-ms")
				b.ReportMetric(rec50-bare50, "record-vs-bare-p50-ms")
				b.ReportMetric(rec99-bare99, "record-vs-bare-p99-ms")
				if bare50 > 0 {
					b.ReportMetric(rec50/bare50, "record/bare-added-p50")
				}
				if bare99 > 0 {
					b.ReportMetric(rec99/bare99, "record/bare-added-p99")
				}
				// The CPU time the process spent per call (upstreams and agent included, the same
				// on every route): what each hop costs, which the load of the machine does not
				// change as it changes latency. (Record's writes done after its phase, in the
				// next route's, count there: the rounds keep that small.)
				perCall := func(d time.Duration) float64 { return float64(d.Microseconds()) / benchCalls }
				b.ReportMetric(perCall(cpuBare-cpuDirect), "bare-cpu-us/call")
				b.ReportMetric(perCall(cpuRecord-cpuDirect), "record-cpu-us/call")
				b.ReportMetric(perCall(cpuRecord-cpuBare), "record-vs-bare-cpu-us/call")
			}
		})
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bareProxies is /mcp and /provider/ as plain reverse proxies to the upstreams, flushing as
// record's do, recording nothing.
func bareProxies(mcpURL, providerURL string) http.Handler {
	m, _ := url.Parse(mcpURL)
	p, _ := url.Parse(providerURL)
	tr := &http.Transport{MaxIdleConnsPerHost: 256, MaxIdleConns: 512}
	mux := http.NewServeMux()
	mux.Handle("/mcp", &httputil.ReverseProxy{Transport: tr, FlushInterval: -1, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path, pr.Out.Host = m.Scheme, m.Host, m.Path, ""
	}})
	mux.Handle("/provider/", &httputil.ReverseProxy{Transport: tr, FlushInterval: -1, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = p.Scheme, p.Host, ""
		pr.Out.URL.Path = strings.TrimPrefix(pr.In.URL.Path, "/provider")
	}})
	return mux
}

// Shape of BenchmarkRecordMemory: memCalls tools/call results of memResultBytes each over
// memConns concurrent connections.
const (
	memCalls       = 64
	memConns       = 16
	memResultBytes = 32 << 20
)

// filler is n bytes of a text that names call, streamed (the benchmark's own side holds none of
// it, so that the peak RSS measured is the recorder's).
func filler(call, n int) io.Reader {
	head := "result of call " + strconv.Itoa(call) + ": "
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('x'), int64(n-len(head))))
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// bigResult is the tools/call response of call: a text block of memResultBytes.
func bigResult(id string, call int) io.Reader {
	return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"`),
		filler(call, memResultBytes), strings.NewReader(`"}]}}`))
}

// bigCarrier is the Chat Completions request that carries call's result.
func bigCarrier(call int) io.Reader {
	id := "call_" + strconv.Itoa(call)
	args, _ := json.Marshal(`{"n":` + strconv.Itoa(call) + `}`)
	return io.MultiReader(strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"look it up"},{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"lookup","arguments":`+string(args)+`}}]},{"role":"tool","tool_call_id":"`+id+`","content":"`),
		filler(call, memResultBytes), strings.NewReader(`"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`))
}

// peakRSS is the process's peak resident set (VmHWM), in bytes; resetPeakRSS starts it again
// from the current RSS.
func peakRSS(b *testing.B) int64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.Lines(string(st)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	b.Skip("no VmHWM in /proc/self/status")
	return 0
}

func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS: %v", err)
	}
}

// BenchmarkRecordMemory sends memCalls tools/call results of memResultBytes each over memConns
// connections through record (each result then carried by a Chat Completions request through the
// provider proxy), under the memory budget the command line would give it (guard.Watch, the
// budget $CONTRACTCHECK_BENCH_BUDGET, default 1GiB), checks that the agent received every
// result byte for byte, and reports the process's peak RSS (VmHWM, reset before the run), which
// the budget must bound. The upstreams and the agent stream their bodies: what the process holds
// is the recorder's. Run it alone, with -benchtime=1x:
//
//	go test ./internal/record -run '^$' -bench RecordMemory -benchtime 1x
func BenchmarkRecordMemory(b *testing.B) {
	budgetText := os.Getenv("CONTRACTCHECK_BENCH_BUDGET")
	if budgetText == "" {
		budgetText = "1GiB"
	}
	budget, err := guard.ParseSize(budgetText)
	if err != nil {
		b.Fatalf("CONTRACTCHECK_BENCH_BUDGET: %v", err)
	}
	o, closeUpstreams := benchUpstreams(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Arguments struct{ N int } `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, bigResult(string(m.ID), m.Params.Arguments.N))
	}), false)
	defer closeUpstreams()
	o.Lane = "bench"
	for it := range b.N {
		ctx, stopWatch := guard.Watch(guard.WithLimits(context.Background(), guard.Limits{Memory: budget, Target: -1}))
		ctx, cancel := context.WithTimeout(ctx, benchDeadline)
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS(b)
		o.Output = filepath.Join(b.TempDir(), "rec"+strconv.Itoa(it))
		ep, stop := startRun(b, ctx, o)
		tr := &http.Transport{MaxIdleConnsPerHost: memConns, MaxConnsPerHost: memConns}
		hc := &http.Client{Transport: tr}
		errs := fanOut(ctx, memConns, memCalls, func(n int) error { return bigCall(ctx, hc, ep, n) })
		res, rerr := stop()
		peak := peakRSS(b)
		cancel()
		stopWatch()
		tr.CloseIdleConnections()
		b.Logf("peak RSS %d MiB (budget %s)", peak>>20, budgetText)
		for _, err := range errs {
			b.Error(err)
		}
		if rerr != nil {
			b.Fatalf("record: %v", rerr)
		}
		if res.Pairs != memCalls || res.Lost() {
			b.Errorf("%s; want all %d pairs", res.Stats, memCalls)
		}
		b.ReportMetric(float64(res.Pairs), "pairs")
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(budget)/(1<<20), "budget-MiB")
	}
}

// bigCall makes call n: a tools/call whose response must be bigResult byte for byte, then the
// provider request carrying it.
func bigCall(ctx context.Context, hc *http.Client, ep Endpoints, n int) error {
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(n) + `,"method":"tools/call","params":{"name":"lookup","arguments":{"n":` + strconv.Itoa(n) + `}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.MCP, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	got, want := sha256.New(), sha256.New()
	_, err = io.Copy(got, resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("tools/call %d: %w", n, err)
	}
	_, _ = io.Copy(want, bigResult(strconv.Itoa(n), n))
	if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		return fmt.Errorf("tools/call %d: the agent did not receive the server's bytes", n)
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, ep.Provider+"/v1/chat/completions", bigCarrier(n))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err = hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("provider request %d: %s", n, resp.Status)
	}
	return nil
}
