package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestCaptureDirect: capture direct writes the control lane's records for a layer of a draft
// revision whose results hold no top-level content (draftLayer), and check judges them with the
// draft's own schema as the carrier schema: the control passes. A carrier that is not a source of
// the fixture's revision is refused naming that schema; --output is never a source of the run.
func TestCaptureDirect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	obs := filepath.Join(dir, "mine", "observations")
	records := filepath.Join(obs, "direct", "v1", "default.jsonl")
	layer := []string{"--schemas", draftLayer + "/schemas", "--contracts", draftLayer + "/contracts", "--fixtures", draftLayer + "/fixtures"}
	code, stdout, stderr := cli(t, append([]string{"capture", "direct", "--output", records}, layer...)...)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "capture direct: 48 records (4 fixtures × 4 stages × 3 repetitions) of lane direct v1 default written to "+records) {
		t.Fatalf("capture direct: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	source, err := os.ReadFile(draftLayer + "/fixtures/sources/drafts/D03.json")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, source); err != nil {
		t.Fatal(err)
	}
	if want := `{"fixture":"D03","lane":"direct","laneVersion":"v1","configuration":"default","stage":"D1","repetition":1,"state":"captured","carrier":` + compact.String() + `,`; !strings.Contains(string(data), want) {
		t.Errorf("no D03 record at D1 carrying the source %s", compact.String())
	}
	check := append([]string{"check", "--observations", obs, "--lane", "direct", "--suite", "drafts"}, layer...)
	code, stdout, stderr = cli(t, check...)
	if code != 0 || !strings.Contains(stdout, "gate: profile strict satisfied") {
		t.Fatalf("check of the draft's control records: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}

	// Today's shape is no source of the draft: the carrier is held to the draft's schema, named.
	first, _, _ := strings.Cut(string(data), "\n")
	i, j := strings.Index(first, `"carrier":`), strings.Index(first, `,"sourceSha256"`)
	if i < 0 || j < i {
		t.Fatalf("the first record is not written as the test expects: %s", first)
	}
	bad := filepath.Join(dir, "bad", "direct.jsonl")
	testkit.WriteFile(t, bad, first[:i]+`"carrier":{"content":[{"type":"text","text":"Crate 7 of order B-204 is on the dock."}]}`+first[j:]+"\n")
	code, _, stderr = cli(t, append([]string{"check", "--observations", filepath.Dir(bad), "--lane", "direct", "--suite", "drafts"}, layer...)...)
	const want = "/bad/direct.jsonl:1: /carrier: missing property 'outputs' (the carrier is the source read back: held to " + draftLayer + "/schemas/mcp/DRAFT-2026-12-01/schema.json#/$defs/CallToolResult, the schema of revision DRAFT-2026-12-01, the fixture's)"
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("a today's-shape carrier of a draft fixture: exit %d, stderr %s, want exit 2 and %q", code, stderr, want)
	}

	code, _, stderr = cli(t, append([]string{"capture", "direct", "--output", draftLayer + "/fixtures/sources/drafts/D01.json"}, layer...)...)
	if code != 2 || !strings.Contains(stderr, "--output") {
		t.Errorf("--output over a source: exit %d, stderr %s, want exit 2", code, stderr)
	}
}
