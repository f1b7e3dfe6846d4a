package contract

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/layer"

	"cuelang.org/go/cue/format"
)

func TestLoadBuiltin(t *testing.T) {
	m, err := Load([]layer.Dir{layer.FS(os.DirFS("../../contracts"), ".", "contracts")})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"T1", "T2", "T3", "T4", "T5"} {
		if _, ok := m.Tasks[id]; !ok {
			t.Errorf("task %s missing", id)
		}
	}
	if !m.Lanes["direct"].Control {
		t.Error("direct lane must be the control")
	}
	if _, ok := m.Profiles["strict"]; !ok {
		t.Error("profile strict missing")
	}
	if got := m.Revisions["2025-11-25"].Source.Content.Kinds["resource"].Fields["_meta"].Path; got != "/_meta" {
		t.Errorf("block _meta binding = %q, want /_meta (a hidden CUE field would drop it)", got)
	}
}

// TestBuiltinWholeValueTargets holds the catalogue to issue 29's rule: every built-in fixture whose
// decoder task (T2) reads named structured members also declares the whole structured value ""
// as a target, so that a reader that returns a value where the source had none, or drops the
// whole value, is counted once per readout and can be counted introduced. The reported suite is
// apart: each of its fixtures targets the field its public report names.
func TestBuiltinWholeValueTargets(t *testing.T) {
	m, err := Load([]layer.Dir{layer.FS(os.DirFS("../../contracts"), ".", "contracts")})
	if err != nil {
		t.Fatal(err)
	}
	for id, f := range m.Fixtures {
		if f.Suite == "reported" || !slices.Contains(f.Tasks, "T2") {
			continue
		}
		if !slices.Contains(f.Targets, "") {
			t.Errorf("fixture %s (%s) runs T2 with targets %q but not the whole value \"\"", id, f.Pos, f.Targets)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	base, err := os.ReadFile("../../contracts/model.cue")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			name:  "syntax error names file line and column",
			files: map[string]string{"bad.cue": "package contracts\n\natoms: {\n\tx: doc: \"a\"\n"},
			want:  "contracts/bad.cue:4:14: expected",
		},
		{
			name:  "closed definition rejects an unknown field",
			files: map[string]string{"t.cue": "package contracts\n\natoms: x: {doc: \"a\", optinal: true}\n"},
			want:  "contracts/t.cue:3:",
		},
		{
			name: "task naming an unknown atom",
			files: map[string]string{"t.cue": "package contracts\n\nrevisions: \"2025-11-25\": {doc: \"r\", source: {doc: \"s\", basis: []}}\n" +
				"tasks: T9: {doc: \"d\", role: \"guard\", policy: \"x.y\", compartment: \"content\", atoms: [\"nope\"]}\n"},
			want: `tasks.T9.atoms: unknown atom "nope"`,
		},
		{
			name: "fixture naming an unknown task",
			files: map[string]string{"t.cue": "package contracts\n\nrevisions: \"2025-11-25\": {doc: \"r\", source: {doc: \"s\", basis: []}}\n" +
				"families: f: {doc: \"d\", census: \"primary\"}\n" +
				"fixtures: F1: {suite: \"s\", family: \"f\", revision: \"2025-11-25\", tasks: [\"T404\"], doc: \"d\", targets: []}\n"},
			want: `contracts/t.cue:5:73: fixtures.F1.tasks: unknown task "T404"`,
		},
		{
			name:  "profile naming an unknown task",
			files: map[string]string{"t.cue": "package contracts\n\nprofiles: p: {doc: \"d\", nullPolicy: \"strict\", tasks: [\"T404\"], require: [], fixedBy: []}\n"},
			want:  `contracts/t.cue:3:55: profiles.p.tasks: unknown task "T404"`,
		},
		{
			name: "a selector that does not parse, in a lane binding",
			files: map[string]string{"t.cue": "package contracts\n\nlanes: x: {doc: \"d\", origin: \"captured\", versions: [\"v1\"], configurations: default: doc: \"d\",\n" +
				"\tstages: A2: {exposure: \"observed\", doc: \"d\", carrier: \"carriers/x.schema.json\", compartments: {}, unbound: {}}}\n" +
				"revisions: \"2025-11-25\": {doc: \"r\", source: {doc: \"s\", basis: [], structured: path: #\"/outputs[audience=\"a\u2028\",]/s\"#}}\n"},
			want: `contracts/t.cue:5:79: revisions.2025-11-25.source.structured.path: path "/outputs[audience=\"a\u2028\",]/s": at byte 25: want a member name`,
		},
		{
			name:  "a revision key that is no revision name",
			files: map[string]string{"t.cue": "package contracts\n\nrevisions: \"next\": {doc: \"r\", source: {doc: \"s\", basis: []}}\n"},
			want:  `contracts/t.cue:3:12: revision "next": a revision is a date YYYY-MM-DD, a date with a suffix YYYY-MM-DD-<suffix> or a draft name DRAFT-<name>`,
		},
		{
			name:  "the global source binding of old",
			files: map[string]string{"t.cue": "package contracts\n\nsource: {doc: \"s\", basis: []}\n"},
			want:  `contracts/t.cue:3:1: source: the source binding belongs to a revision: write revisions: "<revision>": source: {…}`,
		},
		{
			name: "a fixture of a revision no layer binds",
			files: map[string]string{"t.cue": "package contracts\n\nfamilies: f: {doc: \"d\", census: \"primary\"}\n" +
				"fixtures: X1: {suite: \"s\", family: \"f\", revision: \"DRAFT-x\", doc: \"d\", targets: []}\n"},
			want: `contracts/t.cue:4:41: fixtures.X1: revision DRAFT-x has no source binding: a layer that adds a revision declares how its result binds (revisions: "DRAFT-x": source: {…}, docs/writing-a-contract.md); the model binds none`,
		},
		{
			name:  "non-concrete value",
			files: map[string]string{"t.cue": "package contracts\n\nrevisions: \"2025-11-25\": {doc: \"r\", source: {doc: string, basis: []}}\n"},
			want:  `revisions."2025-11-25".source: field doc is required (a string)`,
		},
		{
			name:  "a required enumeration no layer sets",
			files: map[string]string{"t.cue": "package contracts\n\nfamilies: f: {doc: \"d\"}\n"},
			want:  `families.f: field census is required (one of "primary" | "apart")`,
		},
		{
			name:  "a required pointer no layer sets",
			files: map[string]string{"t.cue": "package contracts\n\nrevisions: \"2025-11-25\": {doc: \"r\", source: {doc: \"s\", basis: [], structured: {}}}\n"},
			want:  `revisions."2025-11-25".source.structured: field path is required (a JSON pointer: "" or a path from "/")`,
		},
		{
			name:  "a value the enumeration does not hold",
			files: map[string]string{"t.cue": "package contracts\n\nfamilies: f: {doc: \"d\", census: \"primery\"}\n"},
			want:  `contracts/t.cue:3:33: families.f.census: invalid value "primery" (out of bound =~"^(primary|apart)$")`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"model.cue": {Data: base}}
			for n, s := range tc.files {
				fsys[n] = &fstest.MapFile{Data: []byte(s)}
			}
			_, err := Load([]layer.Dir{layer.FS(fsys, ".", "contracts")})
			if err == nil {
				t.Fatal("want an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// TestContractsFormatted keeps the built-in CUE as `cue fmt` writes it: the data is the product.
func TestContractsFormatted(t *testing.T) {
	files, err := filepath.Glob("../../contracts/*.cue")
	if err != nil || len(files) == 0 {
		t.Fatalf("no contracts: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := format.Source(src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if string(got) != string(src) {
			t.Errorf("%s is not cue fmt-formatted", f)
		}
	}
}
