package record

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestValueEnd: the JSON tap's scanner finds the end of an object or array (brackets inside
// strings, escaped quotes), fed whole or a byte at a time; a scalar ends with the stream.
func TestValueEnd(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{name: "object", in: `{"a":1}`, want: 7},
		{name: "leading white space", in: " \r\n\t{}", want: 6},
		{name: "trailing bytes", in: `{"a":[1,2]}` + "\n", want: 11},
		{name: "brackets in a string", in: `{"a":"}]{["}`, want: 12},
		{name: "escaped quote", in: `{"a":"\"}"}`, want: 11},
		{name: "escaped backslash", in: `{"a":"\\"}`, want: 10},
		{name: "array", in: `[{"a":{}},[]]`, want: 13},
		{name: "not yet", in: `{"a":{"b":1}`, want: -1},
		{name: "scalar", in: `"}"`, want: -1},
		{name: "number", in: `12`, want: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var whole valueEnd
			if got := whole.feed([]byte(tc.in)); got != tc.want {
				t.Errorf("fed whole: %d, want %d", got, tc.want)
			}
			var bytewise valueEnd
			got := -1
			for i := range len(tc.in) {
				if e := bytewise.feed([]byte{tc.in[i]}); e >= 0 {
					got = i + e
					break
				}
			}
			if got != tc.want {
				t.Errorf("fed a byte at a time: %d, want %d", got, tc.want)
			}
		})
	}
}

// tapRecorder is a recorder with only what the taps use: a spool (budget) and the engine's queue.
func tapRecorder(t *testing.T, budget int64) *recorder {
	t.Helper()
	sp, err := newSpool(t.TempDir(), budget)
	if err != nil {
		t.Fatal(err)
	}
	return &recorder{spool: sp, eng: &engine{events: make(chan event, 64)}, o: &Options{Log: io.Discard}}
}

// drained returns the events the taps sent, as text ("unreadable: …" for those).
func drained(t *testing.T, r *recorder) (msgs []string, spooled int) {
	t.Helper()
	for {
		select {
		case ev := <-r.eng.events:
			if ev.unreadable != "" {
				msgs = append(msgs, "unreadable: "+ev.unreadable)
				continue
			}
			if ev.msg.file != nil {
				spooled++
			}
			b, err := ev.msg.bytes()
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, string(b))
		default:
			return msgs, spooled
		}
	}
}

// checkTap reads tap, which hands r the events, whole: it must pass in on unchanged and hand the
// engine want, spooled of them spooled.
func checkTap(t *testing.T, tap io.Reader, r *recorder, in string, want []string, spooled int) {
	t.Helper()
	got, err := io.ReadAll(tap)
	if err != nil || string(got) != in {
		t.Fatalf("passed on %.80q (%v), want it unchanged", got, err)
	}
	msgs, n := drained(t, r)
	if fmt.Sprintf("%q", msgs) != fmt.Sprintf("%q", want) || n != spooled {
		t.Errorf("events %.80q (%d spooled), want %.80q (%d)", msgs, n, want, spooled)
	}
}

// chunkers read a body in the ways a network may cut it.
var chunkers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{name: "whole", wrap: func(r io.Reader) io.Reader { return r }},
	{name: "a byte at a time", wrap: iotest.OneByteReader},
	{name: "halves", wrap: iotest.HalfReader},
}

