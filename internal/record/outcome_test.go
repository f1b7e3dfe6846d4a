package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// hostileMessage is an upstream error message that holds what no record or log line may hold as
// it is: a line break, a bidi override, an escape, a workflow command and a script tag.
const hostileMessage = "overloaded\n::error::pwned \u202e<script>x</script>\x1b[31m"

// tryPost sends one request and reads its answer, whatever it is: the status (0 when no answer
// came whole) and the body.
func tryPost(url string, header map[string]string, body string) (int, []byte) {
	status, b, err := send(url, header, body)
	if err != nil {
		return 0, b
	}
	return status, b
}

// chatCarrying is a Chat Completions request carrying call id's result text of lookup(args).
func chatCarrying(id, args, text string, stream bool) string {
	argText, _ := json.Marshal(args)
	content, _ := json.Marshal(text)
	return fmt.Sprintf(`{"model":"m","stream":%t,"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":%q,"type":"function","function":{"name":"lookup","arguments":%s}}]},{"role":"tool","tool_call_id":%q,"content":%s}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`,
		stream, id, argText, id, content)
}

// callThenCarry makes a tools/call of lookup with which through the MCP proxy (the stand-in
// answers it) and a Chat Completions request carrying its result through the provider proxy,
// whatever the provider answers.
func callThenCarry(t *testing.T, ep Endpoints, n int, which string, stream bool, header map[string]string) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"which": which})
	status, resp := tryPost(ep.MCP, header, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":%s}}`, n, args))
	var m struct {
		Result struct {
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal(resp, &m); status != http.StatusOK || err != nil || len(m.Result.Content) == 0 {
		t.Fatalf("tools/call: %d %s", status, resp)
	}
	tryPost(ep.Provider+"/v1/chat/completions", header, chatCarrying(fmt.Sprintf("call_%d", n), string(args), m.Result.Content[0].Text, stream))
}

// refusedURL is the URL of a port nothing listens on.
func refusedURL(t *testing.T) string { return "http://" + testkit.FreeAddr(t) }

// sseChat writes Chat Completions stream chunks, flushing each.
func sseChat(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range chunks {
		_, _ = io.WriteString(w, "data: "+c+"\n\n")
		w.(http.Flusher).Flush()
	}
}

const (
	chunkRole = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Do"},"finish_reason":null}]}`
	chunkStop = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"ne."},"finish_reason":"stop"}]}`
)

// TestUpstreamFailures: a provider answer that is not a success — an HTTP error status, a
// refused connection, an error object under 200, an error event, a stream that ended before its
// last event or was cut mid-stream — makes no captured record: each pair is written with H4
// execution_failed saying what failed (the upstream's message escaped, never a credential of the
// traffic), the summary counts them, and the recording is not clean (exit 3). A success, plain
// or streamed, is captured.
func TestUpstreamFailures(t *testing.T) {
	t.Parallel()
	const key = "sk-upstream-failure-test-0123456789"
	hostileJSON, _ := json.Marshal(hostileMessage)
	tests := []struct {
		name     string
		provider http.HandlerFunc // nil: a refused connection
		stream   bool
		want     []string // in each H4 record's error; nil: every pair captured
	}{
		{name: "502 with an error object", provider: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, `{"error":{"message":%s,"type":"server_error","param":null,"code":null}}`, hostileJSON)
		}, want: []string{"the provider answered HTTP 502 Bad Gateway: server_error: overloaded\\n::error::pwned \\u202e<script>x</script>\\u001b[31m"}},
		{name: "502 from a gateway, an HTML page", provider: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html><body>Bad gateway</body></html>")
		}, want: []string{"the provider answered HTTP 502 Bad Gateway"}},
		{name: "refused connection", want: []string{"the provider could not be reached: ", "connection refused"}},
		{name: "401 echoing the key", provider: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}`, key)
		}, want: []string{"the provider answered HTTP 401 Unauthorized: (a text holding a credential of the traffic: not shown)"}},
		{name: "an error object under 200", provider: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}`)
		}, want: []string{"the provider answered with an error: insufficient_quota: You exceeded your current quota"}},
		{name: "an error event mid-stream", stream: true, provider: func(w http.ResponseWriter, r *http.Request) {
			sseChat(w, chunkRole, `{"error":{"message":"The server had an error while processing your request","type":"server_error"}}`)
		}, want: []string{"the provider sent an error event: server_error: The server had an error"}},
		{name: "a stream that ended before its last event", stream: true, provider: func(w http.ResponseWriter, r *http.Request) {
			sseChat(w, chunkRole)
		}, want: []string{"the provider's event stream ended before its last event (data: [DONE])"}},
		{name: "a stream cut mid-stream", stream: true, provider: func(w http.ResponseWriter, r *http.Request) {
			sseChat(w, chunkRole)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // the chunked body never ends
			}
		}, want: []string{"the provider's answer was cut short after ", "unexpected EOF"}},
		{name: "a plain success", provider: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}],"error":null}`)
		}},
		{name: "a streamed success", stream: true, provider: func(w http.ResponseWriter, r *http.Request) {
			sseChat(w, chunkRole, chunkStop, "[DONE]")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mcp := httptest.NewServer(&standIn{})
			defer mcp.Close()
			provURL := refusedURL(t)
			if tc.provider != nil {
				prov := httptest.NewServer(tc.provider)
				defer prov.Close()
				provURL = prov.URL
			}
			out := filepath.Join(t.TempDir(), "rec")
			o := Options{Lane: "fail-agent", Version: "1", Output: out, ProviderURL: provURL, MCPURL: mcp.URL + "/mcp"}
			res, log, err := recording(t, o, func(ep Endpoints) error {
				for i, which := range []string{"text", "link"} {
					callThenCarry(t, ep, i+1, which, tc.stream, map[string]string{"Authorization": "Bearer " + key})
				}
				return nil
			})
			if err != nil {
				t.Fatalf("record: %v\n%s", err, log)
			}
			recs := readRecords(t, filepath.Join(out, "fail-agent", "1", "default.jsonl"))
			var errs []string
			captured := 0
			for _, r := range recs {
				switch {
				case r.Stage != "H4":
				case r.State == "captured":
					captured++
				case r.State == "execution_failed":
					errs = append(errs, recordError(t, out, r.Fixture, r.Repetition))
				default:
					t.Errorf("H4 record of %s: state %s", r.Fixture, r.State)
				}
			}
			if tc.want == nil {
				if captured != 2 || len(errs) != 0 || res.Lost() {
					t.Fatalf("%d captured, %d failed (%s); want 2 captured and nothing lost\n%s", captured, len(errs), res.Stats, log)
				}
				return
			}
			if captured != 0 || len(errs) != 2 {
				t.Fatalf("%d H4 records captured, %d execution_failed; want 0 and 2\n%s", captured, len(errs), log)
			}
			for _, e := range errs {
				for _, w := range tc.want {
					if !strings.Contains(e, w) {
						t.Errorf("H4 error %q, want it to hold %q", e, w)
					}
				}
			}
			if rep := judge(t, out); rep.Summary.ExecutionFailed == 0 || rep.Summary.Pass+rep.Summary.Unmet != 0 || rep.ExitCode() == result.ExitSatisfied {
				t.Errorf("check: %+v, exit %d; want the failed bindings execution_failed, none pass or unmet, not satisfied", rep.Summary, rep.ExitCode())
			}
			if !strings.Contains(res.Stats.String(), "failed upstream: 2 pairs written execution_failed (2 provider requests failed") || !res.Lost() {
				t.Errorf("summary %q (lost %t), want 2 pairs execution_failed of 2 failed requests, and not clean (exit 3)", res.Stats, res.Lost())
			}
			for p, b := range testkit.Tree(t, out) {
				if s := string(b); strings.Contains(s, key) || strings.ContainsAny(s, "\u202e\x1b") {
					t.Errorf("%s holds the key or a raw control or bidi character", p)
				}
			}
			for _, l := range strings.Split(log, "\n") {
				if strings.Contains(l, key) || strings.ContainsAny(l, "\u202e\x1b") || strings.HasPrefix(l, "::") {
					t.Errorf("log line %q holds the key, a raw control or bidi character, or a workflow command", l)
				}
			}
		})
	}
}

