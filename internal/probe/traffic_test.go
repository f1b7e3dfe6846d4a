package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testagent"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// hostileText is what the hostile agent sends: an ANSI escape, a bell, a bidi override, U+2028, a
// workflow command at a line start, a carriage return, and bytes that are not UTF-8.
const hostileText = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"fixture_tool\",\"arguments\":{\"q\":\"\x1b[31mred\x07 \u202eevil\u2028x\n::error file=a::pwned\r\n\xff\xfe\xc0\"}}}"

// The secrets the hostile agent sends, which the traffic must not hold.
const (
	secretBearer = "sk-bearer-not-for-the-file"
	secretHeader = "goog-key-not-for-the-file"
	secretQuery  = "query-key-not-for-the-file"
)

// init plays the hostile agent when the probe runs this test binary with
// CONTRACTCHECK_TESTAGENT=traffic-hostile (before TestMain, which knows the other agents): it
// posts hostile bytes to the MCP endpoint and to the provider with credentials in a header and
// the query, writes the response bodies it got to TRAFFIC_RESPONSES (JSON, base64) and exits 1.
func init() {
	if os.Getenv("CONTRACTCHECK_TESTAGENT") != "traffic-hostile" {
		return
	}
	if err := hostileAgent(); err != nil {
		fmt.Fprintln(os.Stderr, "hostile agent:", err)
		os.Exit(2)
	}
	os.Exit(1)
}

