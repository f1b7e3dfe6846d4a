package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// builtinRevisions are the revisions of the built-in schema layer, which the server speaks.
var builtinRevisions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// pinned compiles definitions of the pinned MCP schemas (schemas/mcp/<revision>/schema.json) as
// they are written: every kind of response the server sends is validated against the definition
// the revision gives it, not only the CallToolResult that package schema checks.
type pinned struct {
	t       *testing.T
	c       *jsonschema.Compiler
	defs    map[string]string // revision → "$defs" or "definitions"
	schemas map[string]*jsonschema.Schema
}

func newPinned(t *testing.T) *pinned {
	t.Helper()
	p := &pinned{t: t, c: jsonschema.NewCompiler(), defs: map[string]string{}, schemas: map[string]*jsonschema.Schema{}}
	for _, rev := range builtinRevisions {
		data, err := fs.ReadFile(contractcheck.Builtin, "schemas/"+schema.MCPSchemaPath(rev))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.c.AddResource("mem:///"+rev+"/schema.json", doc); err != nil {
			t.Fatal(err)
		}
		p.defs[rev] = "$defs"
		if _, ok := doc.(map[string]any)["$defs"]; !ok {
			p.defs[rev] = "definitions" // 2025-06-18 is draft-07
		}
	}
	return p
}

// validate checks v (decoded JSON) against definition name of revision's schema.
func (p *pinned) validate(rev, name string, v any) error {
	p.t.Helper()
	key := rev + "#" + name
	s, ok := p.schemas[key]
	if !ok {
		var err error
		if s, err = p.c.Compile("mem:///" + rev + "/schema.json#/" + p.defs[rev] + "/" + name); err != nil {
			p.t.Fatalf("compile %s %s: %v", rev, name, err)
		}
		p.schemas[key] = s
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("%s %s: %v", rev, name, err)
	}
	return nil
}

// envelope names the JSON-RPC response definitions of a revision (2025-06-18 names them apart).
func envelope(rev string, isErr bool) string {
	switch {
	case rev == "2025-06-18" && isErr:
		return "JSONRPCError"
	case rev == "2025-06-18":
		return "JSONRPCResponse"
	case isErr:
		return "JSONRPCErrorResponse"
	}
	return "JSONRPCResultResponse"
}

// catalogued is one catalogued fixture: its id, revision and bytes.
type catalogued struct {
	id, revision string
	data         []byte
}