// recordError is the error of the H4 record of fixture's repetition in the output.
func recordError(t *testing.T, out, fixture string, rep int) string {
	t.Helper()
	b := testkit.Tree(t, out)["fail-agent/1/default.jsonl"]
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Fixture, Stage, State, Error string
			Repetition                   int
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Fixture == fixture && r.Stage == "H4" && r.Repetition == rep {
			return r.Error
		}
	}
	return ""
}

// TestMCPFailures: a tools/call whose exchange with the MCP server fails (an HTTP error status,
// a server that cannot be reached) has no result, so nothing is written; it is counted as failed
// (not unanswered) and the recording is not clean. A JSON-RPC error answer to tools/call is a
// result like any other: written, captured.
func TestMCPFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mcp     http.Handler // nil: a refused connection
		want    string       // in the summary
		written int          // pairs written, captured
	}{
		{name: "503", mcp: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"down"}}`)
		}), want: "1 tools/call requests the MCP server failed"},
		{name: "refused connection", want: "1 tools/call requests the MCP server failed"},
		{name: "a JSON-RPC error answer", mcp: &standIn{}, want: "0 tools/call requests the MCP server failed", written: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mcpURL := refusedURL(t)
			if tc.mcp != nil {
				srv := httptest.NewServer(tc.mcp)
				defer srv.Close()
				mcpURL = srv.URL
			}
			prov := httptest.NewServer(fakeprovider.New(fakeprovider.Config{Tool: "lookup"}))
			defer prov.Close()
			out := filepath.Join(t.TempDir(), "rec")
			o := Options{Lane: "fail-agent", Version: "1", Output: out, ProviderURL: prov.URL, MCPURL: mcpURL + "/mcp"}
			res, log, err := recording(t, o, func(ep Endpoints) error {
				_, resp := tryPost(ep.MCP, nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"which":"nothing"}}}`)
				text := "the tool failed"
				if tc.written > 0 {
					text = string(resp) // the agent hands the model the JSON-RPC error
				}
				tryPost(ep.Provider+"/v1/chat/completions", nil, chatCarrying("call_1", `{"which":"nothing"}`, text, false))
				return nil
			})
			if err != nil {
				t.Fatalf("record: %v\n%s", err, log)
			}
			s := res.Stats.String()
			if !strings.Contains(s, tc.want) || !strings.Contains(s, "0 calls unanswered") || res.Pairs != tc.written || res.Failed != 0 {
				t.Errorf("summary %q, want %q, no call unanswered, %d pairs written, none failed\n%s", s, tc.want, tc.written, log)
			}
			if lost := tc.written == 0; res.MCPFailed > 0 != lost {
				t.Errorf("MCPFailed %d, want it only when the exchange failed", res.MCPFailed)
			}
		})
	}
}

