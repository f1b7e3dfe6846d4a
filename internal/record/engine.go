package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
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
	// openSession: a stdio session begins (its messages may reach the recorder after the
	// provider requests that carry them: decide waits while one is open); endSession: the
	// session is over (its unanswered calls are counted).
	openSession, endSession bool
	// a provider request body of api, sent once its answer is known.
	api  fakeprovider.API
	body blob
	// failure: the upstream's answer to this exchange was not a success (what failed, one line,
	// escaped). With body: the provider's answer failed, and the items the request carries are
	// written execution_failed (unless a later request carrying them is answered). With session
	// alone: the MCP server's answer failed, and the session's tools/call requests still open
	// failed.
	failure string
	// a message the proxies could not read (too large, not JSON): counted.
	unreadable string
	// flush: closed when everything before it is handled; with final, the recording is over and
	// the failed pairs still held for a retry are written first.
	flush chan struct{}
	final bool
}

// engine pairs tools/call results with the provider items that carry them. It runs on one
// goroutine (loop); its counters are read after the loop ends.
type engine struct {
	events chan event
	// write is called for a pair found: pairFound, which writes it (emit) at once when its
	// provider request was answered, or holds it (failed) when it failed.
	write func(call mcpCall, res provResult)
	emit  func(call mcpCall, res provResult)
	note  func(format string, args ...any) // a loud line on stderr

	open         map[string]map[string]historyCall // session → JSON-RPC id → tools/call request
	pending      []*mcpCall                        // results waiting for their provider item
	pendingBytes int
	waiting      []*provResult // provider items waiting for their tools/call
	waitingBytes int
	seen         map[string]bool
	seenOrder    []string
	tools        map[string]bool // the MCP tools listed or called
	live         map[string]bool // the stdio sessions open
	// failed are the pairs whose provider request failed, by API and call id (failedKey), held
	// until a later request carrying the item is answered (a retry: the pair is then captured)
	// or the recording ends (written execution_failed); failedRes their provider items,
	// failedOrder their arrival order (keys taken since included), failedBytes what they hold.
	// failedWaitingKeys hints at the items of failed requests among waiting (hintFailedWaiting).
	failed            map[string]*mcpCall
	failedRes         map[string]provResult
	failedOrder       []string
	failedBytes       int
	failedWaitingKeys map[string]int

	spool *spool // where what waits is held past the memory share (nil: in memory)

	mu    sync.Mutex
	stats Stats
}

func newEngine(write func(mcpCall, provResult), note func(string, ...any)) *engine {
	e := &engine{events: make(chan event, queueLen), emit: write, note: note,
		open: map[string]map[string]historyCall{}, seen: map[string]bool{}, tools: map[string]bool{}, live: map[string]bool{},
		failed: map[string]*mcpCall{}, failedRes: map[string]provResult{}, failedWaitingKeys: map[string]int{}}
	e.write = e.pairFound
	return e
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
			// Nothing more comes: the items still waiting with candidates are decided, then
			// (at the end) the failed pairs still held for a retry are written.
			e.retry(nil, true)
			if ev.final {
				e.writeFailed()
			}
			close(ev.flush)
		case ev.openSession:
			e.live[ev.session] = true
		case ev.unreadable != "":
			e.count(func(s *Stats) { s.Unreadable++ })
			e.note("record: not recorded: %s", ev.unreadable)
		case ev.failure != "" && ev.body.empty():
			e.mcpFailed(ev.session, ev.failure)
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
			if e.live[ev.session] {
				delete(e.live, ev.session)
				if len(e.live) == 0 {
					e.retry(nil, false)
				}
			}
		case ev.api != "" && !ev.body.empty():
			if body, ok := e.bytes(ev.body, "a "+string(ev.api)+" request"); ok {
				e.provider(ev.api, body, ev.failure)
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
		c := &mcpCall{name: req.name, args: decodeArgs(req.args), source: held, sum: sha256.Sum256(src)}
		e.call(c)
	}
}

func compactID(id []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return id
	}
	return b.Bytes()
}

// call keeps a tools/call result among the pending ones and decides the provider items waiting
// for a call of its tool with its arguments: it may be what singles one out.
func (e *engine) call(c *mcpCall) {
	keep(&e.pending, &e.pendingBytes, c, sourceSize, func(*mcpCall) { e.count(func(s *Stats) { s.Evicted++ }) })
	e.retry(func(w *provResult) bool { return compatible(c, w) }, false)
}

// compatible reports whether a provider item may carry a call's result: the same tool (by
// nameMatches) and equal arguments.
func compatible(c *mcpCall, r *provResult) bool {
	return nameMatches(c.name, r.name) && sameArgs(c.args, r.args)
}