// catalogue reads every built-in fixture with the revision the catalogue gives it (as
// internal/instrument/builtin_sources.json records them, validated at build time).
func catalogue(t *testing.T) []catalogued {
	t.Helper()
	raw, err := os.ReadFile("../instrument/builtin_sources.json")
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]struct {
		Revision string `json:"revision"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(contractcheck.Builtin, "fixtures/sources/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []catalogued
	for _, f := range files {
		id := strings.TrimSuffix(path.Base(f), ".json")
		e, ok := list[id]
		if !ok {
			continue
		}
		data, err := fs.ReadFile(contractcheck.Builtin, f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, catalogued{id: id, revision: e.Revision, data: data})
	}
	if len(out) != len(list) || len(out) < 40 {
		t.Fatalf("found %d fixtures' sources for %d catalogued", len(out), len(list))
	}
	return out
}

// client speaks one revision to a server as a client of that revision does: initialize before
// 2026-07-28, server/discover and the protocol version in every request's _meta from it on.
type client struct {
	t   *testing.T
	srv *Server
	rev string
	id  int
}

func (c *client) params(p map[string]any) map[string]any {
	if p == nil {
		p = map[string]any{}
	}
	if _, set := p["_meta"]; c.rev >= Stateless && !set {
		p["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": c.rev, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	}
	return p
}

// send sends method and returns the response, decoded as the schema library reads JSON, and as
// bytes.
func (c *client) send(method string, params map[string]any) (any, []byte) {
	c.t.Helper()
	c.id++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": c.params(params)})
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := c.srv.Handle(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(resp))
	if err != nil {
		c.t.Fatalf("%s: the response is not JSON: %v: %s", method, err, resp)
	}
	return doc, resp
}

// handshake opens a session in c.rev and returns the response and the definition of its result.
func (c *client) handshake() (any, string) {
	c.t.Helper()
	if c.rev >= Stateless {
		doc, _ := c.send("server/discover", nil)
		return doc, "DiscoverResult"
	}
	doc, _ := c.send("initialize", map[string]any{"protocolVersion": c.rev, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	return doc, "InitializeResult"
}

// served is what a served tools/call result must be: the fixture compacted (its result member
// for an envelope), with "resultType":"complete" as last member from 2026-07-28 on when absent.
func served(t *testing.T, f catalogued, rev string) (body string, isErr bool) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, f.data); err != nil {
		t.Fatal(err)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(compact.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	b := compact.String()
	if _, ok := env["jsonrpc"]; ok {
		if e, ok := env["error"]; ok {
			return string(e), true
		}
		b = string(env["result"])
		env = nil
		_ = json.Unmarshal([]byte(b), &env)
	}
	if _, has := env["resultType"]; rev >= Stateless && !has {
		b = strings.TrimSuffix(b, "}") + `,"resultType":"complete"}`
	}
	return b, false
}

// unservable lists the catalogued fixtures that cannot be served under a revision: a 2026-07-28
// structuredContent that is not an object (an array, null) is not one before it.
var unservable = map[string][]string{
	"2025-06-18": {"X01", "X02"},
	"2025-11-25": {"X01", "X02"},
}

// TestEveryResponseValidates sends every kind of request the server answers, in every revision
// it speaks, and validates each response against that revision's pinned schema: the JSON-RPC
// envelope and the result's own definition (InitializeResult, DiscoverResult, EmptyResult,
// ListToolsResult, CallToolResult, the error definitions). tools/call is asked of every
// catalogued fixture: a fixture is served with its content unchanged, or, when it cannot be
// served under the revision, refused with an error that names both revisions.
func TestEveryResponseValidates(t *testing.T) {
	p := newPinned(t)
	v, err := schema.New(mustSub(t, "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	fixtures := catalogue(t)
	type check struct {
		def    string // the definition of the result (or of the error object, for an error)
		isErr  bool
		whole  bool // def is the whole response's definition, not its result's or error's
		expect func(t *testing.T, resp []byte)
	}
	type tcase struct {
		name    string
		rev     string
		srv     *Server
		method  string
		params  map[string]any
		want    check
		handOff bool // skip the handshake (the request is the handshake)
	}
	var cases []tcase
	newSrv := func(fs ...Fixture) *Server {
		return &Server{Revisions: builtinRevisions, Fixtures: fs, Validate: SchemaValidator(v)}
	}
	c01 := Fixture{ID: "C01", Revision: "2025-11-25", Bytes: fixtures[slices.IndexFunc(fixtures, func(f catalogued) bool { return f.id == "C01" })].data}
	for _, rev := range builtinRevisions {
		modern := rev >= Stateless
		handshake := "initialize"
		if modern {
			handshake = "server/discover"
		}
		cases = append(cases,
			tcase{name: rev + "/" + handshake, rev: rev, srv: newSrv(c01), handOff: true, want: check{expect: func(t *testing.T, resp []byte) {
				if !strings.Contains(string(resp), `"`+rev+`"`) {
					t.Errorf("the handshake does not offer %s: %s", rev, resp)
				}
			}}},
			tcase{name: rev + "/ping", rev: rev, srv: newSrv(c01), method: "ping", want: check{def: "EmptyResult"}},
			tcase{name: rev + "/tools/list", rev: rev, srv: newSrv(c01), method: "tools/list", want: check{def: "ListToolsResult"}},
			tcase{name: rev + "/tools/list in batch mode", rev: rev, srv: newSrv(c01, Fixture{ID: "B", Revision: rev, Bytes: []byte(`{"content":[]}`)}), method: "tools/list", want: check{def: "ListToolsResult"}},
			tcase{name: rev + "/unknown method", rev: rev, srv: newSrv(c01), method: "resources/templates/list", want: check{def: errDef(rev, "MethodNotFoundError"), isErr: true}},
			tcase{name: rev + "/unknown tool", rev: rev, srv: newSrv(c01), method: "tools/call", params: map[string]any{"name": "other"}, want: check{def: errDef(rev, "InvalidParamsError"), isErr: true}},
			tcase{name: rev + "/batch call naming no fixture", rev: rev, srv: newSrv(c01, Fixture{ID: "B", Revision: rev, Bytes: []byte(`{"content":[]}`)}), method: "tools/call", params: map[string]any{"name": DefaultTool, "arguments": map[string]any{}}, want: check{def: errDef(rev, "InvalidParamsError"), isErr: true}},
		)
		if modern {
			cases = append(cases, tcase{name: rev + "/a protocol version the server does not offer", rev: rev, srv: newSrv(c01), method: "tools/list",
				params: map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2099-01-01"}},
				want:   check{def: "UnsupportedProtocolVersionError", whole: true, isErr: true}})
		}
		for _, f := range fixtures {
			fx := Fixture{ID: f.id, Revision: f.revision, Bytes: f.data}
			refused := slices.Contains(unservable[rev], f.id)
			body, fixtureErr := served(t, f, rev)
			name := fmt.Sprintf("%s/tools/call %s (%s)", rev, f.id, f.revision)
			want := check{def: "CallToolResult", expect: func(t *testing.T, resp []byte) {
				var r struct {
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				_ = json.Unmarshal(resp, &r)
				got := string(r.Result)
				if fixtureErr {
					got = string(r.Error)
				}
				if got != body {
					t.Errorf("the fixture's content changed:\ngot  %s\nwant %s", got, body)
				}
			}}
			switch {
			case refused:
				name += " is refused"
				want = check{def: errDef(rev, "InternalError"), isErr: true, expect: func(t *testing.T, resp []byte) {
					for _, s := range []string{f.id, "revision " + f.revision, "MCP revision " + rev} {
						if !strings.Contains(string(resp), s) {
							t.Errorf("the refusal does not name %q: %s", s, resp)
						}
					}
				}}
			case fixtureErr:
				want.def, want.isErr = errDef(rev, "Error"), true
			case modern:
				want.def, want.whole = "CallToolResultResponse", true
			}
			cases = append(cases, tcase{name: name, rev: rev, srv: newSrv(fx), method: "tools/call", params: map[string]any{"name": DefaultTool, "arguments": map[string]any{}}, want: want})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &client{t: t, srv: tc.srv, rev: tc.rev}
			hs, hsDef := c.handshake()
			if err := p.validate(tc.rev, envelope(tc.rev, false), hs); err != nil {
				t.Fatalf("handshake: %v", err)
			}
			if err := p.validate(tc.rev, hsDef, hs.(map[string]any)["result"]); err != nil {
				t.Fatalf("handshake: %v", err)
			}
			var resp []byte
			if tc.handOff {
				resp = mustJSON(t, hs)
			} else {
				var doc any
				doc, resp = c.send(tc.method, tc.params)
				if err := p.validate(tc.rev, envelope(tc.rev, tc.want.isErr), doc); err != nil {
					t.Fatalf("%v: %s", err, resp)
				}
				if tc.rev != "2025-06-18" {
					if err := p.validate(tc.rev, "JSONRPCResponse", doc); err != nil {
						t.Fatalf("%v: %s", err, resp)
					}
				}
				member := "result"
				if tc.want.isErr {
					member = "error"
				}
				part := doc.(map[string]any)[member]
				if tc.want.whole {
					part = doc
				}
				if part == nil {
					t.Fatalf("no %s: %s", member, resp)
				}
				if err := p.validate(tc.rev, tc.want.def, part); err != nil {
					t.Fatalf("%v: %s", err, resp)
				}
			}
			if tc.want.expect != nil {
				tc.want.expect(t, resp)
			}
		})
	}
}

// errDef is the definition of an error object: 2026-07-28 names one per code; the older
// revisions have one for all (2025-06-18's is inline in JSONRPCError, which the envelope checks).
func errDef(rev, name string) string {
	switch rev {
	case "2025-06-18":
		return "JSONRPCError/properties/error"
	case "2025-11-25":
		return "Error"
	}
	return name
}

func mustSub(t *testing.T, dir string) fs.FS {
	t.Helper()
	sub, err := fs.Sub(contractcheck.Builtin, dir)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