// TestFailedThenRetried: the engine holds the pair of a failed provider request until a later
// request carrying its item is answered (captured, counted retried) or the recording ends
// (written execution_failed); an item of a failed request that waits for its tools/call (a late
// stdio copy) is replaced by the retry's; the held pairs are bounded, the oldest written failed.
func TestFailedThenRetried(t *testing.T) {
	type step struct {
		call    string // a tools/call of lookup {"n": call} answered "R"+call
		carry   []string
		failure string
		final   bool
	}
	tests := []struct {
		name    string
		steps   []step
		bound   int
		want    []string // pairs written: id, then "captured" or the failure
		retried int
	}{
		{name: "failed then answered", steps: []step{{call: "a"}, {carry: []string{"a"}, failure: "HTTP 502"}, {carry: []string{"a"}}, {final: true}},
			want: []string{"a captured"}, retried: 1},
		{name: "failed twice, never answered", steps: []step{{call: "a"}, {carry: []string{"a"}, failure: "HTTP 502"}, {carry: []string{"a"}, failure: "HTTP 503"}, {final: true}},
			want: []string{"a HTTP 503"}},
		{name: "the item waits, failed, then the retry", steps: []step{{carry: []string{"a"}, failure: "HTTP 502"}, {carry: []string{"a"}}, {call: "a"}, {final: true}},
			want: []string{"a captured"}, retried: 1},
		{name: "a later request repeats an answered item", steps: []step{{call: "a"}, {carry: []string{"a"}}, {call: "b"}, {carry: []string{"a", "b"}, failure: "cut short"}, {final: true}},
			want: []string{"a captured", "b cut short"}},
		{name: "past the bound the oldest is written", bound: 1, steps: []step{{call: "a"}, {carry: []string{"a"}, failure: "x"}, {call: "b"}, {carry: []string{"b"}, failure: "y"}},
			want: []string{"a x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.bound > 0 {
				defer func(n int) { maxPending = n }(maxPending)
				maxPending = tc.bound
			}
			var got []string
			e := newEngine(func(c mcpCall, r provResult) {
				state := "captured"
				if r.failure != "" {
					state = r.failure
				}
				got = append(got, r.key+" "+state)
			}, func(string, ...any) {})
			id := 0
			for _, s := range tc.steps {
				switch {
				case s.call != "":
					id++
					e.mcp("s", false, toolsCall(id, s.call))
					e.mcp("s", true, toolsResult(id, "R"+s.call))
				case s.final:
					e.loopOnce(event{flush: make(chan struct{}), final: true})
				default:
					e.provider(fakeprovider.OpenAIChat, chatBody(s.carry...), s.failure)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("pairs %q, want %q", got, tc.want)
			}
			if st := e.Stats(); st.Retried != tc.retried || st.PendingResults != 0 {
				t.Errorf("stats %+v, want %d retried, nothing pending", st, tc.retried)
			}
			e.loopOnce(event{flush: make(chan struct{}), final: true})
			if len(e.failed) != 0 || len(e.failedRes) != 0 || e.failedBytes != 0 {
				t.Errorf("after the end %d pairs held, %d bytes; want none", len(e.failed), e.failedBytes)
			}
		})
	}
}

