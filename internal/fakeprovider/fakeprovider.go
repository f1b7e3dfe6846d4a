// Package fakeprovider is the fake model provider of `contractcheck probe`: an http.Handler that
// plays OpenAI Responses, OpenAI Chat Completions, Anthropic Messages and the Gemini API, each
// plain and streamed (SSE), for one agent run on loopback.
//
// Every generation request gets the next tool call of Config.Calls (to the probe tool, under the
// name the request's tool list gives it), and once all are issued a final text. A Responses
// client that defers its tools behind a client-executed tool search is first asked to search
// for the probe tool (AnswerToolSearch), which is then called as the search returned it. Every request is
// recorded with its body exactly as received, so the request that carries a tool result, the H4
// carrier, can be read back byte for byte (Provider.Result, FindResult). The side calls SDKs make
// (model lists, token counts) are answered plausibly, and so are the generation requests that are
// not the agent's turn (AnswerSideCall: no tools listed, or none matching while asking for JSON,
// as model routers and title generators send); a request the provider does not understand is
// refused with a 404 naming it and makes Provider.Err fail, never a silent empty answer.
//
// Answers are deterministic: ids are numbered by turn (resp_probe_1, msg_probe_1, …), tool call
// ids are the ones configured, and timestamps are fixed (created 1700000000).
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package fakeprovider

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// API is a model provider API the fake provider speaks.
type API string

// The provider APIs, in the order APIs returns them.
const (
	// OpenAIResponses is the OpenAI Responses API (POST /v1/responses).
	OpenAIResponses API = "openai-responses"
	// OpenAIChat is the OpenAI Chat Completions API (POST /v1/chat/completions).
	OpenAIChat API = "openai-chat"
	// Anthropic is the Anthropic Messages API (POST /v1/messages).
	Anthropic API = "anthropic"
	// Gemini is the Gemini API (POST /v1beta/models/M:generateContent and :streamGenerateContent).
	Gemini API = "gemini"
)

// APIs returns every API the fake provider speaks, in a fixed order.
func APIs() []API { return []API{OpenAIResponses, OpenAIChat, Anthropic, Gemini} }

// ParseAPI returns the API named s.
func ParseAPI(s string) (API, error) {
	for _, a := range APIs() {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, 0, 4)
	for _, a := range APIs() {
		names = append(names, string(a))
	}
	return "", fmt.Errorf("unknown provider API %q (want one of %s)", s, strings.Join(names, ", "))
}

// DummyKey is the API key value Env gives the agent for every provider.
const DummyKey = "contractcheck-probe"

// Env returns the environment (KEY=VALUE) that points each provider SDK at the fake provider
// served at root (e.g. http://127.0.0.1:PORT/r/TOKEN), each in its SDKs' own convention: the
// OpenAI base URL ends in /v1, the Anthropic and Gemini ones do not. The API keys are dummies.
func Env(root string) []string {
	root = strings.TrimRight(root, "/")
	return []string{
		"OPENAI_BASE_URL=" + root + "/v1",
		"ANTHROPIC_BASE_URL=" + root,
		"GOOGLE_GEMINI_BASE_URL=" + root,
		"OPENAI_API_KEY=" + DummyKey,
		"ANTHROPIC_API_KEY=" + DummyKey,
		"GEMINI_API_KEY=" + DummyKey,
		"GOOGLE_API_KEY=" + DummyKey,
		"GOOGLE_GENAI_USE_VERTEXAI=false",
	}
}

// NoTelemetryEnv is the environment that turns off the telemetry agent SDKs send past their
// provider's base URL, which Env points at the fake provider (openai-agents traces to
// api.openai.com whatever the base URL is): nothing of a run that probe or record serves is to
// leave the machine.
var NoTelemetryEnv = []string{
	"OPENAI_AGENTS_DISABLE_TRACING=1",
	"LANGCHAIN_TRACING_V2=false",
	"LANGSMITH_TRACING=false",
	"OTEL_SDK_DISABLED=true",
	"DO_NOT_TRACK=1",
}

