package main

import (
	"context"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/doctable"
	"github.com/contractcheck/contractcheck/internal/probe"
	"github.com/contractcheck/contractcheck/internal/result"
)

var update = flag.Bool("update", false, "rewrite the table in docs/clients.md from the committed client evidence")

// root is the repository's root, seen from this package's directory.
const root = "../.."

// TestDocTable holds the table of docs/clients.md to the committed evidence of the client
// recipes (examples/probe/clients/<client>/visibility): every cell is what check and the
// traffic give today. Hermetic: no client runs. go test ./internal/clientsdoc -run TestDocTable
// -update (or go run ./internal/clientsdoc) rewrites it after scripts/probe-clients.
func TestDocTable(t *testing.T) {
	table, err := Table(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := doctable.Keep(filepath.Join(root, DocFile), TableStart, TableEnd, table, *update); err != nil {
		t.Errorf("%v:\n%s", err, table)
	}
}

// TestEveryRecipeHasEvidence: each recipe directory with a run.mjs has committed evidence, so
// docs/clients.md lists every client the recipes run.
func TestEveryRecipeHasEvidence(t *testing.T) {
	cs, err := Clients(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, c := range cs {
		rows[c.Dir] = true
	}
	entries, err := os.ReadDir(filepath.Join(root, ClientsDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, ClientsDir, e.Name(), "run.mjs")); err != nil {
			continue
		}
		if !rows[e.Name()] {
			t.Errorf("recipe %s has no evidence in %s/%s/%s (scripts/probe-clients %s)", e.Name(), ClientsDir, e.Name(), EvidenceDir, e.Name())
		}
	}
}

// TestRenderHostile: strings read from records (lane, version, provider, fixture ids, shapes)
// cannot break the table: each row keeps the header's cells, no raw HTML and no line break.
func TestRenderHostile(t *testing.T) {
	link := Link{File: "examples/x y/(a)|b.jsonl", Line: 3}
	client := func(s string) Client {
		return Client{
			Dir: s, Lane: s, Version: s, Configuration: "default", Provider: s, Transport: s,
			TransportAt: link, ProviderAt: link, M3: s, M3At: link,
			H4: result.Visibility{Lane: s, Version: s, Stage: "H4", Category: s, OnError: s},
			Fixtures: []Fixture{
				{VisibilityFixture: result.VisibilityFixture{Fixture: s, State: "captured", Shape: s}, RecordAt: link, TrafficAt: link},
				{VisibilityFixture: result.VisibilityFixture{Fixture: s, State: "captured", Shape: s}, Error: true, RecordAt: link, TrafficAt: link},
			},
		}
	}
	tests := []struct {
		name, s string
	}{
		{"pipe", "a|b"},
		{"newline", "a\nb | c"},
		{"html", "<script>alert(1)</script>"},
		{"link", "[x](javascript:alert(1))"},
		{"code and emphasis", "`*_~$\\"},
		{"carriage return", "a\r\n|---|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Render([]Client{client(tt.s)})
			lines := strings.Split(out, "\n")
			want := cells(lines[0])
			if cells(lines[2]) != want {
				t.Errorf("the row has %d cells, the header %d:\n%s", cells(lines[2]), want, lines[2])
			}
			if strings.HasPrefix(lines[3], "|") {
				t.Errorf("the row spills onto the next line: %q", lines[3])
			}
			// an escaped bracket (\]) ends no link text
			if strings.Contains(out, "<script") || strings.Contains(strings.ReplaceAll(out, `\]`, ""), "](javascript:") {
				t.Errorf("raw markup reached the table:\n%s", out)
			}
		})
	}
}

// cells counts the cells of a Markdown table row: the '|' not escaped by a backslash, less one.
func cells(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n - 1
}

func TestTransport(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"streamable http", http.Header{"Accept": {"application/json, text/event-stream"}, "User-Agent": {"node"}}, "Streamable HTTP"},
		{"accept split over values", http.Header{"Accept": {"application/json", "text/event-stream"}}, "Streamable HTTP"},
		// the headers of probe's relay as a stdio run of the strands-agents recipe recorded them
		{"probe's stdio relay", http.Header{"Accept-Encoding": {"gzip"}, "Content-Type": {"application/json"}, "User-Agent": {"Go-http-client/1.1"}}, "stdio"},
		{"a go client that accepts json only", http.Header{"Accept": {"application/json"}, "User-Agent": {"Go-http-client/1.1"}}, "unknown"},
		{"nothing", nil, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := transport(probe.Exchange{Endpoint: "mcp", Method: "POST", RequestHeaders: tt.header}); got != tt.want {
				t.Errorf("transport = %q, want %q", got, tt.want)
			}
		})
	}
}
