package capture

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestDirectBuiltin: the control lane's records Direct writes for the built-in
// paper suite are, byte for byte, those examples/capture/direct wrote (the checked-in
// fixtures/observations/direct/v1/default.jsonl, its paper lines).
func TestDirectBuiltin(t *testing.T) {
	data, err := os.ReadFile("../../fixtures/observations/direct/v1/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(l, `{"fixture":"C`) {
			want.WriteString(l)
		}
	}
	if want.Len() == 0 {
		t.Fatal("the checked-in records hold no paper fixture")
	}
	var got bytes.Buffer
	c, err := Direct(context.Background(), inputs.Options{Scope: result.Scope{Suites: []string{"paper"}}}, 3, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("Direct differs from the checked-in records of the paper suite:\ngot  %.400s\nwant %.400s", got.String(), want.String())
	}
	if c.Records != 18*4*3 || len(c.Fixtures) != 18 || strings.Join(c.Stages, ",") != "D1,A2,M3,H4" || c.Version != "v1" {
		t.Errorf("Capture = %+v, want 18 fixtures at D1, A2, M3, H4, 3 repetitions of direct v1", c)
	}
}

// TestDirectSelects: the sources recorded are the --fixtures layers' (not the built-in
// ones), narrowed by suite and fixture; a bad request is an input error and writes nothing.
func TestDirectSelects(t *testing.T) {
	layer := t.TempDir()
	src := filepath.Join(layer, "sources", "mine")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for id, body := range map[string]string{
		"M1": `{"content": [{"type": "text", "text": "one"}]}`,
		"M2": "{\n  \"content\": [{\"type\": \"text\", \"text\": \"two\"}],\n  \"isError\": false\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(src, id+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := t.TempDir()
	testkit.WriteFile(t, filepath.Join(bad, "sources", "mine", "B1.json"), `{"content": "not a list"}`)
	for _, tc := range []struct {
		name     string
		opts     inputs.Options
		reps     int
		fixtures string
		wantErr  string
	}{
		{name: "a layer's sources only", opts: inputs.Options{Fixtures: []string{layer}}, reps: 2, fixtures: "M1,M2"},
		{name: "narrowed to a fixture", opts: inputs.Options{Fixtures: []string{layer}, Scope: result.Scope{Fixtures: []string{"M2"}}}, reps: 1, fixtures: "M2"},
		{name: "a built-in suite", opts: inputs.Options{Scope: result.Scope{Suites: []string{"visibility"}}}, reps: 1, fixtures: "V01,V02,V03,V04"},
		{name: "nothing selected", opts: inputs.Options{Fixtures: []string{layer}, Scope: result.Scope{Suites: []string{"paper"}}}, reps: 1,
			wantErr: "capture direct: no source to record: the fixture layers' sources ([" + filepath.ToSlash(layer) + "/sources]) hold none within --suite and --fixture"},
		{name: "no repetition", opts: inputs.Options{Fixtures: []string{layer}}, reps: 0, wantErr: "--repetitions 0: want at least 1"},
		{name: "an invalid source", opts: inputs.Options{Fixtures: []string{bad}}, reps: 1, wantErr: "B1.json: /content: got string, want array"},
		{name: "an unknown revision", opts: inputs.Options{Fixtures: []string{layer}, Revision: "DRAFT-none"}, reps: 1, wantErr: `--revision: unknown MCP revision "DRAFT-none"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			c, err := Direct(context.Background(), tc.opts, tc.reps, &out)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || result.ExitCode(err) != result.ExitInputError || out.Len() != 0 {
					t.Fatalf("Direct: %v (exit %d, %d bytes written), want an input error containing %q and nothing written", err, result.ExitCode(err), out.Len(), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(c.Fixtures, ","); got != tc.fixtures {
				t.Errorf("fixtures %s, want %s", got, tc.fixtures)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != c.Records || c.Records != len(c.Fixtures)*4*tc.reps {
				t.Errorf("%d lines, %d records, want %d", len(lines), c.Records, len(c.Fixtures)*4*tc.reps)
			}
			if tc.fixtures == "M1,M2" && !strings.Contains(out.String(), `"carrier":{"content":[{"type":"text","text":"two"}],"isError":false}`) {
				t.Errorf("M2's carrier is not its source compacted:\n%s", out.String())
			}
		})
	}
}