// TestSSETap: the SSE tap hands the engine each event's data (data lines joined, one space after
// the colon dropped, CRLF line ends, other fields and comments left out) however the stream is
// cut, passes every byte through unchanged, and spools an event past spoolAt.
func TestSSETap(t *testing.T) {
	big := `{"big":"` + strings.Repeat("b", spoolAt+10) + `"}`
	tests := []struct {
		name    string
		stream  string
		want    []string
		spooled int
	}{
		{name: "one event", stream: "event: message\ndata: {\"a\":1}\n\n", want: []string{`{"a":1}`}},
		{name: "no space", stream: "data:{\"a\":1}\n\n", want: []string{`{"a":1}`}},
		{name: "two spaces", stream: "data:  x\n\n", want: []string{" x"}},
		{name: "CRLF", stream: "data: {\"a\":\"\r\"}\r\n\r\n", want: []string{"{\"a\":\"\r\"}"}},
		{name: "lines joined", stream: "data: [1,\ndata: 2]\n\n", want: []string{"[1,\n2]"}},
		{name: "comments and ids", stream: ": ping\n\nid: 7\nretry: 10\ndata: 1\n\n", want: []string{"1"}},
		{name: "empty data", stream: "data:\n\ndata: \n\n", want: nil},
		{name: "field that starts like data", stream: "datum: x\n\ndata: y\n\n", want: []string{"y"}},
		{name: "no blank line at the end", stream: "data: 1\n\ndata: 2", want: []string{"1", "2"}},
		{name: "a big event", stream: "data: " + big + "\n\n", want: []string{big}, spooled: 1},
	}
	for _, tc := range tests {
		for _, ch := range chunkers {
			t.Run(tc.name+"/"+ch.name, func(t *testing.T) {
				r := tapRecorder(t, 1<<30)
				tap := &sseTap{body: io.NopCloser(ch.wrap(strings.NewReader(tc.stream))), r: r, session: "s", head: make([]byte, 0, len("data: "))}
				checkTap(t, tap, r, tc.stream, tc.want, tc.spooled)
			})
		}
	}
}

// TestJSONTap: the JSON tap hands the engine the response's value however it is cut, spools one
// past spoolAt, counts one past the largest message recorded (a share of the budget), and passes
// every byte through unchanged.
func TestJSONTap(t *testing.T) {
	big := `{"big":"` + strings.Repeat("b", spoolAt+10) + `"}`
	tests := []struct {
		name    string
		body    string
		budget  int64
		want    []string
		spooled int
	}{
		{name: "a value", body: `{"jsonrpc":"2.0","id":1,"result":{"t":"}"}}` + "\n", budget: 1 << 30, want: []string{`{"jsonrpc":"2.0","id":1,"result":{"t":"}"}}`}},
		{name: "white space only", body: " \n", budget: 1 << 30},
		{name: "cut short", body: `{"a":`, budget: 1 << 30, want: []string{`{"a":`}},
		{name: "a big value", body: big, budget: 1 << 30, want: []string{big}, spooled: 1},
		{name: "past the budget's share", body: big, budget: 16 << 20, want: []string{"unreadable: an MCP response larger than 1048576 bytes"}},
	}
	for _, tc := range tests {
		for _, ch := range chunkers {
			t.Run(tc.name+"/"+ch.name, func(t *testing.T) {
				r := tapRecorder(t, tc.budget)
				tap := &jsonTap{body: io.NopCloser(ch.wrap(strings.NewReader(tc.body))), r: r, session: "s"}
				checkTap(t, tap, r, tc.body, tc.want, tc.spooled)
			})
		}
	}
}

// TestReadBody: a request body is read into the spool (a file past spoolAt) and forwarded whole;
// one past the largest message recorded is forwarded whole too, and said to be big.
func TestReadBody(t *testing.T) {
	tests := []struct {
		name     string
		size     int
		budget   int64
		big      bool
		inFile   bool
		noLength bool
	}{
		{name: "small", size: 100, budget: 1 << 30},
		{name: "past spoolAt", size: spoolAt + 1, budget: 1 << 30, inFile: true},
		{name: "past spoolAt, no length", size: spoolAt + 1, budget: 1 << 30, inFile: true, noLength: true},
		{name: "past the largest message", size: 3 << 20, budget: 32 << 20, big: true, inFile: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := newSpool(t.TempDir(), tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.Repeat([]byte("0123456789"), tc.size/10+1)[:tc.size]
			var rd io.Reader = bytes.NewReader(want)
			if tc.noLength {
				rd = iotest.HalfReader(rd)
			}
			req := httptest.NewRequest(http.MethodPost, "/", rd)
			body, big, err := readBody(req, sp)
			if err != nil || big != tc.big || (body.file != nil) != tc.inFile {
				t.Fatalf("big %v, in a file %v (%v); want %v, %v", big, body.file != nil, err, tc.big, tc.inFile)
			}
			fwd, err := io.ReadAll(req.Body)
			if err != nil || !bytes.Equal(fwd, want) {
				t.Errorf("forwarded %d bytes (%v), want the %d sent", len(fwd), err, len(want))
			}
			if !tc.big {
				if b, err := body.bytes(); err != nil || !bytes.Equal(b, want) {
					t.Errorf("the copy is %d bytes (%v), want the %d sent", len(b), err, len(want))
				}
			}
		})
	}
}

