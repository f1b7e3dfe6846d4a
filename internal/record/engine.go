package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// Bounds of what the recorder holds while it waits for the other half of a pair.
const (
	// MaxMessageBytes bounds one MCP message or provider request body the recorder reads
	// (64 MiB, as fakeprovider.MaxBodyBytes); a larger one is forwarded but not recorded, and
	// counted.
	MaxMessageBytes = fakeprovider.MaxBodyBytes
	// maxOpen bounds the tools/call requests waiting for their response (per stdio session key).
	maxOpen = 100_000
	// maxSeen bounds the call ids remembered as recorded already (oldest forgotten first: a
	// conversation's later requests repeat its earlier results, which must not pair twice).
	maxSeen = 1 << 20
	// queueLen is the length of the queue between the proxies and the recorder: a full queue
	// makes the proxies wait (it never drops).
	queueLen = 4096
)

// maxPending bounds the tools/call results waiting for the provider request that carries them,
// and the provider results waiting for their tools/call, each in count and in bytes of memory;
// past either, the oldest is evicted and counted. (What would pass the bytes waits in the spool
// instead: engine.hold.) (Variables for the tests.)
var (
	maxPending      = 100_000
	maxPendingBytes = 256 << 20
)

// listMarker stands for a tools/list request among the open tools/call requests.
const listMarker = "\x00tools/list"

// event is one thing the proxies saw, handed to the recorder's one goroutine in arrival order.
type event struct {
	// an MCP message: session names the stream (a stdio process, an HTTP exchange); fromServer
	// says which way it went.
	session    string
	fromServer bool
	msg        blob
	// endSession: the session is over (its unanswered calls are counted).
	endSession bool
	// a provider request body of api.
	api  fakeprovider.API
	body blob
	// a message the proxies could not read (too large, not JSON): counted.
	unreadable string
	// flush: closed when everything before it is handled.
	flush chan struct{}
}

// engine pairs tools/call results with the provider items that carry them. It runs on one
// goroutine (loop); its counters are read after the loop ends.
type engine struct {
	events chan event
	write  func(call mcpCall, res provResult) // a pair found
	note   func(format string, args ...any)   // a loud line on stderr

	open         map[string]map[string]historyCall // session → JSON-RPC id → tools/call request
	pending      []*mcpCall                        // results waiting for their provider item
	pendingBytes int
	waiting      []*provResult // provider items waiting for their tools/call
	waitingBytes int
	seen         map[string]bool
	seenOrder    []string
	tools        map[string]bool // the MCP tools listed or called

	spool *spool // where what waits is held past the memory share (nil: in memory)

	mu    sync.Mutex
	stats Stats
}

func newEngine(write func(mcpCall, provResult), note func(string, ...any)) *engine {
	return &engine{events: make(chan event, queueLen), write: write, note: note,
		open: map[string]map[string]historyCall{}, seen: map[string]bool{}, tools: map[string]bool{}}
}

// loop handles events until the channel is closed.
func (e *engine) loop() {
	for ev := range e.events {
		e.loopOnce(ev)
	}
}

// loopOnce handles one event.
func (e *engine) loopOnce(ev event) {
	{
		switch {
		case ev.flush != nil:
			close(ev.flush)
		case ev.unreadable != "":
			e.count(func(s *Stats) { s.Unreadable++ })
			e.note("record: not recorded: %s", ev.unreadable)
		case ev.endSession:
			n := 0
			for _, c := range e.open[ev.session] {
				if c.name != listMarker {
					n++
				}
			}
			if n > 0 {
				e.count(func(s *Stats) { s.Unanswered += n })
			}
			delete(e.open, ev.session)
		case ev.api != "" && !ev.body.empty():
			if body, ok := e.bytes(ev.body, "a "+string(ev.api)+" request"); ok {
				e.provider(ev.api, body)
			}
		case !ev.msg.empty():
			if msg, ok := e.bytes(ev.msg, "an MCP message"); ok {
				e.mcp(ev.session, ev.fromServer, msg)
			}
		}
	}
}

// bytes reads a message the proxies spooled (and ends its count in the proxies' memory share);
// one the spool lost is counted as not recorded.
func (e *engine) bytes(b blob, what string) ([]byte, bool) {
	b.release()
	data, err := b.bytes()
	if err != nil {
		e.count(func(s *Stats) { s.Unreadable++ })
		e.note("record: not recorded: %s: %v", what, err)
		return nil, false
	}
	return data, true
}

