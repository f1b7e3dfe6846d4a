package inputs

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// builtinFS is a built-in file system with fixture observations: two record files, one of them
// below a subdirectory, and a file that is not one.
var builtinFS = fstest.MapFS{
	"fixtures/observations/b.jsonl":      {Data: []byte("{}\n")},
	"fixtures/observations/a/c.jsonl":    {Data: []byte("{}\n{}\n")},
	"fixtures/observations/notes.json":   {Data: []byte("{}")},
	"fixtures/sources/s/F1.json":         {Data: []byte("{}")},
	"schemas/carriers/x.schema.json":     {Data: []byte("{}")},
	"contracts/model.cue":                {Data: []byte("package x")},
	"policies/contractcheck/t/t.rego":    {Data: []byte("package t")},
	"fixtures/observations/a/z.jsonl.gz": {Data: []byte("")},
}

// TestRecordFiles lists the record files a run reads, in the order it reads them: the .jsonl
// files below each observation directory sorted, standard input where "-" stands; with no
// --observations, the observations/ directory of each fixture layer that has one.
func TestRecordFiles(t *testing.T) {
	user := t.TempDir()
	testkit.WriteTree(t, user, map[string]string{"z.jsonl": "{}\n", "m/y.jsonl": "{}\n", "m/skip.txt": "{}\n"})
	userName := filepath.ToSlash(user)
	noObs := t.TempDir()
	tests := []struct {
		name     string
		opts     Options
		want     []string // display names
		describe string
	}{
		{name: "the built-in fixture layer's", opts: Options{Builtin: builtinFS},
			want:     []string{"builtin:fixtures/observations/a/c.jsonl", "builtin:fixtures/observations/b.jsonl"},
			describe: "builtin:fixtures/observations"},
		{name: "a fixture layer without observations adds none", opts: Options{Builtin: builtinFS, Fixtures: []string{noObs}},
			want:     []string{"builtin:fixtures/observations/a/c.jsonl", "builtin:fixtures/observations/b.jsonl"},
			describe: "builtin:fixtures/observations"},
		{name: "--observations replaces the fixture layers'", opts: Options{Builtin: builtinFS, Observations: []string{user}},
			want: []string{userName + "/m/y.jsonl", userName + "/z.jsonl"}, describe: userName},
		{name: "standard input where - stands", opts: Options{Builtin: builtinFS, Observations: []string{StdinArg, user}, Stdin: NewStdin(strings.NewReader("{}\n"))},
			want: []string{StdinName, userName + "/m/y.jsonl", userName + "/z.jsonl"}, describe: StdinName + ", " + userName},
		{name: "none", opts: Options{NoBuiltin: true, Builtin: builtinFS},
			want: nil, describe: "any observation directory (none selected)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := tc.opts.RecordFiles()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Display())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("record files %q, want %q", got, tc.want)
			}
			if d := tc.opts.DescribeObservations(); d != tc.describe {
				t.Errorf("described as %q, want %q", d, tc.describe)
			}
		})
	}
}