// TestAnswerNeverCame: a provider that never answers: at the end the recording cuts the exchange
// and writes its pair execution_failed, saying the recording ended first; nothing is lost
// silently and nothing is captured.
func TestAnswerNeverCame(t *testing.T) {
	t.Parallel()
	got := make(chan struct{}, 1)
	release := make(chan struct{})
	prov := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer prov.Close()
	defer close(release) // before prov.Close
	mcp := httptest.NewServer(&standIn{})
	defer mcp.Close()
	out := filepath.Join(t.TempDir(), "rec")
	// The end cuts the exchange after its grace (5 s by default; a tenth of a second here).
	o := Options{Lane: "fail-agent", Version: "1", Output: out, ProviderURL: prov.URL, MCPURL: mcp.URL + "/mcp", shutdownGrace: 100 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, log, err := recording(t, o, func(ep Endpoints) error {
		go func() { // the provider request, which never gets its answer
			status, resp := tryPost(ep.MCP, nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"which":"text"}}}`)
			if status == http.StatusOK {
				tryPost(ep.Provider+"/v1/chat/completions", nil, chatCarrying("call_1", `{"which":"text"}`, string(resp), false))
			}
		}()
		select {
		case <-got:
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("record: %v\n%s", err, log)
	}
	recs := readRecords(t, filepath.Join(out, "fail-agent", "1", "default.jsonl"))
	if len(recs) != 4 || recs[3].State != "execution_failed" || res.Failed != 1 || !res.Lost() {
		t.Fatalf("records %+v, %s; want one pair, H4 execution_failed\n%s", recs, res.Stats, log)
	}
	if e := recordError(t, out, recs[3].Fixture, 1); e != "the recording ended before the provider answered" {
		t.Errorf("H4 error %q", e)
	}
}

// TestOutcome: what each provider API's answer says of its success, read as it passes in
// chunks of any size: the last event of each stream, the error events, a body that is an error
// object; a content-encoded answer is judged by its status alone.
func TestOutcome(t *testing.T) {
	t.Parallel()
	const (
		sse  = "text/event-stream"
		js   = "application/json"
		long = 2 << 20 // an event past maxScanEvent
	)
	ev := func(name, data string) string {
		if name == "" {
			return "data: " + data + "\n\n"
		}
		return "event: " + name + "\ndata: " + data + "\n\n"
	}
	tests := []struct {
		name   string
		api    fakeprovider.API
		status int
		ctype  string
		enc    string
		body   string
		end    error  // what the read returns after the body (io.EOF when nil)
		want   string // "" a success, else a part of the failure
	}{
		{name: "responses completed", api: fakeprovider.OpenAIResponses, ctype: sse,
			body: ev("response.created", `{"type":"response.created","response":{"error":null}}`) + ev("response.completed", `{"type":"response.completed","response":{"status":"completed","error":null}}`)},
		{name: "responses incomplete", api: fakeprovider.OpenAIResponses, ctype: sse,
			body: ev("response.incomplete", `{"type":"response.incomplete"}`)},
		{name: "responses failed", api: fakeprovider.OpenAIResponses, ctype: sse,
			body: ev("response.created", `{"type":"response.created"}`) + ev("response.failed", `{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model failed"}}}`),
			want: "the provider sent an error event: server_error: The model failed"},
		{name: "responses error event without its name line", api: fakeprovider.OpenAIResponses, ctype: sse,
			body: ev("", `{"type":"error","code":"rate_limit_exceeded","message":"Slow down"}`), want: "sent an error event: Slow down"},
		{name: "responses cut before response.completed", api: fakeprovider.OpenAIResponses, ctype: sse,
			body: ev("response.created", `{"type":"response.created"}`), want: "ended before its last event (response.completed or response.incomplete)"},
		{name: "anthropic message_stop, CRLF lines", api: fakeprovider.Anthropic, ctype: sse,
			body: "event: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\nevent: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n"},
		{name: "anthropic overloaded mid-stream", api: fakeprovider.Anthropic, ctype: sse,
			body: ev("message_start", `{"type":"message_start"}`) + ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			want: "the provider sent an error event: overloaded_error: Overloaded"},
		{name: "anthropic last event without its blank line", api: fakeprovider.Anthropic, ctype: sse,
			body: "event: message_stop\ndata: {\"type\":\"message_stop\"}"},
		{name: "anthropic cut", api: fakeprovider.Anthropic, ctype: sse,
			body: ev("message_start", `{"type":"message_start"}`), want: "(message_stop)"},
		// An agent may stop reading at the last event and close its connection before the
		// provider's end of stream reaches the proxy: the answer reached it whole.
		{name: "anthropic message_stop, then the agent hung up", api: fakeprovider.Anthropic, ctype: sse,
			body: ev("message_start", `{"type":"message_start"}`) + ev("message_stop", `{"type":"message_stop"}`), end: context.Canceled},
		{name: "chat done, then the agent hung up", api: fakeprovider.OpenAIChat, ctype: sse, body: ev("", chunkRole) + ev("", "[DONE]"), end: context.Canceled},
		{name: "anthropic, the agent hung up before message_stop", api: fakeprovider.Anthropic, ctype: sse,
			body: ev("message_start", `{"type":"message_start"}`), end: context.Canceled, want: "cut short after"},
		{name: "anthropic message_stop, then a read error", api: fakeprovider.Anthropic, ctype: sse,
			body: ev("message_stop", `{"type":"message_stop"}`), end: io.ErrUnexpectedEOF, want: "cut short after"},
		{name: "chat done", api: fakeprovider.OpenAIChat, ctype: sse, body: ev("", chunkRole) + ev("", "[DONE]")},
		{name: "chat a large chunk, then done", api: fakeprovider.OpenAIChat, ctype: sse,
			body: ev("", `{"choices":[{"delta":{"content":"`+strings.Repeat("x", long)+`"}}]}`) + ev("", "[DONE]")},
		{name: "gemini finishReason", api: fakeprovider.Gemini, ctype: sse,
			body: ev("", `{"candidates":[{"content":{"parts":[{"text":"Do"}]}}]}`) + ev("", `{"candidates":[{"content":{"parts":[{"text":"ne."}]},"finishReason":"STOP"}]}`)},
		{name: "gemini cut", api: fakeprovider.Gemini, ctype: sse,
			body: ev("", `{"candidates":[{"content":{"parts":[{"text":"Do"}]}}]}`), want: "(a chunk with a finishReason)"},
		{name: "gemini error chunk", api: fakeprovider.Gemini, ctype: sse,
			body: ev("", `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`), want: "UNAVAILABLE: The model is overloaded."},
		{name: "gemini JSON array with an error element", api: fakeprovider.Gemini, ctype: js,
			body: `[{"candidates":[{"finishReason":"STOP"}]},{"error":{"code":500,"message":"internal","status":"INTERNAL"}}]`, want: "answered with an error: INTERNAL: internal"},
		{name: "gemini JSON array", api: fakeprovider.Gemini, ctype: js, body: `[{"candidates":[{"finishReason":"STOP"}]}]`},
		{name: "anthropic 529", api: fakeprovider.Anthropic, status: 529, ctype: js,
			body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, want: "the provider answered HTTP 529: overloaded_error: Overloaded"},
		{name: "429 with a text body", api: fakeprovider.OpenAIChat, status: 429, ctype: "text/plain", body: "slow down\n", want: "answered HTTP 429 Too Many Requests: slow down"},
		{name: "a large success whose head holds error null", api: fakeprovider.OpenAIResponses, ctype: js,
			body: `{"id":"r","error":null,"output":[{"text":"` + strings.Repeat("y", long) + `"}]}`},
		{name: "a large success: no error member in the head", api: fakeprovider.OpenAIChat, ctype: js,
			body: `{"id":"c","choices":[{"message":{"content":"` + strings.Repeat("y", long) + `"}}],"error":{"message":"past the head: not seen"}}`},
		{name: "an empty 200", api: fakeprovider.OpenAIChat, ctype: js, body: "", want: "an empty body"},
		{name: "a 200 that is not JSON", api: fakeprovider.OpenAIChat, ctype: "text/html", body: "<html>maintenance</html>", want: "a body that is not JSON"},
		{name: "gzip: the status alone", api: fakeprovider.OpenAIChat, ctype: js, enc: "gzip", body: "\x1f\x8b not looked into"},
		{name: "gzip 500", api: fakeprovider.OpenAIChat, status: 500, ctype: js, enc: "gzip", body: "\x1f\x8b", want: "answered HTTP 500 Internal Server Error"},
	}
	for _, tc := range tests {
		for _, chunk := range []int{1, 7, 1 << 16} {
			if chunk == 1 && len(tc.body) > 1<<16 {
				continue
			}
			t.Run(fmt.Sprintf("%s/chunks of %d", tc.name, chunk), func(t *testing.T) {
				status := tc.status
				if status == 0 {
					status = http.StatusOK
				}
				resp := &http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), Header: http.Header{},
					Body: io.NopCloser(&chunked{s: tc.body, n: chunk, end: tc.end})}
				resp.Header.Set("Content-Type", tc.ctype)
				if tc.enc != "" {
					resp.Header.Set("Content-Encoding", tc.enc)
				}
				o := &outcome{api: tc.api}
				o.response(resp)
				if _, err := io.Copy(io.Discard, resp.Body); err != tc.end {
					t.Fatalf("read: %v, want %v", err, tc.end)
				}
				got := o.failure("the provider", false, clean)
				if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
					t.Errorf("failure %q, want %q", got, tc.want)
				}
			})
		}
	}
}