// maxAmbiguity bounds the distinct results an ambiguity remembers; past it, the ambiguity
// remembers none, and an item with a candidate tainted with it is written ambiguous (what it could
// carry instead is no longer known).
const maxAmbiguity = 64

// ambiguity is what an item written ambiguous could have carried: one call of each distinct
// result the evidence could not tell apart (the call taken for the record included).
type ambiguity struct {
	results  []*mcpCall
	overflow bool
}

// decide pairs a provider item with the call whose result it carries when the evidence proves
// which one, writes it ambiguous when the evidence cannot and nothing more can come that would,
// and otherwise leaves it (false: the item waits). final says that nothing more can come (the
// recording ends, or the item is evicted).
//
// The candidates are the pending calls compatible with the item. The proof is one of:
//   - the candidates, and the results a tainted candidate could be instead, hold one distinct
//     result (equal bytes are one fixture, so taking any of them crosses nothing), and nothing is
//     still to come;
//   - the item's strings single out one distinct result among the candidates' (singledOut), the
//     results tainted candidates could be instead included: at once when the evidence is a whole
//     string of the item, else once nothing is still to come.
//
// Nothing is still to come when no stdio session is open: an HTTP exchange's response reaches the
// recorder before the agent reads it, so an item's own call is always among the candidates, while
// a stdio server's messages are copied to the recorder after the agent has them, and may arrive
// after the provider request that carries them.
func (e *engine) decide(r *provResult, final bool) bool {
	var cands []*mcpCall
	for _, c := range e.pending {
		if compatible(c, r) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return false
	}
	// The distinct results: the candidates' (first: the earliest pending call of it), then those
	// a tainted candidate's item could have carried (first nil: no call of it is pending).
	type result struct{ rep, first *mcpCall }
	var results []result
	overflow := false
	add := func(c *mcpCall, pending bool) {
		for i := range results {
			if results[i].rep.sum == c.sum {
				if pending && results[i].first == nil {
					results[i].first = c
				}
				return
			}
		}
		r := result{rep: c}
		if pending {
			r.first = c
		}
		results = append(results, r)
	}
	for _, c := range cands {
		add(c, true)
	}
	for _, c := range cands {
		if c.taint != nil {
			overflow = overflow || c.taint.overflow
			for _, g := range c.taint.results {
				add(g, false)
			}
		}
	}
	winner, exact := -1, false
	switch {
	case overflow:
	case len(results) == 1:
		winner = 0
	default:
		toks := make([][]string, len(results))
		for i, g := range results {
			toks[i] = g.rep.tokens()
		}
		winner, exact = singledOut(candidateEvidence(toks, r.hay()))
	}
	settled := final || len(e.live) == 0
	if winner >= 0 && results[winner].first != nil && (settled || exact) {
		c := results[winner].first
		e.drop(c)
		e.write(*c, *r)
		return true
	}
	if !settled {
		return false
	}
	// Ambiguous: the earliest candidate is taken for the record (one call per item, so that the
	// counts add up); the others are tainted with what the item could have carried.
	c := cands[0]
	e.drop(c)
	amb := &ambiguity{overflow: overflow || len(results) > maxAmbiguity}
	if !amb.overflow {
		for _, g := range results {
			amb.results = append(amb.results, g.rep)
		}
	}
	for _, o := range cands[1:] {
		if o.taint == nil || !o.taint.overflow {
			o.taint = amb
		}
	}
	res := *r
	res.ambiguous = max(len(results), 2)
	if amb.overflow {
		res.ambiguous = max(res.ambiguous, maxAmbiguity+1)
	}
	e.write(*c, res)
	return true
}

// drop removes a call from the pending ones.
func (e *engine) drop(c *mcpCall) {
	for i, p := range e.pending {
		if p == c {
			e.pending = append(e.pending[:i], e.pending[i+1:]...)
			e.pendingBytes -= sourceSize(c)
			return
		}
	}
}

// retry decides the waiting items sel selects (every one when sel is nil), in order, until none
// more is decided: a pairing takes a candidate away from the others, which may then be proved.
func (e *engine) retry(sel func(*provResult) bool, final bool) {
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(e.waiting); i++ {
			w := e.waiting[i]
			if (sel != nil && !sel(w)) || !e.decide(w, final) {
				continue
			}
			e.waiting = append(e.waiting[:i], e.waiting[i+1:]...)
			e.waitingBytes -= itemSize(w)
			i--
			changed = true
		}
	}
}

func itemSize(r *provResult) int { return r.item.memSize() }
func sourceSize(c *mcpCall) int  { return c.source.memSize() }

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

