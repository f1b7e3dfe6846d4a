package validate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestValidateFiles: every file named is validated, a bad one beside the good ones, and the error
// says how many are invalid; standard input is read once; an unknown revision stops everything.
func TestValidateFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"content": [{"type": "text", "text": "hi"}]}`)
	bad := write("bad.json", `{"content": "not a list"}`)
	response := write("response.json", `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "no"}}`)
	for _, tc := range []struct {
		name     string
		files    []string
		stdin    string
		revision string
		want     []string // each result as "file kind", or "file invalid: " and the start of its error
		wantErr  string
	}{
		{name: "a good source", files: []string{good}, want: []string{good + " result"}},
		{name: "an error response", files: []string{response}, want: []string{response + " error response"}},
		{name: "a bad one beside a good one", files: []string{bad, good},
			want: []string{bad + " invalid: " + bad + ": /content: got string, want array", good + " result"}, wantErr: "1 of 2 sources are invalid"},
		{name: "standard input", files: []string{"-"}, stdin: `{"content": []}`, want: []string{"<stdin> result"}},
		{name: "standard input twice", files: []string{"-", "-"}, wantErr: "- is given 2 times: standard input is read once"},
		{name: "an unknown revision", files: []string{good}, revision: "DRAFT-none", wantErr: `--revision: unknown MCP revision "DRAFT-none"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := inputs.Options{Stdin: inputs.NewStdin(strings.NewReader(tc.stdin))}
			got, err := Validate(context.Background(), opts, tc.revision, tc.files)
			if tc.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || result.ExitCode(err) != result.ExitInputError) {
				t.Fatalf("Validate: %v (exit %d), want an input error containing %q", err, result.ExitCode(err), tc.wantErr)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d results %+v, want %d", len(got), got, len(tc.want))
			}
			for i, v := range got {
				line := v.File + " " + v.Kind
				if v.Err != nil {
					line = v.File + " invalid: " + v.Err.Error()
				}
				if !strings.HasPrefix(line, tc.want[i]) {
					t.Errorf("result %d: %s, want %s", i, line, tc.want[i])
				}
			}
		})
	}
}

// TestValidateCatalogue: with no files, every built-in source is validated against its catalogue
// entry's revision, in fixture id order, and all pass; with a revision, only the sources
// catalogued at it.
func TestValidateCatalogue(t *testing.T) {
	all, err := Validate(context.Background(), inputs.Options{}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	at, err := Validate(context.Background(), inputs.Options{}, "2026-07-28", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 20 || len(at) == 0 || len(at) >= len(all) {
		t.Fatalf("%d built-in sources validated, %d at 2026-07-28: want them all, and some of them", len(all), len(at))
	}
	for _, tc := range []struct {
		name     string
		got      []Validated
		revision string
	}{
		{name: "every source", got: all},
		{name: "one revision", got: at, revision: "2026-07-28"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := func(v Validated) string { return strings.TrimSuffix(filepath.Base(v.File), ".json") }
			for i, v := range tc.got {
				if v.Err != nil || v.Kind == "" || v.Revision == "" || tc.revision != "" && v.Revision != tc.revision {
					t.Errorf("result %d: %+v, want a valid source with its kind and revision", i, v)
				}
				if i > 0 && id(tc.got[i-1]) >= id(v) {
					t.Errorf("results out of fixture order: %s before %s", tc.got[i-1].File, v.File)
				}
			}
		})
	}
}
