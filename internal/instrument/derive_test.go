package instrument

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// TestDeriveFixtures: a source no catalogue entry names gets its entry from what it holds — the
// suite from its directory, the family by the documented order, the tasks the built-in tasks'
// appliesTo select, the whole structured value and each member as decoder targets, the run's
// revision — and the built-in catalogue is untouched.
func TestDeriveFixtures(t *testing.T) {
	tests := []struct {
		name, dir, revision, id string
		family                  string
		holds, tasks, targets   []string
	}{
		{name: "structured", dir: "uncatalogued", id: "U1", family: "structured",
			holds: []string{"structured", "content"}, tasks: []string{"T1", "T2"}, targets: []string{"", "/orderId", "/total"}},
		{name: "an error flag", dir: "uncatalogued", id: "U2", family: "error",
			holds: []string{"error", "content"}, tasks: []string{"T1", "T3"}, targets: []string{}},
		{name: "rich blocks", dir: "uncatalogued", id: "U3", family: "rich",
			holds: []string{"rich", "content"}, tasks: []string{"T1", "T4"}, targets: []string{}},
		{name: "result _meta", dir: "uncatalogued", id: "U4", family: "meta",
			holds: []string{"meta", "content"}, tasks: []string{"T1", "T5"}, targets: []string{}},
		{name: "plain text", dir: "uncatalogued", id: "U5", family: "content",
			holds: []string{"content"}, tasks: []string{"T1"}, targets: []string{}},
		{name: "a JSON-RPC error response", dir: "uncatalogued", id: "U6", family: "error-response",
			holds: []string{"error"}, tasks: []string{"T3"}, targets: []string{}},
		{name: "2026-07-28: null structuredContent and isError false", dir: "uncatalogued-2026", revision: "2026-07-28", id: "N1",
			family: "structured", holds: []string{"structured", "error", "content"}, tasks: []string{"T1", "T2", "T3"}, targets: []string{}},
		{name: "2026-07-28: an array structuredContent", dir: "uncatalogued-2026", revision: "2026-07-28", id: "N2",
			family: "structured", holds: []string{"structured", "content"}, tasks: []string{"T1", "T2"}, targets: []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Load(context.Background(), inputs.Options{Fixtures: []string{filepath.Join("testdata", tc.dir)}, Revision: tc.revision})
			if err != nil {
				t.Fatal(err)
			}
			f, ok := in.Model.Fixtures[tc.id]
			if !ok {
				t.Fatalf("no entry for %s", tc.id)
			}
			want := tc.revision
			if want == "" {
				want = "2025-11-25"
			}
			if !f.Derived || f.Family != tc.family || f.Revision != want || !strings.HasSuffix(f.Pos, tc.id+".json") {
				t.Errorf("entry %+v: want derived, family %s, revision %s, from its file", f, tc.family, want)
			}
			for what, pair := range map[string][2][]string{"holds": {f.Holds, tc.holds}, "tasks": {f.Tasks, tc.tasks}, "targets": {f.Targets, tc.targets}} {
				if !reflect.DeepEqual(pair[0], pair[1]) {
					t.Errorf("%s %q, want %q", what, pair[0], pair[1])
				}
			}
			if in.Sources[tc.id] == nil || in.Sources[tc.id].File != f.Pos {
				t.Errorf("the source in use is not the file the entry was derived from")
			}
			if c := in.Model.Fixtures["C01"]; c.Derived || !reflect.DeepEqual(c.Tasks, []string{"T1", "T2"}) {
				t.Errorf("the catalogued C01 changed: %+v", c)
			}
		})
	}
}

// TestDeriveFixturesRefuses: what cannot be given an entry is an input error naming the file.
func TestDeriveFixturesRefuses(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // below the layer
		rev   string
		want  string
	}{
		{name: "a name that is no fixture id", files: map[string]string{"sources/mine/a b.json": `{"content":[]}`}, want: `a b.json: "a b" is not a fixture id`},
		{name: "a directory that is no suite name", files: map[string]string{"sources/Mine/U1.json": `{"content":[]}`}, want: `"Mine" is not a suite name`},
		{name: "a catalogued id in another suite", files: map[string]string{"sources/mine/C01.json": `{"content":[]}`}, want: "fixture C01 is catalogued in suite paper"},
		{name: "invalid against the revision", files: map[string]string{"sources/mine/U1.json": `{"content":[],"structuredContent":null}`},
			want: "fixture U1 (no catalogue entry): "},
		{name: "not JSON", files: map[string]string{"sources/mine/U1.json": `{"content":[}`}, want: "U1.json:1:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, data := range tc.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(context.Background(), inputs.Options{Fixtures: []string{dir}, Revision: tc.rev})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestSourceFileLimit holds the limit a source file is read under (layer.Dir.ReadFile's default,
// safeio.MaxFileBytes) to the strict decoding's (strictjson.DefaultLimits.MaxBytes), as the
// reads of the fixtures' sources ask: a source is refused at one size whoever refuses it.
func TestSourceFileLimit(t *testing.T) {
	if safeio.MaxFileBytes != strictjson.DefaultLimits.MaxBytes {
		t.Errorf("a source file is read under %d bytes, decoded under %d", safeio.MaxFileBytes, strictjson.DefaultLimits.MaxBytes)
	}
}