// Call is one tool call the fake model makes.
type Call struct {
	// ID is the call id the answer carries (Responses call_id, Chat tool_calls[].id, Anthropic
	// tool_use id, Gemini functionCall id). Anthropic requires ids matching ^[a-zA-Z0-9_-]+$.
	ID string
	// Arguments is the call's arguments as JSON object text, e.g. "{}" or {"fixture":"C05"};
	// empty means "{}".
	Arguments string
}

// Config configures a Provider.
type Config struct {
	// Tool is the probe tool's MCP name, e.g. "fixture_tool". A request's tool list is searched
	// for it: the exact name, else a name that ends in Tool after a separator (_ - . : /), e.g.
	// "rawmcp_fixture_tool" or "mcp__srv__fixture_tool".
	Tool string
	// Calls are the tool calls to make, one per model turn, in order; after the last, every
	// generation request gets a final text answer.
	Calls []Call
	// FinalText is the final answer's text ("Done." when empty).
	FinalText string
}

// Answers a Request may have been given (Request.Answer), besides "call <id>".
const (
	// AnswerFinal is a final text answer.
	AnswerFinal = "final"
	// AnswerSide is an answer to a side call: a model list or a token count.
	AnswerSide = "side"
	// AnswerSideCall is the answer to a generation request that is not the agent's turn: one
	// that lists no tools at all (a router, a classifier, a title or summary generation), or
	// that lists tools of which none matches Config.Tool but asks for JSON. It gets a short
	// text, or when the request asks for JSON a small value valid against the schema it gives
	// (sideAnswer), and never consumes one of Config.Calls.
	AnswerSideCall = "side-call"
	// AnswerToolSearch is a Responses answer asking the client to run its tool search: a
	// tool_search_call item whose arguments are {"query": Config.Tool}. It is given to a
	// generation request that lists no tool matching Config.Tool but a tool_search tool with
	// "execution": "client", once per run, and never consumes one of Config.Calls: the next
	// request carries the search's tool_search_output, where the tool is found and called.
	AnswerToolSearch = "tool-search"
	// AnswerRefused is an error answer: a request the provider did not understand or accept.
	AnswerRefused = "refused"
)

// Request is one HTTP request the provider received.
type Request struct {
	// Seq numbers the requests from 1 in arrival order.
	Seq int
	// API is the provider API the request addressed ("" when its route is unknown; an OpenAI
	// model list counts as openai-chat).
	API API
	// Method is the HTTP method.
	Method string
	// Path is the path and query relative to the provider root, as received.
	Path string
	// Stream reports whether the answer was streamed.
	Stream bool
	// Body is the request body exactly as received (shared: do not modify); nil when it
	// exceeded MaxBodyBytes.
	Body []byte
	// Answer is "call <id>", "final", "side", "side-call", "tool-search" or "refused".
	Answer string
	// Guess is the provider API the request looks like it addresses: API when its route is
	// known, else a guess from its path, headers and body keys ("" when nothing suggests
	// one). It lets a failure name what an agent sent when the provider understood none of it.
	Guess API
	// Generation reports that the request addressed a model generation route of its API
	// (rather than a model list or a token count), whatever its answer: a call, a final text, a
	// tool search, a side call, or a refusal.
	Generation bool
}

// Describe names the request for a message: method, path, sequence number, the API it
// addresses (or "API unknown", with the one it looks like when Guess has one) and how it was
// answered, e.g. `POST /v1/responses (request 1: API openai-responses, call call_1)`. The path is
// quoted when it holds anything but printable characters.
func (r Request) Describe() string {
	path := r.Path
	if q := strconv.QuoteToGraphic(path); q[1:len(q)-1] != path || strings.ContainsAny(path, " \"") {
		path = q
	}
	api := "API " + string(r.API)
	switch {
	case r.API == "" && r.Guess != "":
		api = "API unknown, looks like " + string(r.Guess)
	case r.API == "":
		api = "API unknown"
	}
	return fmt.Sprintf("%s %s (request %d: %s, %s)", r.Method, path, r.Seq, api, r.Answer)
}

