package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmark shape: benchCalls tool calls over benchConns concurrent connections, each call a
// tools/call through the MCP proxy and a Chat Completions request carrying its result through
// the provider proxy; the same traffic is first sent to the upstreams directly.
const (
	benchCalls    = 10_000
	benchConns    = 64
	benchDeadline = 3 * time.Minute
)

// benchMCP answers tools/call {"n": N} with a result naming N (every result distinct), as JSON
// or as an SSE stream.
func benchMCP(sse bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Arguments struct{ N int } `json:"arguments"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"order ` + strconv.Itoa(m.Params.Arguments.N) + ` shipped"}],"structuredContent":{"order":` + strconv.Itoa(m.Params.Arguments.N) + `,"state":"shipped"}}}`
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message\ndata: "+resp+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, resp)
	})
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
func benchTraffic(ctx context.Context, mcpURL, providerURL string, stream bool, base int) ([]time.Duration, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: benchConns, MaxConnsPerHost: benchConns, MaxIdleConns: 2 * benchConns}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		lats    []time.Duration
		firstMu sync.Mutex
		first   error
		wg      sync.WaitGroup
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
	for range benchConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1))
				if i > benchCalls || ctx.Err() != nil {
					return
				}
				n := base + i
				args := `{"n":` + strconv.Itoa(n) + `}`
				resp, err := do(mcpURL, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"lookup","arguments":`+args+`}}`, "Bearer bench-mcp-token-000")
				if err == nil {
					text := "order " + strconv.Itoa(n) + " shipped"
					if !strings.Contains(string(resp), text) {
						err = fmt.Errorf("tools/call %d: %s", n, resp)
					}
					id := "call_" + strconv.Itoa(n)
					argText, _ := json.Marshal(args)
					body := `{"model":"m","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"look it up"},{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"lookup","arguments":` + string(argText) + `}}]},{"role":"tool","tool_call_id":"` + id + `","content":"` + text + `"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`
					if err == nil {
						_, err = do(providerURL+"/v1/chat/completions", body, "Bearer sk-bench-provider-key-000")
					}
				}
				if err != nil {
					firstMu.Lock()
					if first == nil {
						first = err
					}
					firstMu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return lats, first
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

// BenchmarkRecord drives benchCalls tool calls over benchConns connections on loopback, plain and
// streamed, once directly, once through bare reverse proxies (the floor of any proxy on the same
// cores) and once through record, and reports the pairs written (want all) and the latency the
// proxies add per request at the median and the 99th percentile. Each iteration
// is the whole run (run it with -benchtime=1x); a run past benchDeadline fails.
func BenchmarkRecord(b *testing.B) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "streamed"}[stream]
		b.Run(name, func(b *testing.B) {
			mcp := httptest.NewServer(benchMCP(stream))
			defer mcp.Close()
			prov := httptest.NewServer(benchProvider(stream))
			defer prov.Close()
			for it := range b.N {
				ctx, cancel := context.WithTimeout(context.Background(), benchDeadline)
				direct, err := benchTraffic(ctx, mcp.URL+"/mcp", prov.URL, stream, 0)
				if err != nil {
					cancel()
					b.Fatalf("direct: %v", err)
				}
				// The floor: the same traffic through bare reverse proxies (no recording), which
				// costs the extra hop on the same cores.
				bare := httptest.NewServer(bareProxies(mcp.URL+"/mcp", prov.URL))
				bared, err := benchTraffic(ctx, bare.URL+"/mcp", bare.URL+"/provider", stream, 0)
				bare.Close()
				if err != nil {
					cancel()
					b.Fatalf("bare proxies: %v", err)
				}
				out := filepath.Join(b.TempDir(), "rec"+strconv.Itoa(it))
				ready := make(chan Endpoints, 1)
				var res *Result
				var rerr error
				done := make(chan struct{})
				rctx, stop := context.WithCancel(ctx)
				go func() {
					defer close(done)
					res, rerr = Run(rctx, Options{Lane: "bench", Version: "1", Output: out, MCPURL: mcp.URL + "/mcp", ProviderURL: prov.URL,
						Executable: os.Args[0], Ready: func(ep Endpoints) { ready <- ep }})
				}()
				var ep Endpoints
				select {
				case ep = <-ready:
				case <-done:
					cancel()
					b.Fatalf("record: %v", rerr)
				}
				proxied, err := benchTraffic(ctx, ep.MCP, ep.Provider, stream, 0)
				stop()
				<-done
				cancel()
				if err != nil {
					b.Fatalf("through record: %v", err)
				}
				if rerr != nil {
					b.Fatalf("record: %v", rerr)
				}
				if res.Pairs != benchCalls || res.Lost() {
					b.Errorf("%s; want all %d pairs", res.Stats, benchCalls)
				}
				b.ReportMetric(float64(res.Pairs), "pairs")
				b.ReportMetric(quantile(direct, 0.5), "direct-p50-ms")
				b.ReportMetric(quantile(proxied, 0.5), "proxied-p50-ms")
				b.ReportMetric(quantile(proxied, 0.5)-quantile(direct, 0.5), "added-p50-ms")
				b.ReportMetric(quantile(proxied, 0.99)-quantile(direct, 0.99), "added-p99-ms")
				b.ReportMetric(quantile(bared, 0.5)-quantile(direct, 0.5), "bare-added-p50-ms")
				b.ReportMetric(quantile(bared, 0.99)-quantile(direct, 0.99), "bare-added-p99-ms")
			}
		})
	}
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
