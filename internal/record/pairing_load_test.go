package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// The load case of issue 41: every tools/call has the same arguments ({}) and a distinct result
// ("result N", N counted by the server), over benchConns concurrent connections, each result then
// carried by a Chat Completions request; the provider requests and the MCP responses of the
// connections interleave, so that many calls of equal arguments are in flight at once.

// equalArgsMCP answers every tools/call with the next "result N".
func equalArgsMCP() http.Handler {
	var n atomic.Int64
	return toolsCallServer(func(string, struct{}) (string, bool) {
		return `{"content":[{"type":"text","text":"result ` + strconv.FormatInt(n.Add(1), 10) + `"}]}`, false
	})
}

// loadFigures are what a load run wrote: pairs, pairs whose item carries another result than
// their source (crossed), and ambiguous records.
type loadFigures struct {
	calls, pairs, crossed, ambiguous int
	stats                            Stats
}

// equalArgsLoad records calls tool calls of equal arguments over benchConns connections and
// reads back what was written. With lossy, the agent hands the model an empty text instead of
// the result's (a lane that loses the text): nothing then tells the results apart.
func equalArgsLoad(tb testing.TB, calls int, lossy bool) loadFigures {
	tb.Helper()
	o, closeUpstreams := benchUpstreams(equalArgsMCP(), false)
	defer closeUpstreams()
	out := filepath.Join(tb.TempDir(), "rec")
	o.Lane, o.Output = "load", out
	ctx, cancel := context.WithTimeout(context.Background(), benchDeadline)
	defer cancel()
	ep, stop := startRun(tb, ctx, o)
	tr := &http.Transport{MaxIdleConnsPerHost: benchConns, MaxConnsPerHost: benchConns, MaxIdleConns: 2 * benchConns}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	post := func(url, body string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		return b, err
	}
	errs := fanOut(ctx, benchConns, calls, func(i int) error {
		resp, err := post(ep.MCP, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`)
		if err != nil {
			return err
		}
		var m struct {
			Result struct{ Content []struct{ Text string } }
		}
		if err := json.Unmarshal(resp, &m); err != nil {
			return err
		}
		if len(m.Result.Content) != 1 {
			return fmt.Errorf("tools/call: %s", resp)
		}
		text := m.Result.Content[0].Text
		if lossy {
			text = ""
		}
		content, _ := json.Marshal(text)
		// The call id names the result (not a pairing's evidence: the MCP side has no
		// call id), so that a crossed pair shows in the written item, lossy or not.
		id := "call_" + strings.TrimPrefix(m.Result.Content[0].Text, "result ")
		_, err = post(ep.Provider+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"look it up"},{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"lookup","arguments":"{}"}}]},{"role":"tool","tool_call_id":"`+id+`","content":`+string(content)+`}]}`)
		return err
	})
	res, rerr := stop()
	if len(errs) > 0 {
		tb.Fatalf("the agent: %v", errs[0])
	}
	if rerr != nil {
		tb.Fatalf("record: %v", rerr)
	}
	f := loadFigures{calls: calls, stats: res.Stats}
	type rec struct {
		Fixture, Stage, State string
		Carrier               struct {
			ToolCallID string `json:"tool_call_id"`
		}
	}
	for _, r := range testkit.JSONLines[rec](tb, filepath.Join(out, "load", "1", "default.jsonl")) {
		if r.Stage != "H4" {
			continue
		}
		switch r.State {
		case "ambiguous":
			f.ambiguous++
		case "captured":
			f.pairs++
			src, err := os.ReadFile(filepath.Join(out, "sources", "recorded", r.Fixture+".json"))
			if err != nil {
				tb.Fatal(err)
			}
			var s struct{ Content []struct{ Text string } }
			if err := json.Unmarshal(src, &s); err != nil || len(s.Content) != 1 {
				tb.Fatalf("source %s: %v: %s", r.Fixture, err, src)
			}
			if "call_"+strings.TrimPrefix(s.Content[0].Text, "result ") != r.Carrier.ToolCallID {
				f.crossed++
			}
		default:
			tb.Fatalf("an H4 record %s", r.State)
		}
	}
	return f
}