// MaxBodyBytes bounds a request body the provider reads (64 MiB).
const MaxBodyBytes = 64 << 20

// MaxRunBytes bounds the request bodies one provider keeps in all (256 MiB): an agent that loops
// on the model is refused, and fails its run, before it can take the probe past its memory.
const MaxRunBytes = 256 << 20

// errTooLarge reports a body beyond the provider's bound.
var errTooLarge = errors.New("the body exceeds the fake provider's limit")

// Provider is the fake model provider for one agent run. It is safe for concurrent use.
type Provider struct {
	tool      string
	calls     []Call
	finalText string
	maxBody   int64 // MaxBodyBytes; lowered by tests
	maxRun    int64 // MaxRunBytes; lowered by tests
	stored    int64 // the bytes of the bodies kept

	mu       sync.Mutex
	reqs     []Request
	next     int             // index of the next call to issue
	listed   []string        // per issued call, the tool name as the request listed it
	issued   map[string]bool // call ids answered
	turn     int             // generation answers given (side calls apart)
	sides    int             // side calls answered (AnswerSideCall)
	searches int             // tool searches asked for (AnswerToolSearch)
	err      error
}

// New returns a Provider for cfg. A configuration it cannot honour (no Tool, arguments that are
// not a JSON object) is reported by Err.
func New(cfg Config) *Provider {
	p := &Provider{tool: cfg.Tool, finalText: cfg.FinalText, maxBody: MaxBodyBytes, maxRun: MaxRunBytes, issued: map[string]bool{}}
	if p.finalText == "" {
		p.finalText = "Done."
	}
	if p.tool == "" {
		p.fail(errors.New("fake provider: Config.Tool is empty"))
	}
	for i, c := range cfg.Calls {
		if c.Arguments == "" {
			c.Arguments = "{}"
		}
		if c.ID == "" {
			c.ID = "call_probe_" + strconv.Itoa(i+1)
		}
		if _, err := root([]byte(c.Arguments)); err != nil {
			p.fail(fmt.Errorf("fake provider: call %s: arguments %q are not a JSON object", c.ID, c.Arguments))
		}
		p.calls = append(p.calls, c)
	}
	return p
}

// fail records err as the provider's failure unless one is recorded already. p.mu must be held
// or p not yet shared.
func (p *Provider) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// Requests returns every request received so far, in arrival order. The bodies are shared with
// the provider: do not modify them.
func (p *Provider) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.reqs)
}

// Err returns the provider's first failure: a request it did not understand, a model request
// whose tool list has no tool matching Config.Tool, a body that is not JSON or too large, or a
// configuration it cannot honour. It is nil when all went fine.
func (p *Provider) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// ToolCalled reports whether an answer carrying the tool call id was sent.
func (p *Provider) ToolCalled(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.issued[id]
}

// Result finds the first recorded model generation request that carries the result of call id
// and returns the carrying item's exact bytes (a sub-slice of the request body, never
// re-encoded), the request's API and its Seq. For Gemini results without an id, or with an id
// the client made itself (not one of Config.Calls: the fake never sends ids to Gemini
// clients), the call's position in Config.Calls and the tool name as listed pick the
// functionResponse part (see FindResult).
func (p *Provider) Result(id string) (api API, item []byte, seq int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	index := slices.IndexFunc(p.calls, func(c Call) bool { return c.ID == id })
	if index < 0 {
		return "", nil, 0, false
	}
	name := ""
	if index < len(p.listed) {
		name = p.listed[index]
	}
	ours := make(map[string]bool, len(p.calls))
	for _, c := range p.calls {
		ours[c.ID] = true
	}
	// A result is carried after the turn that made the call: the requests before it are not
	// searched (in a long batch run each body holds every earlier turn).
	issued := -1
	for i, r := range p.reqs {
		if r.Answer == "call "+id {
			issued = i
			break
		}
	}
	for _, r := range p.reqs[issued+1:] {
		if !r.Generation {
			continue
		}
		item, found, err := findResult(r.API, r.Body, id, index, name, ours)
		if err == nil && found {
			return r.API, item, r.Seq, true
		}
	}
	return "", nil, 0, false
}