func hostileAgent() error {
	post := func(url string, body []byte, h map[string]string) ([]byte, error) {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	mcp, err := post(os.Getenv("CONTRACTCHECK_MCP_URL"), []byte(hostileText), map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Authorization": "Bearer " + secretBearer})
	if err != nil {
		return err
	}
	prov, err := post(os.Getenv("OPENAI_BASE_URL")+"/chat/completions?alt=sse&key="+secretQuery, []byte(hostileText),
		map[string]string{"Content-Type": "application/json", "X-Goog-Api-Key": secretHeader, "X-Hostile": "\u202eevil"})
	if err != nil {
		return err
	}
	out, err := json.Marshal(map[string][]byte{"mcp": mcp, "provider": prov})
	if err != nil {
		return err
	}
	return os.WriteFile(os.Getenv("TRAFFIC_RESPONSES"), out, 0o644)
}

// readRun reads the traffic file of one run a probe wrote.
func readRun(t *testing.T, o Options, run string, rep int) (*Traffic, []byte) {
	t.Helper()
	file := filepath.Join(o.Output, filepath.FromSlash(TrafficPath(o.Lane, o.Version, o.Configuration, run, rep)))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the run's traffic: %v", err)
	}
	tr, err := ReadTraffic(file, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tr, data
}

// endpoints lists each exchange's endpoint, method and path, in order.
func endpoints(tr *Traffic) []string {
	var out []string
	for _, x := range tr.Exchanges {
		out = append(out, x.Endpoint+" "+x.Method+" "+x.Path)
	}
	return out
}

// TestTraffic: --traffic writes every exchange of each run, a captured run's and a failed run's,
// in arrival order, bodies exact; a probe that ends in an error still leaves it; check reads the
// directory as it did without it.
func TestTraffic(t *testing.T) {
	t.Parallel()
	chat := []string{"TESTAGENT_API=openai-chat", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=http"}
	tests := []struct {
		name     string
		mode     string
		env      []string
		provider string
		runErr   string   // Run's error, when it ends in one
		want     []string // the exchanges' endpoints, methods and paths, in order (a prefix)
		captured int
		// check reads what the run's traffic must hold.
		check func(t *testing.T, tr *Traffic)
	}{
		{name: "captured over http, streamed", mode: "agent", env: chat, captured: 1,
			want: []string{"mcp POST /mcp"},
			check: func(t *testing.T, tr *Traffic) {
				var gen []Exchange
				for _, x := range tr.Exchanges {
					if x.Endpoint == "provider" && x.Path == "/v1/chat/completions" {
						gen = append(gen, x)
					}
				}
				if len(gen) != 2 {
					t.Fatalf("%d chat completions exchanges, want the call and the follow-up: %v", len(gen), endpoints(tr))
				}
				// The follow-up carries the tool result; the stream answer is kept whole.
				if !bytes.Contains(gen[1].Request, []byte(`"role":"tool"`)) || !bytes.Contains(gen[0].Response, []byte("data: [DONE]")) {
					t.Errorf("follow-up request %s\nfirst response %s", gen[1].Request, gen[0].Response)
				}
				if gen[0].ResponseHeaders.Get("Content-Type") != "text/event-stream" || gen[0].Status != http.StatusOK {
					t.Errorf("stream response %d %v", gen[0].Status, gen[0].ResponseHeaders)
				}
				if got := gen[0].RequestHeaders.Get("Authorization"); got != redacted {
					t.Errorf("Authorization %q, want it redacted", got)
				}
				var call bool
				for _, x := range tr.Exchanges {
					call = call || x.Endpoint == "mcp" && bytes.Contains(x.Request, []byte(`"tools/call"`)) && bytes.Contains(x.Response, []byte("Route optimised"))
				}
				if !call {
					t.Errorf("no tools/call exchange serving C09: %v", endpoints(tr))
				}
			}},
		{name: "captured over stdio, through the relay", mode: "agent", captured: 1,
			env:  []string{"TESTAGENT_API=gemini", "TESTAGENT_STREAM=0", "TESTAGENT_TRANSPORT=stdio"},
			want: []string{"mcp POST /mcp"},
			check: func(t *testing.T, tr *Traffic) {
				if !slices.Contains(endpoints(tr), "provider POST /v1beta/models/gemini-2.5-flash:generateContent") {
					t.Errorf("no Gemini request: %v", endpoints(tr))
				}
			}},
		{name: "a command that fails before contacting anything", mode: "agent", provider: "openai-chat",
			env: append(slices.Clone(chat), "TESTAGENT_MODE="+testagent.ModeFail)},
		{name: "a command that never sends the result on", mode: "agent", provider: "openai-chat",
			env:  append(slices.Clone(chat), "TESTAGENT_MODE="+testagent.ModeNoFollowUp),
			want: []string{"mcp POST /mcp"},
			check: func(t *testing.T, tr *Traffic) {
				last := tr.Exchanges[len(tr.Exchanges)-1]
				if n := strings.Count(strings.Join(endpoints(tr), "\n"), "provider POST /v1/chat/completions"); n != 1 || last.Endpoint != "mcp" {
					t.Errorf("want one model request and the tool call last: %v", endpoints(tr))
				}
			}},
		{name: "a refused model request: the run fails, the traffic stays", mode: "traffic-hostile",
			want: []string{"mcp POST /mcp", "provider POST /v1/chat/completions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			responses := filepath.Join(t.TempDir(), "responses.json")
			o := probeOpts(t, tt.mode, append(slices.Clone(tt.env), "TRAFFIC_RESPONSES="+responses), "C09")
			o.Traffic, o.Provider = true, tt.provider
			res, err := Run(context.Background(), o)
			switch {
			case tt.runErr != "" && (err == nil || !strings.Contains(err.Error(), tt.runErr)):
				t.Fatalf("error %v, want %q", err, tt.runErr)
			case tt.runErr == "" && err != nil:
				t.Fatal(err)
			case tt.runErr == "" && (res.Captured != tt.captured || res.Traffic != "traffic/acme-agent/1.0.0/default"):
				t.Fatalf("result %+v", res)
			}
			tr, data := readRun(t, o, "C09", 1)
			h := tr.Header
			if h.Format != TrafficFormat || h.Lane != "acme-agent" || h.Run != "C09" || !slices.Equal(h.Fixtures, []string{"C09"}) || h.Repetition != 1 {
				t.Errorf("header %+v", h)
			}
			if got := endpoints(tr); len(got) < len(tt.want) || !slices.Equal(got[:len(tt.want)], tt.want) {
				t.Errorf("exchanges %v, want them to start %v", got, tt.want)
			}
			if len(tt.want) == 0 && len(tr.Exchanges) != 0 {
				t.Errorf("exchanges %v, want none", endpoints(tr))
			}
			for i, x := range tr.Exchanges {
				if x.Seq != i+1 || x.Incomplete {
					t.Errorf("exchange %d: seq %d, incomplete %v", i+1, x.Seq, x.Incomplete)
				}
			}
			if tt.check != nil {
				tt.check(t, tr)
			}
			if !utf8.Valid(data) || bytes.Contains(data, []byte("not-for-the-file")) {
				t.Errorf("the file is not UTF-8 or holds a secret:\n%s", data)
			}
			if tt.runErr == "" {
				// check reads the directory's records, not its traffic.
				if _, err := check.Run(context.Background(), JudgeOptions(o, res)); err != nil {
					t.Errorf("check of the output: %v", err)
				}
			}
		})
	}
}

// TestTrafficHostile: what the agent sent and what it got back are in the file byte for byte,
// invalid UTF-8 included, and the credentials it sent are not.
func TestTrafficHostile(t *testing.T) {
	t.Parallel()
	responses := filepath.Join(t.TempDir(), "responses.json")
	o := probeOpts(t, "traffic-hostile", []string{"TRAFFIC_RESPONSES=" + responses}, "C09")
	o.Traffic, o.Provider = true, "openai-chat"
	res, err := Run(context.Background(), o)
	if err != nil || res.Failed != 1 {
		t.Fatalf("result %+v, %v", res, err)
	}
	var got map[string][]byte
	data, err := os.ReadFile(responses)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	tr, file := readRun(t, o, "C09", 1)
	if len(tr.Exchanges) != 2 {
		t.Fatalf("%d exchanges: %v", len(tr.Exchanges), endpoints(tr))
	}
	for i, ep := range []string{"mcp", "provider"} {
		x := tr.Exchanges[i]
		if x.Endpoint != ep || !bytes.Equal(x.Request, []byte(hostileText)) {
			t.Errorf("%s request %q, want %q", ep, x.Request, hostileText)
		}
		// The fake provider's error quotes the request's query: the key in it is redacted there,
		// and the exchange says so; every other byte is what the agent got.
		want := bytes.ReplaceAll(got[ep], []byte(secretQuery), []byte(redacted))
		if !bytes.Equal(x.Response, want) || len(want) == 0 || x.Redacted != (ep == "provider") {
			t.Errorf("%s response %q (redacted %v), the agent got %q", ep, x.Response, x.Redacted, got[ep])
		}
	}
	if q := tr.Exchanges[1].Query; q != "alt=sse&key="+redacted {
		t.Errorf("query %q", q)
	}
	if h := tr.Exchanges[1].RequestHeaders.Get("X-Goog-Api-Key"); h != redacted {
		t.Errorf("X-Goog-Api-Key %q", h)
	}
	if h := tr.Exchanges[1].RequestHeaders.Get("X-Hostile"); h != "\u202eevil" {
		t.Errorf("X-Hostile %q", h)
	}
	// Invalid UTF-8 goes as base64, and every other character that is not graphic as an escape,
	// so the file holds no raw control or format character.
	if !bytes.Contains(file, []byte(`"request":{"base64":`)) || bytes.ContainsAny(file, "\x1b\x07\r\u202e\u2028") {
		t.Errorf("file:\n%q", file)
	}
}

// TestTrafficDeterministic: two probes of the same agent write the same bytes, and a later probe
// with fewer repetitions leaves no traffic of the earlier one's extra repetitions.
func TestTrafficDeterministic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		env   []string
		batch bool
	}{
		{name: "responses over stdio", env: []string{"TESTAGENT_API=openai-responses", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=stdio"}},
		{name: "anthropic batch", env: []string{"TESTAGENT_API=anthropic", "TESTAGENT_STREAM=0", "TESTAGENT_TRANSPORT=http"}, batch: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files [2]map[string][]byte
			var outs [2]Options
			for i := range files {
				o := probeOpts(t, "agent", tt.env, "C07", "C09")
				o.Traffic, o.Batch, o.Repetitions = true, tt.batch, 2
				if _, err := Run(context.Background(), o); err != nil {
					t.Fatal(err)
				}
				files[i] = testkit.Tree(t, filepath.Join(o.Output, TrafficDir))
				outs[i] = o
			}
			want := 4
			if tt.batch {
				want = 2
			}
			if len(files[0]) != want {
				t.Fatalf("%d traffic files, want %d: %v", len(files[0]), want, files[0])
			}
			for name, data := range files[0] {
				if !bytes.Equal(data, files[1][name]) {
					t.Errorf("%s differs between two probes:\n%s\n%s", name, data, files[1][name])
				}
			}
			// Again into the first directory, one repetition: the second's traffic is gone.
			o := outs[0]
			o.Repetitions = 1
			if _, err := Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			if n := len(testkit.Tree(t, filepath.Join(o.Output, TrafficDir))); n != want/2 {
				t.Errorf("%d traffic files after a probe of one repetition, want %d", n, want/2)
			}
			if tt.batch {
				tr, _ := readRun(t, o, batchRun, 1)
				if tr.Header.Run != "batch" || !slices.Equal(tr.Header.Fixtures, []string{"C07", "C09"}) {
					t.Errorf("batch header %+v", tr.Header)
				}
				if f, err := FindTraffic(o.Output, "", "", "", "C09", 1); err != nil || !strings.HasSuffix(filepath.ToSlash(f), "/_batch/1.ndjson") {
					t.Errorf("FindTraffic C09: %s, %v", f, err)
				}
			}
		})
	}
}

// TestTrafficOnlyDirectory: the output of a probe that failed before its records (the traffic
// only) is written into by the next probe, and FindTraffic finds a run's file or says why not.
func TestTrafficOnlyDirectory(t *testing.T) {
	t.Parallel()
	o := probeOpts(t, "exit1", nil, "C09")
	o.Traffic = true
	if res, err := Run(context.Background(), o); err != nil || res.Failed != 1 {
		t.Fatalf("a probe whose command spoke to no provider: %+v, %v", res, err)
	}
	// What a probe that ended in an error after its runs (a command that spoke several provider
	// APIs) leaves: the traffic alone.
	for _, f := range []string{"acme-agent", "probe.cue", "probe.json"} {
		if err := os.RemoveAll(filepath.Join(o.Output, f)); err != nil {
			t.Fatal(err)
		}
	}
	if !onlyTraffic(o.Output) {
		t.Fatalf("%s does not hold the traffic alone", o.Output)
	}
	o.Provider = "openai-chat"
	res, err := Run(context.Background(), o)
	if err != nil || res.Failed != 1 {
		t.Fatalf("probe into a directory of traffic: %+v, %v", res, err)
	}
	tests := []struct {
		name                  string
		lane, fixture, errMsg string
		rep                   int
	}{
		{name: "the fixture's run", fixture: "C09", rep: 1},
		{name: "by lane", lane: "acme-agent", fixture: "C09", rep: 1},
		{name: "another lane", lane: "other", fixture: "C09", rep: 1, errMsg: "no traffic of C09 repetition 1"},
		{name: "a repetition not run", fixture: "C09", rep: 2, errMsg: "no traffic of C09 repetition 2"},
		{name: "repetition 0", fixture: "C09", rep: 0, errMsg: "counts from 1"},
		{name: "a fixture that is a path", fixture: "../C09", rep: 1, errMsg: "a fixture id is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := FindTraffic(o.Output, tt.lane, "", "", tt.fixture, tt.rep)
			if tt.errMsg != "" {
				var pe *result.InputError
				if err == nil || !strings.Contains(err.Error(), tt.errMsg) || !errors.As(err, &pe) {
					t.Fatalf("%s, %v; want an input error with %q", f, err, tt.errMsg)
				}
				return
			}
			if err != nil || filepath.ToSlash(f) != filepath.ToSlash(filepath.Join(o.Output, "traffic/acme-agent/1.0.0/default/C09/1.ndjson")) {
				t.Fatalf("%s, %v", f, err)
			}
		})
	}
	// Another lane in the same directory: the run is ambiguous until the lane is named.
	o2 := o
	o2.Lane = "other-agent"
	if _, err := Run(context.Background(), o2); err != nil {
		t.Fatal(err)
	}
	if f, err := FindTraffic(o.Output, "", "", "", "C09", 1); err == nil || !strings.Contains(err.Error(), "2 runs of C09 repetition 1") {
		t.Errorf("two lanes: %s, %v", f, err)
	}
	if f, err := FindTraffic(o.Output, "other-agent", "", "", "C09", 1); err != nil || !strings.Contains(filepath.ToSlash(f), "/traffic/other-agent/") {
		t.Errorf("the other lane: %s, %v", f, err)
	}
}

// TestBody: a body is kept as a JSON string when it is UTF-8 and as base64 when not, and reads
// back to the same bytes.
func TestBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		json string
	}{
		{name: "empty", in: "", json: `""`},
		{name: "JSON text", in: `{"a":"<b>&"}`, json: `"{\"a\":\"<b>&\"}"`},
		{name: "controls and separators", in: "\x1b[2J\u2028\u202e\x00\x7f\r\n\t", json: `"\u001b[2J\u2028\u202e\u0000\u007f\r\n\t"`},
		{name: "graphic text as it is", in: "café ✓ 日本 \\ \"", json: `"café ✓ 日本 \\ \""`},
		{name: "a format character past the basic plane", in: "\U000E0001", json: `"\udb40\udc01"`},
		{name: "invalid UTF-8", in: "ok\xff\xc0", json: `{"base64":"b2v/wA=="}`},
		{name: "a lone surrogate's encoding", in: "\xed\xa0\x80", json: `{"base64":"7aCA"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := Body(tt.in).MarshalJSON()
			if err != nil || string(data) != tt.json {
				t.Fatalf("marshal %q: %s, %v; want %s", tt.in, data, err, tt.json)
			}
			var b Body
			if err := json.Unmarshal(data, &b); err != nil || string(b) != tt.in {
				t.Errorf("unmarshal %s: %q, %v", data, b, err)
			}
		})
	}
	for _, bad := range []string{`{"base64":"!!"}`, `{"hex":"00"}`, `1`, `{}`} {
		var b Body
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("%s read as a body %q", bad, b)
		}
	}
}

// TestEscapeGraphic: a JSON line's format characters are escaped, and it reads back the same.
func TestEscapeGraphic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{name: "nothing to escape", in: `{"a":"café ✓"}`, want: `{"a":"café ✓"}`},
		{name: "a bidi override in a value", in: "{\"h\":[\"\u202eevil\"]}", want: `{"h":["\u202eevil"]}`},
		{name: "a zero width joiner and a tag", in: "{\"p\":\"a\u200db\U000E0041\"}", want: `{"p":"a\u200db\udb40\udc41"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(escapeGraphic([]byte(tt.in)))
			if got != tt.want {
				t.Fatalf("%s, want %s", got, tt.want)
			}
			var a, b any
			if json.Unmarshal([]byte(tt.in), &a) != nil || json.Unmarshal([]byte(got), &b) != nil || fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%s reads back as %v, not %v", got, b, a)
			}
		})
	}
}