// TestEqualArgumentsUnderLoad: calls of equal arguments and distinct results over 64
// connections, the results carried (every pair proved by its text: none crossed, none
// ambiguous) and lost on the way (nothing tells them apart: each item is paired only when one
// result was in flight, else ambiguous, and every call is accounted for). Ten calls a connection
// keep all 64 in flight together again and again; the figures of 10,000 calls are
// BenchmarkEqualArguments's.
func TestEqualArgumentsUnderLoad(t *testing.T) {
	t.Parallel()
	const calls = 10 * benchConns
	for _, lossy := range []bool{false, true} {
		t.Run(map[bool]string{false: "carried", true: "lossy"}[lossy], func(t *testing.T) {
			f := equalArgsLoad(t, calls, lossy)
			t.Logf("%d calls: %d pairs, %d crossed, %d ambiguous", f.calls, f.pairs, f.crossed, f.ambiguous)
			if f.crossed != 0 {
				t.Errorf("%d of %d pairs crossed", f.crossed, f.pairs)
			}
			if f.pairs+f.ambiguous != calls || f.stats.Lost() || f.stats.Pairs != f.pairs || f.stats.Ambiguous != f.ambiguous {
				t.Errorf("%d pairs and %d ambiguous records for %d calls (%s)", f.pairs, f.ambiguous, calls, f.stats)
			}
			if !lossy && f.ambiguous != 0 {
				t.Errorf("%d ambiguous records: each item carries its result's text", f.ambiguous)
			}
		})
	}
}

// BenchmarkEqualArguments is the load case of issue 41 at its size: 10,000 tool calls of equal
// arguments and distinct results over 64 connections, carried and lossy; it reports the pairs
// written, the crossed ones and the ambiguous records (run with -benchtime 1x).
func BenchmarkEqualArguments(b *testing.B) {
	for _, lossy := range []bool{false, true} {
		b.Run(map[bool]string{false: "carried", true: "lossy"}[lossy], func(b *testing.B) {
			for range b.N {
				start := time.Now()
				f := equalArgsLoad(b, benchCalls, lossy)
				if f.crossed != 0 || f.pairs+f.ambiguous != benchCalls {
					b.Errorf("%d pairs (%d crossed), %d ambiguous of %d calls", f.pairs, f.crossed, f.ambiguous, benchCalls)
				}
				b.ReportMetric(float64(f.pairs), "pairs")
				b.ReportMetric(float64(f.crossed), "crossed")
				b.ReportMetric(float64(f.ambiguous), "ambiguous")
				b.ReportMetric(time.Since(start).Seconds(), "s")
			}
		})
	}
}

// TestAmbiguousRecordsJudged: two tools/call of equal arguments return distinct results, and the
// requests carrying them carry nothing of either (an empty text): record writes both ambiguous,
// loses nothing, and check reads them as ambiguous bindings (counted, none unstable), which the
// record profile's requirement (H4 judged: pass or unmet) does not allow: check's verdict is unmet.
func TestAmbiguousRecordsJudged(t *testing.T) {
	t.Parallel()
	o, closeUpstreams := benchUpstreams(equalArgsMCP(), false)
	defer closeUpstreams()
	out := filepath.Join(t.TempDir(), "rec")
	o.Lane, o.Output = "amb", out
	res, log, err := recording(t, o, func(ep Endpoints) error {
		for i := range 2 {
			post(t, ep.MCP, nil, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`, i+1))
		}
		for _, id := range []string{"call_b", "call_a"} {
			post(t, ep.Provider+"/v1/chat/completions", nil, `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"lookup","arguments":"{}"}}]},{"role":"tool","tool_call_id":"`+id+`","content":""}]}`)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("record: %v\n%s", err, log)
	}
	if res.Ambiguous != 2 || res.Pairs != 0 || res.Lost() {
		t.Fatalf("%s; want 2 ambiguous, nothing lost\n%s", res.Stats, log)
	}
	if !strings.Contains(log, "2 ambiguous") {
		t.Errorf("the summary does not say the ambiguous records:\n%s", log)
	}
	rep := judge(t, out)
	if rep.Summary.Ambiguous == 0 || rep.Summary.Unstable != 0 || rep.Summary.Pass+rep.Summary.Unmet != 0 {
		t.Errorf("check summary %+v; want ambiguous bindings only", rep.Summary)
	}
	if code := rep.ExitCode(); code != result.ExitUnmet {
		t.Errorf("check exit %d, want %d (the record profile holds H4 to pass or unmet)", code, result.ExitUnmet)
	}
}