// kind is what a route does.
type kind int

const (
	kindUnknown  kind = iota
	kindGenerate      // a model turn
	kindCount         // a token count
	kindModels        // a model list
	kindModel         // one model
	kindResponsesInputTokens
)

// route is a request's destination.
type route struct {
	api    API
	kind   kind
	model  string // Gemini: the model in the path; models: the model id asked for
	stream bool   // Gemini: streamGenerateContent
	sse    bool   // Gemini: alt=sse
}

// geminiVersions are the API version prefixes Gemini paths may carry.
var geminiVersions = []string{"/v1beta", "/v1alpha", "/v1"}

// routeOf finds where r goes.
func routeOf(r *http.Request) route {
	path := r.URL.Path
	post, get := r.Method == http.MethodPost, r.Method == http.MethodGet
	// Gemini: [/v1beta|/v1alpha|/v1]/models/M:method, GET [/v1beta|/v1alpha]/models[/M].
	gpath, versioned := path, ""
	for _, v := range geminiVersions {
		if rest, ok := strings.CutPrefix(path, v+"/"); ok {
			gpath, versioned = "/"+rest, v
			break
		}
	}
	if rest, ok := strings.CutPrefix(gpath, "/models/"); ok && post {
		if model, method, ok := strings.Cut(rest, ":"); ok && model != "" && !strings.Contains(model, "/") {
			switch method {
			case "generateContent":
				return route{api: Gemini, kind: kindGenerate, model: model}
			case "streamGenerateContent":
				return route{api: Gemini, kind: kindGenerate, model: model, stream: true, sse: r.URL.Query().Get("alt") == "sse"}
			case "countTokens":
				return route{api: Gemini, kind: kindCount, model: model}
			}
		}
	}
	geminiGet := versioned == "/v1beta" || versioned == "/v1alpha" ||
		r.Header.Get("x-goog-api-key") != "" || r.URL.Query().Has("key")
	if get && geminiGet && r.Header.Get("anthropic-version") == "" {
		if gpath == "/models" {
			return route{api: Gemini, kind: kindModels}
		}
		if m, ok := strings.CutPrefix(gpath, "/models/"); ok && m != "" && !strings.Contains(m, "/") {
			return route{api: Gemini, kind: kindModel, model: m}
		}
	}
	// OpenAI and Anthropic: with or without the /v1 prefix.
	p := path
	if rest, ok := strings.CutPrefix(path, "/v1/"); ok {
		p = "/" + rest
	}
	switch {
	case post && p == "/responses":
		return route{api: OpenAIResponses, kind: kindGenerate}
	case post && p == "/responses/input_tokens":
		return route{api: OpenAIResponses, kind: kindResponsesInputTokens}
	case post && p == "/chat/completions":
		return route{api: OpenAIChat, kind: kindGenerate}
	case post && p == "/messages":
		return route{api: Anthropic, kind: kindGenerate}
	case post && p == "/messages/count_tokens":
		return route{api: Anthropic, kind: kindCount}
	case get && (p == "/models" || strings.HasPrefix(p, "/models/")):
		id := strings.TrimPrefix(strings.TrimPrefix(p, "/models"), "/")
		if strings.Contains(id, "/") {
			break
		}
		api := OpenAIChat
		if r.Header.Get("anthropic-version") != "" {
			api = Anthropic
		}
		if id == "" {
			return route{api: api, kind: kindModels}
		}
		return route{api: api, kind: kindModel, model: id}
	}
	return route{}
}

// plan is the answer decided for one request, written after the lock is released.
type plan struct {
	route
	seq          int
	status       int         // != 0: an error answer with this status
	message      string      // the error answer's message
	call         *Call       // the tool call to make, nil for a final text
	tool         listedTool  // the tool as the request listed it
	side         bool        // a side call (AnswerSideCall): finalText is its answer
	search       *searchCall // a tool search to ask the client for (AnswerToolSearch)
	turn         int         // the generation turn, from 1
	model        string
	streamed     bool // Responses, Chat, Anthropic: the request asked for a stream
	includeUsage bool // Chat: stream_options.include_usage
	finalText    string
	tokens       int // a plausible token count for the request
}