// TestObservationDirsRefuses: standard input named twice or where the command has none, and a
// directory that is not there, are input errors naming the flag.
func TestObservationDirsRefuses(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{name: "standard input twice", opts: Options{Observations: []string{StdinArg, StdinArg}, Stdin: NewStdin(strings.NewReader(""))},
			want: "--observations - is given twice: standard input is read once"},
		{name: "no standard input", opts: Options{Observations: []string{StdinArg}},
			want: "--observations -: standard input is not available to this command"},
		{name: "no such directory", opts: Options{Observations: []string{missing}},
			want: "--observations " + filepath.ToSlash(missing) + ": no such directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.opts.ObservationDirs()
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if _, err := tc.opts.RecordFiles(); err == nil || err.Error() != tc.want {
				t.Errorf("RecordFiles: error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := (Options{Observations: []string{StdinArg}}).ObservationDirs(); result.ExitCode(err) != result.ExitInputError {
		t.Errorf("no standard input: exit %d, want %d (an input error)", result.ExitCode(err), result.ExitInputError)
	}
}

// countingReader counts the reads that reached it.
type countingReader struct {
	r     *strings.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// TestStdinReadOnce: standard input is read the first time it is needed and its bytes kept, for
// the lock and the check alike; as a record file it has no size known ahead.
func TestStdinReadOnce(t *testing.T) {
	r := &countingReader{r: strings.NewReader("{\"a\":1}\n")}
	in := NewStdin(r)
	opts := Options{Observations: []string{StdinArg}, Stdin: in}
	files, err := opts.RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	reads := r.reads
	again, err := in.Bytes()
	if err != nil || string(again) != "{\"a\":1}\n" || r.reads != reads {
		t.Errorf("second read %q, %v, %d reads (%d before)", again, err, r.reads, reads)
	}
	if len(files) != 1 || files[0].Size() != -1 {
		t.Fatalf("files %+v, want standard input of unknown size", files)
	}
	data, err := fs.ReadFile(files[0].Dir.FS, files[0].Path)
	if err != nil || string(data) != "{\"a\":1}\n" {
		t.Errorf("standard input's file %q, %v", data, err)
	}
	if _, err := files[0].Dir.FS.Open("other"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("another name in standard input's directory: %v, want not found", err)
	}
}

// TestLayerStacks: each kind of input is the built-in layer, unless left out, then the user's in the
// order given; the schema layers are the user's only (the built-in schemas are always read).
func TestLayerStacks(t *testing.T) {
	o := Options{Builtin: builtinFS, Contracts: []string{"c1", "c2"}, Policies: []string{"p"}, Schemas: []string{"s"}, Fixtures: []string{"f"}}
	names := func(ds []Dir) string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Display)
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		name string
		got  []Dir
		want string
	}{
		{name: "contracts", got: o.ContractLayers(), want: "builtin:contracts c1 c2"},
		{name: "policies", got: o.PolicyLayers(), want: "builtin:policies p"},
		{name: "schemas", got: o.SchemaLayers(), want: "s"},
		{name: "fixtures", got: o.FixtureLayers(), want: "builtin:fixtures f"},
		{name: "no builtin", got: Options{NoBuiltin: true, Contracts: []string{"c1"}}.ContractLayers(), want: "c1"},
		{name: "everything read", got: o.Inputs(), want: "builtin:contracts c1 c2 builtin:policies p s builtin:fixtures f builtin:fixtures/observations"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(tc.got); got != tc.want {
				t.Errorf("layers %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCarrierOverlay: a carrier schema is served from the one layer that defines it, and one
// defined by two layers (the built-in one and a user's, or two users') is an error naming both.
func TestCarrierOverlay(t *testing.T) {
	user := func(files ...string) Dir {
		m := fstest.MapFS{}
		for _, f := range files {
			m[f] = &fstest.MapFile{Data: []byte("{}")}
		}
		return Dir{FS: m, Root: ".", Display: "u" + strings.Join(files, "+")}
	}
	base := fstest.MapFS{"carriers/x.schema.json": {Data: []byte("{}")}} // the built-in schemas directory
	tests := []struct {
		name    string
		overlay carrierOverlay
		open    string
		wantErr string
	}{
		{name: "built in", overlay: carrierOverlay{base: base, builtin: true}, open: "carriers/x.schema.json"},
		{name: "built in, left out", overlay: carrierOverlay{base: base}, open: "carriers/x.schema.json", wantErr: "file does not exist"},
		{name: "a user's", overlay: carrierOverlay{base: base, builtin: true, users: []Dir{user("carriers/y.schema.json")}}, open: "carriers/y.schema.json"},
		{name: "built in and a user's", overlay: carrierOverlay{base: base, builtin: true, users: []Dir{user("carriers/x.schema.json")}}, open: "carriers/x.schema.json",
			wantErr: "defined by more than one layer: builtin:schemas/carriers/x.schema.json, ucarriers/x.schema.json/carriers/x.schema.json"},
		{name: "two users'", overlay: carrierOverlay{base: base, users: []Dir{user("carriers/y.schema.json"), user("carriers/y.schema.json", "z")}}, open: "carriers/y.schema.json",
			wantErr: "defined by more than one layer: ucarriers/y.schema.json/carriers/y.schema.json, ucarriers/y.schema.json+z/carriers/y.schema.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.overlay.Open(tc.open)
			if !testkit.ErrCase(t, err, tc.wantErr) {
				f.Close()
			}
		})
	}
}