// bigMCP answers tools/call {"size": N} with a result whose text is N bytes naming the call, as
// JSON or, with {"sse": true}, as an SSE stream.
func bigMCP() http.Handler {
	return toolsCallServer(func(id string, args struct {
		Size int  `json:"size"`
		SSE  bool `json:"sse"`
	}) (string, bool) {
		return `{"content":[{"type":"text","text":"` + bigText(id, args.Size) + `"}]}`, args.SSE
	})
}

func bigText(id string, n int) string {
	head := "result " + id + ": "
	return head + strings.Repeat("y", n-len(head))
}

// TestBigResultsSpooled: results past spoolAt that wait for their provider request (all the
// calls first, then the requests) are spooled, not held in memory or evicted, while the lists'
// memory bound is tiny; every pair is written with the server's exact bytes, the agent receives
// them unchanged, the spool holds files while the results wait and is gone at the end. A result
// past the largest message the budget allows is forwarded unchanged, not recorded, and counted.
func TestBigResultsSpooled(t *testing.T) {
	defer func(n int) { maxPendingBytes = n }(maxPendingBytes)
	maxPendingBytes = 1 << 20 // the lists' bound in memory: a result waiting in memory past it is evicted
	o, closeUpstreams := benchUpstreams(bigMCP(), false)
	defer closeUpstreams()
	const budget = 64 << 20 // the largest message recorded: 4 MiB
	spoolIn := t.TempDir()
	out := filepath.Join(t.TempDir(), "rec")
	o.Lane, o.Output, o.budget, o.spoolIn = "big", out, budget, spoolIn
	const calls = 6
	size := func(i int) int { return 2<<20 + i*1000 }
	results := map[int]string{}
	var spooledWhileWaiting int
	res, log, err := recording(t, o, func(ep Endpoints) error {
		for i := 1; i <= calls+1; i++ {
			n := size(i)
			if i > calls {
				n = 5 << 20 // past budget/16
			}
			resp := post(t, ep.MCP, nil, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":{"size":%d,"sse":%v}}}`, i, n, i%2 == 0))
			want := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"result":{"content":[{"type":"text","text":"` + bigText(strconv.Itoa(i), n) + `"}]}}`
			if i%2 == 0 {
				want = "event: message\ndata: " + want + "\n\n"
			}
			if string(resp) != want {
				return fmt.Errorf("tools/call %d: the agent received %d bytes, not the server's %d", i, len(resp), len(want))
			}
			results[i] = bigText(strconv.Itoa(i), n)
		}
		// Wait until the engine holds the results (its queue is drained by a flush).
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			spooledWhileWaiting = countFiles(t, spoolIn)
			if spooledWhileWaiting >= calls {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		for i := 1; i <= calls; i++ {
			args, _ := json.Marshal(fmt.Sprintf(`{"size":%d,"sse":%v}`, size(i), i%2 == 0))
			id := "call_" + strconv.Itoa(i)
			post(t, ep.Provider+"/v1/chat/completions", nil, `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"lookup","arguments":`+string(args)+`}}]},{"role":"tool","tool_call_id":"`+id+`","content":"`+results[i]+`"}]}`)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("record: %v\n%s", err, log)
	}
	if res.Pairs != calls || res.Evicted != 0 || res.Unreadable != 1 {
		t.Errorf("%s; want %d pairs, none evicted, 1 unreadable", res.Stats, calls)
	}
	if !strings.Contains(log, "an MCP response larger than 4194304 bytes") {
		t.Errorf("the result past the budget's share was not said:\n%.2000s", log)
	}
	if spooledWhileWaiting < calls {
		t.Errorf("%d files in the spool while the results waited, want %d or more", spooledWhileWaiting, calls)
	}
	if left, err := os.ReadDir(spoolIn); err != nil || len(left) != 0 {
		t.Errorf("the spool's parent holds %d entries (%v), want none: the spool is removed at the end", len(left), err)
	}
	found := 0
	for p, b := range testkit.Tree(t, out) {
		if !strings.Contains(p, "sources") {
			continue
		}
		for i := 1; i <= calls; i++ {
			if string(b) == `{"content":[{"type":"text","text":"`+results[i]+`"}]}` {
				found++
			}
		}
	}
	if found != calls {
		t.Errorf("%d sources hold a result byte for byte, want %d", found, calls)
	}
}

// countFiles counts the regular files under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStdioFramesSpooled: the stdio endpoint copies a frame past spoolAt into the spool and
// hands the engine its exact bytes; one past the largest message recorded is counted.
func TestStdioFramesSpooled(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"t":"` + strings.Repeat("s", spoolAt) + `"}}`
	tests := []struct {
		name    string
		budget  int64
		want    []string
		spooled int
	}{
		{name: "spooled", budget: 1 << 30, want: []string{big}, spooled: 1},
		{name: "past the budget's share", budget: 16 << 20, want: []string{"unreadable: a stdio message larger than 1048576 bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tapRecorder(t, tc.budget)
			r.stdioOpen = map[string]bool{}
			var body bytes.Buffer
			body.WriteByte('s')
			body.Write(binary.BigEndian.AppendUint32(nil, uint32(len(big))))
			body.WriteString(big)
			req := httptest.NewRequest(http.MethodPost, "/stdio/x", &body)
			req.Header.Set(headerSession, "1")
			w := httptest.NewRecorder()
			r.stdioEndpoint(w, req)
			if w.Code != http.StatusNoContent {
				t.Fatalf("status %d", w.Code)
			}
			msgs, spooled := drained(t, r)
			if fmt.Sprintf("%q", msgs) != fmt.Sprintf("%q", tc.want) || spooled != tc.spooled {
				t.Errorf("events %.80q (%d spooled), want %.80q (%d)", msgs, spooled, tc.want, tc.spooled)
			}
		})
	}
}