// ServeHTTP answers one provider request and records it.
func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := routeOf(r)
	body, readErr := io.ReadAll(io.LimitReader(r.Body, p.maxBody+1))
	if readErr == nil && int64(len(body)) > p.maxBody {
		readErr = fmt.Errorf("%w (%d bytes)", errTooLarge, p.maxBody)
		body = nil
	}

	p.mu.Lock()
	if readErr == nil && p.stored+int64(len(body)) > p.maxRun {
		readErr = fmt.Errorf("%w: the run's requests exceed %d bytes in all", errTooLarge, p.maxRun)
		body = nil
	}
	p.stored += int64(len(body))
	pl := plan{route: rt, seq: len(p.reqs) + 1}
	rec := Request{Seq: pl.seq, API: rt.api, Guess: rt.api, Method: r.Method, Path: r.URL.RequestURI(), Body: body,
		Generation: rt.kind == kindGenerate}
	if rec.Guess == "" {
		rec.Guess = guessAPI(r, body)
	}
	where := fmt.Sprintf("fake provider: %s %s (request %d)", r.Method, rec.Path, pl.seq)
	switch {
	case rt.kind == kindUnknown:
		pl.status, pl.message = http.StatusNotFound, fmt.Sprintf("fake provider: no route for %s %s", r.Method, rec.Path)
	case readErr != nil:
		pl.status, pl.message = http.StatusBadRequest, where+": read body: "+readErr.Error()
		if errors.Is(readErr, errTooLarge) {
			pl.status = http.StatusRequestEntityTooLarge
		}
	default:
		p.decide(&pl, body, where)
	}
	switch {
	case pl.status != 0:
		rec.Answer = AnswerRefused
		p.fail(errors.New(pl.message))
	case rt.kind != kindGenerate:
		rec.Answer = AnswerSide
	case pl.side:
		rec.Answer = AnswerSideCall
	case pl.search != nil:
		rec.Answer = AnswerToolSearch
	case pl.call != nil:
		rec.Answer = "call " + pl.call.ID
	default:
		rec.Answer = AnswerFinal
	}
	rec.Stream = pl.status == 0 && rt.kind == kindGenerate && (pl.streamed || rt.stream)
	p.reqs = append(p.reqs, rec)
	p.mu.Unlock()

	write(w, pl)
}

