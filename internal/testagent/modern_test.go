package testagent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/mcpserve"
)

// legacyCalls answers tools/call with the fixture's bytes as they are, whatever the revision the
// request speaks (what probe's server did before it served each revision), and everything else
// as the server does; it records each request's method and _meta protocol version.
type legacyCalls struct {
	srv    *mcpserve.Server
	legacy bool
	mu     sync.Mutex
	seen   []string // "method@version"
}

func (l *legacyCalls) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	version, _ := m.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	l.mu.Lock()
	l.seen = append(l.seen, m.Method+"@"+version+"@"+r.Header.Get("MCP-Protocol-Version"))
	l.mu.Unlock()
	if l.legacy && m.Method == "tools/call" {
		resp, err := mcpserve.Response(l.srv.Fixtures[0].Bytes, m.ID)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(resp)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	l.srv.ServeHTTP(w, r)
}

// TestModernClient: the modern-2026 agent negotiates 2026-07-28 through server/discover, names
// it in every request's _meta, and hands the model the SDK's rejection in place of a result
// without resultType, as the frameworks on the MCP TypeScript SDK's 2026 line do.
func TestModernClient(t *testing.T) {
	const fixture = `{"content":[{"type":"text","text":"Two invoices are overdue."}]}`
	tests := []struct {
		name   string
		legacy bool
		want   string // the text the model gets as the tool's result
	}{
		{"a result with resultType reaches the model", false, "Two invoices are overdue."},
		{"a result without resultType is rejected, and the rejection reaches the model", true, ModernRejection},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool", Calls: []fakeprovider.Call{{ID: "call_1", Arguments: "{}"}}})
			srv := &mcpserve.Server{Revisions: []string{"2025-11-25", "2026-07-28"}, Fixtures: []mcpserve.Fixture{{ID: "F", Revision: "2025-11-25", Bytes: []byte(fixture)}}}
			l := &legacyCalls{srv: srv, legacy: tt.legacy}
			hs := httptest.NewServer(l)
			t.Cleanup(hs.Close)
			cfg := Config{API: fakeprovider.OpenAIChat, MCPURL: hs.URL, Tool: "fixture_tool", Env: env, Mode: ModeModern, Stdout: &bytes.Buffer{}}
			if err := Run(context.Background(), cfg); err != nil {
				t.Fatalf("Run: %v", err)
			}
			_, item, _, ok := p.Result("call_1")
			if !ok {
				t.Fatal("no model request carried the result")
			}
			var msg struct {
				Content string `json:"content"`
			}
			if err := json.Unmarshal(item, &msg); err != nil || msg.Content != tt.want {
				t.Errorf("the model got %s, want the text %q", item, tt.want)
			}
			want := "server/discover@2026-07-28@2026-07-28 tools/list@2026-07-28@2026-07-28 tools/call@2026-07-28@2026-07-28"
			if got := strings.Join(l.seen, " "); got != want {
				t.Errorf("requests %s\nwant     %s", got, want)
			}
			calls := srv.Calls()
			if !tt.legacy && (len(calls) != 1 || calls[0].Revision != "2026-07-28" || calls[0].Via != mcpserve.ViaDiscover) {
				t.Errorf("the server answered %+v", calls)
			}
		})
	}
}

// TestModernClientRefusesAnOldServer: a server whose server/discover does not offer 2026-07-28
// is refused, and so is a tools/list result without resultType.
func TestModernClientRefusesAnOldServer(t *testing.T) {
	tests := []struct {
		name    string
		answer  func(method string) string
		wantErr string
	}{
		{"discover without 2026-07-28", func(string) string {
			return `{"supportedVersions":["2025-11-25"],"capabilities":{},"cacheScope":"public","ttlMs":0,"resultType":"complete"}`
		}, "does not support 2026-07-28"},
		{"tools/list without resultType", func(method string) string {
			if method == "server/discover" {
				return `{"supportedVersions":["2026-07-28"],"capabilities":{},"cacheScope":"public","ttlMs":0,"resultType":"complete"}`
			}
			return `{"tools":[{"name":"fixture_tool","inputSchema":{"type":"object"}}]}`
		}, "MCP tools/list: " + ModernRejection},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool", Calls: []fakeprovider.Call{{ID: "call_1"}}})
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				_ = json.NewDecoder(r.Body).Decode(&m)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(mcpserve.ResultMessage(m.ID, tt.answer(m.Method)))
			}))
			t.Cleanup(hs.Close)
			err := Run(context.Background(), Config{API: fakeprovider.OpenAIChat, MCPURL: hs.URL, Env: env, Mode: ModeModern, Stdout: &bytes.Buffer{}})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Run = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