// hold keeps b while it waits for its other half: in memory while the two lists together hold
// less than maxPendingBytes and the memory share, else in the spool (spool.hold), so that no
// list is evicted for its bytes. False: the spool could not keep it (counted).
func (e *engine) hold(b []byte, what string) (blob, bool) {
	h, err := e.spool.hold(b, e.pendingBytes+e.waitingBytes, maxPendingBytes)
	if err != nil {
		e.count(func(s *Stats) { s.Unreadable++ })
		e.note("record: not recorded: %s: %v", what, err)
		return blob{}, false
	}
	return h, true
}

func (e *engine) count(f func(*Stats)) {
	e.mu.Lock()
	f(&e.stats)
	e.mu.Unlock()
}

// Stats returns the counts so far.
func (e *engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.stats
	s.PendingCalls = len(e.pending)
	for _, w := range e.waiting {
		if e.mcpTool(w.name) {
			s.PendingResults++
		} else {
			s.OtherTools++
		}
	}
	return s
}

// mcp reads one MCP message: a tools/call request is remembered by its id, its response
// becomes a result waiting for (or meeting) its provider item.
func (e *engine) mcp(session string, fromServer bool, msg []byte) {
	msgs, err := splitMessages(msg)
	if err != nil {
		e.count(func(s *Stats) { s.Unreadable++ })
		e.note("record: not recorded: an MCP message that is not JSON-RPC: %v", err)
		return
	}
	for _, m := range msgs {
		var rm rpcMessage
		if json.Unmarshal(m, &rm) != nil || len(rm.ID) == 0 || string(rm.ID) == "null" {
			continue // a notification, or not an object: nothing to pair
		}
		id := string(compactID(rm.ID))
		if !fromServer {
			if rm.Method == "tools/list" {
				rm.Params = &struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}{Name: listMarker}
			}
			if rm.Method != "tools/call" && rm.Method != "tools/list" || rm.Params == nil {
				continue
			}
			if rm.Method == "tools/call" {
				e.tools[rm.Params.Name] = true
			}
			o := e.open[session]
			if o == nil {
				o = map[string]historyCall{}
				e.open[session] = o
			}
			if len(o) >= maxOpen {
				e.count(func(s *Stats) { s.Evicted++ })
				e.note("record: more than %d tools/call requests unanswered in one session: one forgotten", maxOpen)
				for k := range o {
					delete(o, k)
					break
				}
			}
			o[id] = historyCall{rm.Params.Name, rm.Params.Arguments}
			continue
		}
		if rm.Method != "" {
			continue // a request from the server
		}
		req, ok := e.open[session][id]
		if !ok {
			continue // not a tools/call's response
		}
		delete(e.open[session], id)
		if req.name == listMarker {
			var list struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			if json.Unmarshal(rm.Result, &list) == nil {
				for _, tl := range list.Tools {
					e.tools[tl.Name] = true
				}
			}
			continue
		}
		src, ok := resultBytes(m, &rm)
		if !ok {
			continue
		}
		e.count(func(s *Stats) { s.Calls++ })
		held, ok := e.hold(src, "a tools/call result")
		if !ok {
			continue
		}
		e.call(&mcpCall{name: req.name, args: decodeArgs(req.args), source: held})
	}
}

func compactID(id []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return id
	}
	return b.Bytes()
}

// call pairs a tools/call result with the earliest provider item waiting for it, or keeps it.
func (e *engine) call(c *mcpCall) {
	match := func(w *provResult) bool { return nameMatches(c.name, w.name) && sameArgs(c.args, w.args) }
	if w, ok := take(&e.waiting, &e.waitingBytes, match, itemSize); ok {
		e.write(*c, *w)
		return
	}
	keep(&e.pending, &e.pendingBytes, c, sourceSize, func(*mcpCall) { e.count(func(s *Stats) { s.Evicted++ }) })
}

func itemSize(r *provResult) int { return r.item.memSize() }
func sourceSize(c *mcpCall) int  { return c.source.memSize() }

// take removes and returns the earliest element of list that matches, keeping size the bytes
// the list holds.
func take[T any](list *[]T, size *int, match func(T) bool, bytes func(T) int) (T, bool) {
	for i, x := range *list {
		if match(x) {
			*list = append((*list)[:i], (*list)[i+1:]...)
			*size -= bytes(x)
			return x, true
		}
	}
	var zero T
	return zero, false
}