// TestRedact: credentials in headers and the query are redacted, everything else kept.
func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key string
		secret    bool
	}{
		{name: "authorization", key: "Authorization", secret: true},
		{name: "anthropic key", key: "X-Api-Key", secret: true},
		{name: "gemini key", key: "X-Goog-Api-Key", secret: true},
		{name: "cookie", key: "Cookie", secret: true},
		{name: "proxy authorization", key: "Proxy-Authorization", secret: true},
		{name: "content type", key: "Content-Type"},
		{name: "session", key: "Mcp-Session-Id"},
		{name: "user agent", key: "User-Agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := redactHeaders(http.Header{tt.key: {"v1", "v2"}})
			want := []string{"v1", "v2"}
			if tt.secret {
				want = []string{redacted, redacted}
			}
			if !slices.Equal(h[tt.key], want) {
				t.Errorf("%s: %v, want %v", tt.key, h[tt.key], want)
			}
		})
	}
	if got := redactQuery("alt=sse&key=abc&access_token=x&x=1"); got != "alt=sse&key=[redacted]&access_token=[redacted]&x=1" {
		t.Errorf("query %q", got)
	}
}

// TestCapture: the middleware keeps each body within its bound and a run's bodies within the
// run's, counting the rest; marks an exchange still under way when the run ends; and redacts a
// credential the run's requests carried wherever a body holds it, but the public dummy key.
func TestCapture(t *testing.T) {
	t.Parallel()
	type req struct {
		body    string
		headers map[string]string
	}
	type want struct {
		request, response       string
		reqOmitted, respOmitted int64
		redacted                bool
	}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		half := len(b) / 2
		_, _ = w.Write(b[:half])
		w.(http.Flusher).Flush()
		_, _ = w.Write(b[half:])
	})
	long := strings.Repeat("a", 150)
	tests := []struct {
		name            string
		maxBody, maxRun int64
		reqs            []req
		want            []want
	}{
		{name: "within the bounds", maxBody: 100, maxRun: 1000, reqs: []req{{body: "hello"}},
			want: []want{{request: "hello", response: "hello"}}},
		{name: "a body past its bound", maxBody: 100, maxRun: 1000, reqs: []req{{body: long}},
			want: []want{{request: long[:100], response: long[:100], reqOmitted: 50, respOmitted: 50}}},
		{name: "a run past its bound", maxBody: 100, maxRun: 120, reqs: []req{{body: long[:50]}, {body: long[:50]}},
			want: []want{{request: long[:50], response: long[:50]}, {request: long[:20], reqOmitted: 30, respOmitted: 50}}},
		{name: "a credential in a later body", maxBody: 100, maxRun: 1000,
			reqs: []req{{body: "{}", headers: map[string]string{"Authorization": "Bearer sk-live-123456"}},
				{body: "key sk-live-123456 and " + "contractcheck-probe"}},
			want: []want{{request: "{}", response: "{}"},
				{request: "key [redacted] and contractcheck-probe", response: "key [redacted] and contractcheck-probe", redacted: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &runCapture{next: echo, maxBody: int(tt.maxBody), maxRun: tt.maxRun}
			for _, rq := range tt.reqs {
				r, err := http.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(rq.body))
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range rq.headers {
					r.Header.Set(k, v)
				}
				rec := &flushRecorder{}
				c.ServeHTTP(rec, r)
				if rec.body.String() != rq.body || !rec.flushed {
					t.Errorf("the client got %q (flushed %v), want %q: the capture changed the exchange", rec.body.String(), rec.flushed, rq.body)
				}
			}
			xs := c.close()
			if len(xs) != len(tt.want) {
				t.Fatalf("%d exchanges, want %d", len(xs), len(tt.want))
			}
			for i, w := range tt.want {
				x := xs[i]
				got := want{string(x.Request), string(x.Response), x.RequestOmitted, x.ResponseOmitted, x.Redacted}
				if got != w || x.Status != http.StatusOK || x.Incomplete || x.Endpoint != "provider" {
					t.Errorf("exchange %d: %+v (status %d, incomplete %v), want %+v", i+1, got, x.Status, x.Incomplete, w)
				}
			}
		})
	}

	t.Run("answered as the run ends", func(t *testing.T) {
		// The client has the whole answer and its run ends before the handler has returned:
		// the exchange is complete (a loaded machine).
		written := make(chan struct{})
		c := &runCapture{maxBody: 100, maxRun: 1000, next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			_, _ = w.Write([]byte("answer"))
			close(written)
			time.Sleep(50 * time.Millisecond)
		})}
		go func() {
			r, _ := http.NewRequest(http.MethodPost, "/mcp", strings.NewReader("call"))
			c.ServeHTTP(&flushRecorder{}, r)
		}()
		<-written
		xs := c.close()
		if len(xs) != 1 || xs[0].Incomplete || string(xs[0].Response) != "answer" || xs[0].Status != http.StatusOK {
			t.Errorf("exchanges %+v", xs)
		}
	})

	t.Run("under way when the run ends", func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		c := &runCapture{maxBody: 100, maxRun: 1000, settle: 20 * time.Millisecond, next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusAccepted)
			close(started)
			<-release
		})}
		done := make(chan struct{})
		go func() {
			defer close(done)
			r, _ := http.NewRequest(http.MethodPost, "/mcp", strings.NewReader("late"))
			c.ServeHTTP(&flushRecorder{}, r)
		}()
		<-started
		xs := c.close()
		close(release)
		<-done
		if len(xs) != 1 || !xs[0].Incomplete || string(xs[0].Request) != "late" || xs[0].Status != http.StatusAccepted || xs[0].Endpoint != "mcp" {
			t.Errorf("exchanges %+v", xs)
		}
	})
}

// flushRecorder is a ResponseWriter that records the body and whether it was flushed.
type flushRecorder struct {
	h       http.Header
	body    bytes.Buffer
	flushed bool
}

func (f *flushRecorder) Header() http.Header {
	if f.h == nil {
		f.h = http.Header{}
	}
	return f.h
}
func (f *flushRecorder) Write(p []byte) (int, error) { return f.body.Write(p) }
func (f *flushRecorder) WriteHeader(int)             {}
func (f *flushRecorder) Flush()                      { f.flushed = true }
