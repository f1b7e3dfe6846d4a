package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/testagent"
)

// TestProbeServesTheNegotiatedRevision: each run is served in the revision its client
// negotiated, and its H4 record says which and how. A client of the MCP TypeScript SDK's 2026
// line (the test agent's modern-2026 mode: server/discover, _meta, resultType required) gets the
// fixture's content, not its SDK's rejection of a result without resultType recorded as
// captured; a fixture that cannot be served under the negotiated revision fails the run naming
// the fixture and both revisions.
func TestProbeServesTheNegotiatedRevision(t *testing.T) {
	t.Parallel()
	const c09 = "Route optimised: 14 stops, 212 km in total, estimated driving time 4 h 35 min."
	tests := []struct {
		name    string
		env     []string
		fixture string
		// captured: the model got want (the tool message's content); else the H4 error holds
		// every one of want's lines.
		captured bool
		want     string
		note     string
		// outOfRevision sets Options.OutOfRevision (--serve-out-of-revision).
		outOfRevision bool
	}{
		{"a 2026-07-28 client over HTTP gets the fixture's content", []string{"TESTAGENT_MODE=" + testagent.ModeModern}, "C09", true, c09,
			`contractcheck probe: tools/call served under MCP revision 2026-07-28, which the client negotiated through server/discover and named in the request's _meta, with "resultType":"complete" added to the fixture's result.`, false},
		{"a 2026-07-28 client over stdio gets the fixture's content", []string{"TESTAGENT_MODE=" + testagent.ModeModern, "TESTAGENT_TRANSPORT=stdio"}, "C09", true, c09,
			`contractcheck probe: tools/call served under MCP revision 2026-07-28, which the client negotiated through server/discover and named in the request's _meta, with "resultType":"complete" added to the fixture's result.`, false},
		{"a 2026-07-28 fixture keeps its own resultType", []string{"TESTAGENT_MODE=" + testagent.ModeModern}, "X01", true,
			`[{"sku":"BRK-PAD-0412","onHand":128,"bin":"A-14-03"},{"sku":"OIL-FLT-0077","onHand":0,"bin":"C-02-11"}]`,
			`contractcheck probe: tools/call served under MCP revision 2026-07-28, which the client negotiated through server/discover and named in the request's _meta.`, false},
		{"a 2025-11-25 client gets the fixture as it is", nil, "C09", true, c09,
			`contractcheck probe: tools/call served under MCP revision 2025-11-25, which the client negotiated through initialize.`, false},
		{"a fixture the negotiated revision cannot carry fails the run naming both", nil, "X01", false,
			"fixture X01 (revision 2026-07-28) cannot be served under MCP revision 2025-11-25, which the client negotiated through initialize: the 2025-11-25 schema refuses it: response: /result/structuredContent: got array, want object",
			`contractcheck probe: tools/call refused under MCP revision 2025-11-25, which the client negotiated through initialize.`, false},
		{"--serve-out-of-revision serves it all the same and says so", nil, "X01", true,
			`[{"sku":"BRK-PAD-0412","onHand":128,"bin":"A-14-03"},{"sku":"OIL-FLT-0077","onHand":0,"bin":"C-02-11"}]`,
			`contractcheck probe: tools/call served under MCP revision 2025-11-25, which the client negotiated through initialize, out of revision (--serve-out-of-revision): the 2025-11-25 schema refuses it: response: /result/structuredContent: got array, want object.`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := probeOpts(t, "agent", append([]string{"TESTAGENT_API=openai-chat"}, tt.env...), tt.fixture)
			o.OutOfRevision = tt.outOfRevision
			res, log := runLogged(t, o)
			h4 := h4Of(t, readRecords(t, o), tt.fixture, 1)
			if h4.Notes != tt.note {
				t.Errorf("notes %q\nwant  %q", h4.Notes, tt.note)
			}
			if !tt.captured {
				if res.Failed != 1 || h4.State != "execution_failed" {
					t.Fatalf("result %+v, H4 %s %s", res, h4.State, h4.Carrier)
				}
				for _, w := range strings.Split(tt.want, "\n") {
					if !strings.Contains(h4.Error, w) {
						t.Errorf("the H4 error does not say %q: %s", w, h4.Error)
					}
				}
				return
			}
			if res.Captured != 1 || h4.State != "captured" {
				t.Fatalf("result %+v, H4 %s %s; log:\n%s", res, h4.State, h4.Error, log)
			}
			var msg struct {
				Content string `json:"content"`
			}
			if err := json.Unmarshal(h4.Carrier, &msg); err != nil || msg.Content != tt.want {
				t.Errorf("the model got %s\nwant the fixture's text %q", h4.Carrier, tt.want)
			}
		})
	}
}

// TestServedNoteIsDeterministic: two probes of one client write the same record bytes.
func TestServedNoteIsDeterministic(t *testing.T) {
	t.Parallel()
	var files [][]byte
	for range 2 {
		o := probeOpts(t, "agent", []string{"TESTAGENT_API=openai-chat", "TESTAGENT_MODE=" + testagent.ModeModern}, "C09")
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(o.Output, o.Lane, o.Version, o.Configuration+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) || !bytes.Contains(files[0], []byte(`"notes":"contractcheck probe: tools/call served under MCP revision 2026-07-28`)) {
		t.Errorf("records differ or carry no note:\n%s\n%s", files[0], files[1])
	}
}

// TestModernClientReadsWhatItShows: the visibility readout of a 2026-07-28 client is what the
// client shows the model (the test agent forwards the content text: content-only), not
// "neither" read off its SDK's rejection of a result without resultType; and check accepts the
// records with their notes.
func TestModernClientReadsWhatItShows(t *testing.T) {
	t.Parallel()
	o := probeOpts(t, "agent", []string{"TESTAGENT_API=openai-responses", "TESTAGENT_MODE=" + testagent.ModeModern}, "V0*")
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Captured != 4 {
		t.Fatalf("result %+v", res)
	}
	judged, err := check.Run(context.Background(), JudgeOptions(o, res))
	if err != nil {
		t.Fatal(err)
	}
	if vs := judged.VisibilityReadout(); len(vs) != 1 || vs[0].Category != "content-only" {
		t.Fatalf("visibility %+v, want content-only", vs)
	}
}