// keep appends x to list and evicts the oldest elements past maxPending or maxPendingBytes,
// each counted by evicted.
func keep[T any](list *[]T, size *int, x T, bytes func(T) int, evicted func(T)) {
	*list = append(*list, x)
	*size += bytes(x)
	for len(*list) > maxPending || *size > maxPendingBytes {
		old := (*list)[0]
		*size -= bytes(old)
		*list = (*list)[1:]
		evicted(old)
	}
}

// provider reads one provider request: each result it carries that is not recorded yet meets
// the earliest waiting tools/call of the same tool and arguments, or waits for it.
func (e *engine) provider(api fakeprovider.API, body []byte) {
	results, orphans, err := providerResults(api, body)
	if err != nil {
		e.count(func(s *Stats) { s.Unreadable++ })
		e.note("record: not recorded: a %s request that could not be read: %v", api, err)
		return
	}
	if orphans > 0 {
		e.count(func(s *Stats) { s.Orphans += orphans })
	}
	for i := range results {
		r := &results[i]
		key := string(api) + "\x00" + r.key
		if e.seen[key] {
			continue
		}
		e.remember(key)
		held, ok := e.hold(r.item.mem, "a provider item")
		if !ok {
			continue
		}
		r.item = held
		e.result(r)
	}
}

func (e *engine) remember(key string) {
	e.seen[key] = true
	e.seenOrder = append(e.seenOrder, key)
	if len(e.seenOrder) > maxSeen {
		delete(e.seen, e.seenOrder[0])
		e.seenOrder = e.seenOrder[1:]
	}
}

// result pairs a provider item with the earliest tools/call result waiting for it, or keeps it.
func (e *engine) result(r *provResult) {
	match := func(c *mcpCall) bool { return nameMatches(c.name, r.name) && sameArgs(c.args, r.args) }
	if c, ok := take(&e.pending, &e.pendingBytes, match, sourceSize); ok {
		e.write(*c, *r)
		return
	}
	keep(&e.waiting, &e.waitingBytes, r, itemSize, func(w *provResult) {
		if e.mcpTool(w.name) {
			e.count(func(s *Stats) { s.Evicted++ })
		} else {
			e.count(func(s *Stats) { s.OtherTools++ })
		}
	})
}

// mcpTool reports whether a provider-side tool name names a tool the MCP server listed or was
// called with: the results of the agent's other tools (its own functions) are not the recorder's.
func (e *engine) mcpTool(name string) bool {
	for t := range e.tools {
		if nameMatches(t, name) {
			return true
		}
	}
	return false
}

// Stats counts what a recording saw and did.
type Stats struct {
	// Calls counts the tools/call results seen; Pairs those written with their provider item.
	Calls, Pairs int
	// Sources counts the source files written (a result seen again is a repetition of its
	// source); Bytes the bytes written.
	Sources int
	Bytes   int64
	// PendingCalls are tools/call results no provider request carried by the end;
	// PendingResults provider items whose tools/call was never seen.
	PendingCalls, PendingResults int
	// Orphans are provider results whose call the request's history does not hold.
	Orphans int
	// OtherTools are provider results of tools the MCP server neither listed nor was called
	// with (the agent's own functions): not the recorder's, and not lost.
	OtherTools int
	// Unanswered are tools/call requests without a response when their session ended.
	Unanswered int
	// Evicted are calls or items dropped past the recorder's bounds; Unreadable messages it
	// could not read; Refused pairs not written (a credential in them, a redaction that broke
	// them, a second provider API, the limits reached).
	Evicted, Unreadable, Refused int
	// Limit is why recording stopped early ("" when it did not).
	Limit string
}

// Lost reports whether anything seen was not recorded.
func (s Stats) Lost() bool {
	return s.PendingCalls+s.PendingResults+s.Orphans+s.Unanswered+s.Evicted+s.Unreadable+s.Refused > 0 || s.Limit != ""
}

// String is the counts as one line.
func (s Stats) String() string {
	return fmt.Sprintf("%d tool calls, %d pairs written (%d sources, %d bytes), %d results of the agent's other tools; not recorded: %d results no provider request carried, %d provider results without their tools/call, %d results without their call in the request, %d calls unanswered, %d evicted past the bounds, %d unreadable messages, %d pairs refused",
		s.Calls, s.Pairs, s.Sources, s.Bytes, s.OtherTools, s.PendingCalls, s.PendingResults, s.Orphans, s.Unanswered, s.Evicted, s.Unreadable, s.Refused)
}