// TestStdioQueueBound: record stdio's queue to the recorder holds at most maxQueued bytes: a
// message that would pass it waits until the queue drains (it is never dropped).
func TestStdioQueueBound(t *testing.T) {
	p := &poster{queue: make(chan frame, stdioQueue), maxQueued: 10, limit: 10}
	p.drained = sync.NewCond(&p.qmu)
	p.enqueue(frame{dir: 'c', msg: []byte("12345678")})
	second := make(chan struct{})
	go func() {
		p.enqueue(frame{dir: 'c', msg: []byte("abcdefgh")})
		close(second)
	}()
	time.Sleep(50 * time.Millisecond)
	if n := len(p.queue); n != 1 {
		t.Fatalf("%d messages queued, want 1: the second passes the bound", n)
	}
	f := <-p.queue // what run does once a batch is posted
	p.qmu.Lock()
	p.queued -= len(f.msg)
	p.drained.Broadcast()
	p.qmu.Unlock()
	<-second
	if f := <-p.queue; string(f.msg) != "abcdefgh" {
		t.Errorf("then %q, want the second message", f.msg)
	}
}

// TestQueuedMessagesShareMemory: the messages the taps handed over stay in the memory share
// until the engine takes them, so a queue the engine has not drained yet sends the next
// messages to the spool; once taken, the share is free again.
func TestQueuedMessagesShareMemory(t *testing.T) {
	r := tapRecorder(t, 8<<20) // a share of 1 MiB
	body := `{"t":"` + strings.Repeat("q", 400<<10) + `"}`
	read := func() {
		t.Helper()
		tap := &jsonTap{body: io.NopCloser(strings.NewReader(body)), r: r, session: "s"}
		if got, err := io.ReadAll(tap); err != nil || string(got) != body {
			t.Fatalf("passed on %d bytes (%v), want the body unchanged", len(got), err)
		}
	}
	inFile := func() []bool {
		var out []bool
		for len(r.eng.events) > 0 {
			ev := <-r.eng.events
			out = append(out, ev.msg.file != nil)
			ev.msg.release()
		}
		return out
	}
	for range 3 {
		read()
	}
	if got := fmt.Sprint(inFile()); got != "[false false true]" {
		t.Errorf("in a file: %s, want the third spooled (the first two fill the share while they are queued)", got)
	}
	read()
	if got := fmt.Sprint(inFile()); got != "[false]" {
		t.Errorf("after the queue was taken: in a file %s, want in memory", got)
	}
}