// provider reads one provider request, whose answer failed when failure is not "": each result
// it carries that is not recorded yet meets the earliest waiting tools/call of the same tool and
// arguments, or waits for it. A result is recorded once a request carrying it is answered: the
// items of a failed request are marked with its failure, and a later request carrying one of
// them (a retry, or the conversation's next request) takes its place (retried).
func (e *engine) provider(api fakeprovider.API, body []byte, failure string) {
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
		r.failure = failure
		held, ok := e.hold(r.item.mem, "a provider item")
		if !ok {
			continue
		}
		r.item = held
		if e.retried(key, r) {
			continue
		}
		if failure == "" {
			e.remember(key)
		}
		e.result(r)
		if n := len(e.waiting); failure != "" && n > 0 && e.waiting[n-1] == r {
			e.hintFailedWaiting(key)
		}
	}
}

// failedKey is the key of a provider item among the failed ones: its API and call id.
func failedKey(r *provResult) string { return string(r.api) + "\x00" + r.key }

// retried handles a provider item (key) that an earlier, failed request carried already: held
// paired (failed) or waiting for its tools/call. When r's request was answered, the held pair is
// written with r's item (captured), or the waiting item is dropped for r, which takes its place
// (false: r is then handled as new); when it failed too, the earlier item takes r's failure (the
// latest). It reports whether r is handled.
func (e *engine) retried(key string, r *provResult) bool {
	if c, ok := e.failed[key]; ok {
		if r.failure != "" {
			e.failedBytes += r.item.memSize() - e.failedRes[key].item.memSize()
			e.failedRes[key] = *r
			return true
		}
		e.unholdFailed(key)
		e.remember(key)
		e.count(func(s *Stats) { s.Retried++ })
		e.emit(*c, *r)
		return true
	}
	if e.failedWaitingKeys[key] == 0 {
		return false
	}
	for i, w := range e.waiting {
		if w.failure == "" || failedKey(w) != key {
			continue
		}
		if r.failure != "" {
			w.failure = r.failure
			return true
		}
		e.waiting = append(e.waiting[:i], e.waiting[i+1:]...)
		e.waitingBytes -= itemSize(w)
		e.failedWaitingKeys[key]--
		if e.failedWaitingKeys[key] <= 0 {
			delete(e.failedWaitingKeys, key)
		}
		e.count(func(s *Stats) { s.Retried++ })
		return false
	}
	delete(e.failedWaitingKeys, key) // taken or evicted since: the hint was stale
	return false
}

// hintFailedWaiting notes that an item of a failed request (key) waits for its tools/call. The
// notes are a hint that spares retried a walk of waiting: one may outlive its item (evicted);
// past twice the bound they are counted again from waiting.
func (e *engine) hintFailedWaiting(key string) {
	e.failedWaitingKeys[key]++
	if len(e.failedWaitingKeys) <= 2*maxPending {
		return
	}
	clear(e.failedWaitingKeys)
	for _, w := range e.waiting {
		if w.failure != "" {
			e.failedWaitingKeys[failedKey(w)]++
		}
	}
}

// pairFound writes a pair whose provider request was answered (emit); one whose request failed
// is held until a later request carrying the item is answered or the recording ends, within
// maxPending pairs and maxPendingBytes (past them the oldest is written execution_failed).
// An ambiguous item of a failed request is written at once (ambiguous, the failure noted).
func (e *engine) pairFound(c mcpCall, r provResult) {
	if r.failure == "" {
		e.emit(c, r)
		return
	}
	if r.ambiguous > 0 {
		// Not held for a retry: a retry's answered item would be written captured with the call
		// taken for the ambiguous record, a pairing nothing proved. Written ambiguous now (the
		// failure in its note), and its later requests are not paired again.
		e.remember(failedKey(&r))
		e.emit(c, r)
		return
	}
	key := failedKey(&r)
	if n := e.failedWaitingKeys[key]; n > 0 { // it was waiting: it is not any more
		if n == 1 {
			delete(e.failedWaitingKeys, key)
		} else {
			e.failedWaitingKeys[key] = n - 1
		}
	}
	if old, ok := e.failed[key]; ok { // the same item paired twice (cannot happen): the first is written
		e.emit(*old, e.failedRes[key])
		e.unholdFailed(key)
	}
	e.failed[key], e.failedRes[key] = &c, r
	e.failedOrder = append(e.failedOrder, key)
	e.failedBytes += c.source.memSize() + r.item.memSize()
	for len(e.failed) > maxPending || e.failedBytes > maxPendingBytes {
		k := e.failedOrder[0]
		e.failedOrder = e.failedOrder[1:]
		if c, ok := e.failed[k]; ok {
			res := e.failedRes[k]
			e.unholdFailed(k)
			e.emit(*c, res)
		}
	}
	if len(e.failedOrder) > 2*len(e.failed)+64 { // keys taken since: drop them
		e.failedOrder = slices.DeleteFunc(e.failedOrder, func(k string) bool { _, ok := e.failed[k]; return !ok })
	}
}