// decide fills in pl for a request on a known route; p.mu is held.
func (p *Provider) decide(pl *plan, body []byte, where string) {
	pl.tokens = len(body)/4 + 1
	pl.model = pl.route.model
	if pl.kind == kindModels || pl.kind == kindModel {
		return
	}
	ms, err := root(body)
	if err != nil {
		pl.status, pl.message = http.StatusBadRequest, where+": "+err.Error()
		if len(body) > 0 && body[0] == 0x1f {
			pl.message += " (a gzip-compressed body is not supported)"
		}
		return
	}
	if m, ok := str(body, ms, "model"); ok && pl.model == "" {
		pl.model = m
	}
	if pl.model == "" {
		pl.model = defaultModel[pl.api]
	}
	if pl.kind != kindGenerate {
		return
	}
	if m, ok := lookup(ms, "stream"); ok && string(body[m.start:m.end]) == "true" {
		pl.streamed = pl.api != Gemini
	}
	if so, ok, _ := field(body, ms, "stream_options"); ok {
		if m, ok := lookup(so, "include_usage"); ok && string(body[m.start:m.end]) == "true" {
			pl.includeUsage = true
		}
	}
	pl.finalText = p.finalText
	tools, toolsErr := toolList(pl.api, body, ms)
	var searched []searchOutput
	if toolsErr == nil && pl.api == OpenAIResponses {
		searched, toolsErr = searchOutputs(body, ms)
	}
	asked, schema, formatErr := jsonAsked(pl.api, body, ms)
	var listed listedTool
	matched := false
	if toolsErr == nil {
		listed, matched = matchListed(tools.fns, p.tool)
		if !matched {
			// A tool the client's tool search returned is callable as if listed.
			listed, matched = matchListed(searchedTools(searched), p.tool)
		}
	}
	// A request that is not the agent's turn (no tools at all, or none matching while asking
	// for JSON) is a side call: a router, a classifier, a title. It gets a plausible answer
	// and leaves the configured calls alone.
	if toolsErr == nil && formatErr == nil && !matched && (!tools.any || asked) {
		p.sides++
		pl.side, pl.turn = true, p.sides
		pl.finalText = sideAnswer(asked, schema)
		return
	}
	if p.next >= len(p.calls) {
		p.turn++
		pl.turn = p.turn
		return
	}
	if toolsErr != nil {
		pl.status, pl.message = http.StatusBadRequest, where+": tools: "+toolsErr.Error()
		return
	}
	if !matched && len(searched) > 0 {
		pl.status, pl.message = http.StatusBadRequest, fmt.Sprintf("%s: no tool matching %q to call: the client's tool search found none (%s)",
			where, p.tool, describeSearch(searched))
		return
	}
	if !matched && tools.search {
		// The client defers its tools behind a tool search: ask it to search for the probe
		// tool, as the model would. One search per run: a client that does not send back its
		// output would otherwise be asked forever.
		if p.searches > 0 {
			pl.status, pl.message = http.StatusBadRequest, fmt.Sprintf("%s: no tool matching %q to call, and the request carries no tool_search_output for the tool search call_probe_search_%d asked for",
				where, p.tool, p.searches)
			return
		}
		p.searches++
		p.turn++
		pl.turn, pl.search = p.turn, &searchCall{id: "call_probe_search_" + strconv.Itoa(p.searches), query: p.tool}
		return
	}
	if !matched {
		listedText := "the request lists no function tools"
		if len(tools.fns) > 0 {
			q := make([]string, len(tools.fns))
			for i, t := range tools.fns {
				q[i] = t.describe()
			}
			listedText = "the request lists " + strings.Join(q, ", ")
		}
		pl.status, pl.message = http.StatusBadRequest, fmt.Sprintf("%s: no tool matching %q to call (%s), and it does not ask for JSON, as a side call would",
			where, p.tool, listedText)
		return
	}
	c := p.calls[p.next]
	if _, err := root([]byte(c.Arguments)); err != nil {
		pl.status, pl.message = http.StatusInternalServerError, fmt.Sprintf("%s: call %s: arguments %q are not a JSON object", where, c.ID, c.Arguments)
		return
	}
	p.next++
	p.listed = append(p.listed, listed.name)
	p.issued[c.ID] = true
	p.turn++
	pl.turn, pl.call, pl.tool = p.turn, &c, listed
}

// defaultModel names the model in answers to requests that name none.
var defaultModel = map[API]string{
	OpenAIResponses: "gpt-4.1",
	OpenAIChat:      "gpt-4.1",
	Anthropic:       "claude-sonnet-4-5",
	Gemini:          "gemini-2.5-flash",
}

// listedTool is a tool a generation request declares that the fake model can call.
type listedTool struct {
	name      string // the function's name (for a namespace's function, its name inside it)
	namespace string // Responses: the namespace tool that holds it ("" for a top-level tool)
	custom    bool   // Responses: a custom (freeform) tool, called with a string input
}

// describe names t for a message, quoted.
func (t listedTool) describe() string {
	d := strconv.Quote(t.name)
	if t.namespace != "" {
		d += " (namespace " + strconv.Quote(t.namespace) + ")"
	}
	if t.custom {
		d += " (custom)"
	}
	return d
}

// toolSet is what a generation request's tools list declares.
type toolSet struct {
	fns    []listedTool // the tools the fake model can call, in order
	any    bool         // the request lists at least one tool of any kind (built-in ones too)
	search bool         // Responses: the request lists a client-executed tool_search tool
}