// chunked reads s n bytes at a time, then returns end (io.EOF when nil).
type chunked struct {
	s   string
	n   int
	end error
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		if c.end != nil {
			return 0, c.end
		}
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

// BenchmarkOutcomeSSE: what watching a streamed answer costs, per byte: a Chat stream of 1,000
// chunks read through outcomeBody.
func BenchmarkOutcomeSSE(b *testing.B) {
	var s strings.Builder
	for range 1000 {
		s.WriteString("data: " + chunkRole + "\n\n")
	}
	s.WriteString("data: [DONE]\n\n")
	body := s.String()
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		resp := &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(body))}
		o := &outcome{api: fakeprovider.OpenAIChat}
		o.response(resp)
		if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{resp.Body}, buf); err != nil {
			b.Fatal(err)
		}
		if f := o.failure("the provider", false, clean); f != "" {
			b.Fatal(f)
		}
	}
}

// TestRetryCaptured: through the proxies, a provider request answered 502 and then retried with
// success: the pair is written once, captured from the retry, the failure counted but nothing
// lost (exit 0).
func TestRetryCaptured(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	prov := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, `{"error":{"message":"try again"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}]}`)
	}))
	defer prov.Close()
	mcp := httptest.NewServer(&standIn{})
	defer mcp.Close()
	out := filepath.Join(t.TempDir(), "rec")
	o := Options{Lane: "fail-agent", Version: "1", Output: out, ProviderURL: prov.URL, MCPURL: mcp.URL + "/mcp"}
	res, log, err := recording(t, o, func(ep Endpoints) error {
		callThenCarry(t, ep, 1, "text", false, nil)
		// the SDK's retry: the same request again
		tryPost(ep.Provider+"/v1/chat/completions", nil, chatCarrying("call_1", `{"which":"text"}`, "plain text, with \"quotes\" and <b>", false))
		return nil
	})
	if err != nil {
		t.Fatalf("record: %v\n%s", err, log)
	}
	recs := readRecords(t, filepath.Join(out, "fail-agent", "1", "default.jsonl"))
	if len(recs) != 4 || recs[3].State != "captured" || res.Pairs != 1 || res.Failed != 0 || res.Retried != 1 || res.ProviderFailed != 1 || res.Lost() {
		t.Fatalf("records %+v, %s; want one pair captured from the retry, 1 request failed, nothing lost\n%s", recs, res.Stats, log)
	}
}