// unholdFailed forgets a held failed pair.
func (e *engine) unholdFailed(key string) {
	if c, ok := e.failed[key]; ok {
		e.failedBytes -= c.source.memSize() + e.failedRes[key].item.memSize()
		delete(e.failed, key)
		delete(e.failedRes, key)
	}
}

// writeFailed writes the failed pairs still held, in arrival order: the recording is over and no
// request carrying their items was answered.
func (e *engine) writeFailed() {
	for _, k := range e.failedOrder {
		if c, ok := e.failed[k]; ok {
			res := e.failedRes[k]
			e.unholdFailed(k)
			e.emit(*c, res)
		}
	}
	e.failedOrder = nil
}

// mcpFailed handles an MCP exchange whose answer failed: its tools/call requests still open have
// no result (there is no source to write) and are counted as failed, not unanswered, and said.
func (e *engine) mcpFailed(session, failure string) {
	n := 0
	for id, c := range e.open[session] {
		if c.name != listMarker {
			n++
		}
		delete(e.open[session], id)
	}
	if n > 0 { // an exchange without a tools/call pending (an initialize, a notification) costs the recording nothing
		e.count(func(s *Stats) { s.MCPFailed += n })
		e.note("record: %d tools/call requests without a result: %s", n, failure)
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

// result decides a provider item (decide), or keeps it waiting for its call. An item evicted
// from the waiting ones past the bounds is decided as if the recording ended, and counted when
// still undecided.
func (e *engine) result(r *provResult) {
	if e.decide(r, false) {
		if len(e.live) > 0 {
			e.retry(func(w *provResult) bool { return w.name == r.name && sameArgs(w.args, r.args) }, false)
		}
		return
	}
	keep(&e.waiting, &e.waitingBytes, r, itemSize, func(w *provResult) {
		switch {
		case e.decide(w, true):
		case e.mcpTool(w.name):
			e.count(func(s *Stats) { s.Evicted++ })
		default:
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
	// Calls counts the tools/call results seen; Pairs those written with their provider item;
	// Failed those of them written execution_failed, as no provider request carrying the item
	// was answered (an HTTP status that is not 2xx, a provider that could not be reached, an
	// error answer or error event, an answer cut short).
	Calls, Pairs, Failed int
	// Ambiguous counts the provider items written as ambiguous records: the evidence could not
	// tell which of two or more distinct results of the same tool and arguments each carries
	// (docs/record.md, "Pairing"). Nothing is lost, but they are not judged.
	Ambiguous int
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
	// MCPFailed are tools/call requests whose exchange with the MCP server failed before their
	// result (an HTTP status that is not 2xx, a server that could not be reached, an answer cut
	// short): they have no result, so nothing to write.
	MCPFailed int
	// ProviderFailed counts the provider generation requests whose answer failed (with items to
	// record or not); Retried the items of a failed request that a later request carried and
	// got answered (their pairs were captured, not failed).
	ProviderFailed, Retried int
	// Unfinished are exchanges still passing when the recording ended that could not be
	// stopped in time: what they carried is not recorded.
	Unfinished int
	// Evicted are calls or items dropped past the recorder's bounds; Unreadable messages it
	// could not read; Refused pairs not written (a credential in them, a redaction that broke
	// them, a second provider API, the limits reached).
	Evicted, Unreadable, Refused int
	// Limit is why recording stopped early ("" when it did not).
	Limit string
}

// Lost reports whether anything seen was not recorded as a captured pair: not recorded at all,
// or written execution_failed (an upstream failed).
func (s Stats) Lost() bool {
	return s.PendingCalls+s.PendingResults+s.Orphans+s.Unanswered+s.Evicted+s.Unreadable+s.Refused+s.Failed+s.MCPFailed+s.Unfinished > 0 || s.Limit != ""
}

// String is the counts as one line.
func (s Stats) String() string {
	return fmt.Sprintf("%d tool calls, %d pairs written, %d ambiguous (%d sources, %d bytes), %d results of the agent's other tools; failed upstream: %d pairs written execution_failed (%d provider requests failed, %d of their items answered on a later request), %d tools/call requests the MCP server failed; not recorded: %d results no provider request carried, %d provider results without their tools/call, %d results without their call in the request, %d calls unanswered, %d evicted past the bounds, %d unreadable messages, %d pairs refused, %d exchanges unfinished at the end",
		s.Calls, s.Pairs, s.Ambiguous, s.Sources, s.Bytes, s.OtherTools, s.Failed, s.ProviderFailed, s.Retried, s.MCPFailed, s.PendingCalls, s.PendingResults, s.Orphans, s.Unanswered, s.Evicted, s.Unreadable, s.Refused, s.Unfinished)
}