// toolList reads the tools a generation request declares, in order: function tools (and on
// Responses custom tools and the tools inside namespace tools). Tools of other kinds
// (built-in, server-side) are not callable but count in toolSet.any.
func toolList(api API, body []byte, ms []member) (toolSet, error) {
	var set toolSet
	tools, ok, err := elems(body, ms, "tools")
	if err != nil || !ok {
		return set, err
	}
	set.any = len(tools) > 0
	for _, t := range tools {
		tm, ok, err := objectMembers(body, t[0], t[1])
		if err != nil {
			return set, err
		}
		if !ok {
			continue
		}
		typ, hasType := str(body, tm, "type")
		switch api {
		case OpenAIResponses:
			if typ == "tool_search" {
				if ex, _ := str(body, tm, "execution"); ex == "client" {
					set.search = true
				}
				continue
			}
			fns, err := responsesTools(body, tm)
			if err != nil {
				return set, err
			}
			set.fns = append(set.fns, fns...)
		case OpenAIChat:
			if hasType && typ != "function" {
				continue
			}
			if fn, ok, _ := field(body, tm, "function"); ok {
				if n, ok := str(body, fn, "name"); ok {
					set.fns = append(set.fns, listedTool{name: n})
				}
			}
		case Anthropic:
			if n, ok := str(body, tm, "name"); ok && (!hasType || typ == "custom") {
				set.fns = append(set.fns, listedTool{name: n})
			}
		case Gemini:
			for _, key := range []string{"functionDeclarations", "function_declarations"} {
				decls, _, err := elems(body, tm, key)
				if err != nil {
					return set, err
				}
				for _, d := range decls {
					dm, ok, err := objectMembers(body, d[0], d[1])
					if err != nil {
						return set, err
					}
					if n, has := str(body, dm, "name"); ok && has {
						set.fns = append(set.fns, listedTool{name: n})
					}
				}
			}
		}
	}
	return set, nil
}

// responsesTools reads the callable tools of one Responses tool object tm: the tool itself (a
// function or custom tool), or for a namespace tool the function and custom tools inside it.
func responsesTools(body []byte, tm []member) ([]listedTool, error) {
	if typ, _ := str(body, tm, "type"); typ != "namespace" {
		if lt, ok := responsesTool(body, tm); ok {
			return []listedTool{lt}, nil
		}
		return nil, nil
	}
	ns, _ := str(body, tm, "name")
	inner, _, err := elems(body, tm, "tools")
	if err != nil {
		return nil, err
	}
	var fns []listedTool
	for _, it := range inner {
		im, ok, err := objectMembers(body, it[0], it[1])
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if lt, ok := responsesTool(body, im); ok {
			lt.namespace = ns
			fns = append(fns, lt)
		}
	}
	return fns, nil
}

// responsesTool reads one Responses tool (top-level or inside a namespace): a function tool
// (type "function", or no type) or a custom tool (type "custom").
func responsesTool(body []byte, tm []member) (listedTool, bool) {
	typ, hasType := str(body, tm, "type")
	n, ok := str(body, tm, "name")
	switch {
	case !ok:
		return listedTool{}, false
	case !hasType || typ == "function":
		return listedTool{name: n}, true
	case typ == "custom":
		return listedTool{name: n, custom: true}, true
	}
	return listedTool{}, false
}

// matchListed is matchTool over listed tools, by each tool's own name (inside its namespace).
func matchListed(tools []listedTool, tool string) (listedTool, bool) {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.name
	}
	n, ok := matchTool(names, tool)
	if !ok {
		return listedTool{}, false
	}
	return tools[slices.Index(names, n)], true
}

// toolSeparators may stand between a framework's prefix and the tool's MCP name.
const toolSeparators = "_-.:/"

// matchTool finds tool among the listed names: the exact name first, else the first name that
// ends in tool after a separator.
func matchTool(listed []string, tool string) (string, bool) {
	if tool == "" {
		return "", false
	}
	if slices.Contains(listed, tool) {
		return tool, true
	}
	for _, n := range listed {
		if len(n) > len(tool) && strings.HasSuffix(n, tool) && strings.IndexByte(toolSeparators, n[len(n)-len(tool)-1]) >= 0 {
			return n, true
		}
	}
	return "", false
}
