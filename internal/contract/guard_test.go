package contract

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// builtinLayer is the built-in contracts directory as layer 0.
func builtinLayer() layer.Dir { return layer.FS(os.DirFS("../../contracts"), ".", "contracts") }

// userLayer is a layer of the given files, displayed under name.
func userLayer(name string, files map[string]string) layer.Dir {
	fsys := fstest.MapFS{}
	for n, s := range files {
		fsys[n] = &fstest.MapFile{Data: []byte(s)}
	}
	return layer.FS(fsys, ".", name)
}

// TestLayerGuard: a later layer that redeclares an earlier layer's hidden name, definition or a
// lane's stages is refused, naming both files, unless the declaration is marked @extend().
func TestLayerGuard(t *testing.T) {
	tests := []struct {
		name   string
		layers [][2]string // display name, file text (one user file per layer, u.cue)
		want   []string    // substrings of the error; none: the model loads
	}{
		{
			name:   "hidden name of the built-in layer",
			layers: [][2]string{{"mine", "package contracts\n\n_lcBlocks: text: fields: uri: path: \"/extras/uri\"\n"}},
			want: []string{"mine/u.cue:3:1: hidden name _lcBlocks: declared by an earlier layer at contracts/lane_langchain-mcp-adapters.cue:13:1",
				"mark the declaration @extend()"},
		},
		{
			name:   "hidden name marked @extend()",
			layers: [][2]string{{"mine", "package contracts\n\n_lcBlocks: text: fields: uri: path: \"/extras/uri\" @extend()\n"}},
		},
		{
			name:   "hidden name marked @extend() on a braced declaration",
			layers: [][2]string{{"mine", "package contracts\n\n_lcBlocks: {text: fields: uri: path: \"/extras/uri\"} @extend()\n"}},
		},
		{
			name:   "an attribute deep inside a braced value is no opt-in",
			layers: [][2]string{{"mine", "package contracts\n\n_lcBlocks: {text: fields: uri: path: \"/extras/uri\" @extend()}\n"}},
			want:   []string{"mine/u.cue:3:1: hidden name _lcBlocks"},
		},
		{
			name:   "a hidden name of the user's own",
			layers: [][2]string{{"mine", "package contracts\n\n_myHelper: \"x\"\n"}},
		},
		{
			name:   "definition of the built-in layer",
			layers: [][2]string{{"mine", "package contracts\n\n#Lane: extra?: string\n"}},
			want:   []string{"mine/u.cue:3:1: definition #Lane: declared by an earlier layer at contracts/model.cue:207:1"},
		},
		{
			name:   "a built-in lane's stages",
			layers: [][2]string{{"mine", "package contracts\n\nlanes: \"adk-go\": stages: H4: doc: \"changed\"\n"}},
			want:   []string{"mine/u.cue:3:18: the stages of lane adk-go: declared by an earlier layer at contracts/lane_adk-go.cue:"},
		},
		{
			name:   "a built-in lane's stages in braces",
			layers: [][2]string{{"mine", "package contracts\n\nlanes: {\n\t\"adk-go\": {\n\t\tstages: {}\n\t}\n}\n"}},
			want:   []string{"mine/u.cue:5:3: the stages of lane adk-go"},
		},
		{
			name:   "every lane's stages through a pattern",
			layers: [][2]string{{"mine", "package contracts\n\nlanes: [string]: stages: H4: unbound: x: \"y\"\n"}},
			want:   []string{"mine/u.cue:3:18: the stages of every lane (a pattern or computed lane label): declared by an earlier layer at contracts/"},
		},
		{
			name:   "a built-in revision's source binding",
			layers: [][2]string{{"mine", "package contracts\n\nrevisions: \"2025-11-25\": source: raised: path: \"/error\"\n"}},
			want: []string{`mine/u.cue:3:26: the source binding of revision 2025-11-25: declared by an earlier layer at contracts/source.cue:`,
				"add a revision of your own"},
		},
		{
			name:   "every revision's source binding through a pattern",
			layers: [][2]string{{"mine", "package contracts\n\nrevisions: [string]: source: raised: path: \"/error\"\n"}},
			want:   []string{"mine/u.cue:3:22: the source binding of every revision (a pattern or computed revision label): declared by an earlier layer at contracts/source.cue:"},
		},
		{
			name:   "a built-in revision's source binding marked @extend()",
			layers: [][2]string{{"mine", "package contracts\n\nrevisions: \"2025-11-25\": source: raised: path: \"/error\" @extend()\n"}},
		},
		{
			name:   "a revision of the user's own",
			layers: [][2]string{{"mine", "package contracts\n\nrevisions: \"DRAFT-x\": {doc: \"d\", source: _mcpResult}\n"}},
		},
		{
			name: "a revision an earlier user layer declares",
			layers: [][2]string{{"first", "package contracts\n\nrevisions: \"DRAFT-x\": {doc: \"d\", source: _mcpResult}\n"},
				{"second", "package contracts\n\nrevisions: \"DRAFT-x\": source: raised: path: \"/error\"\n"}},
			want: []string{"second/u.cue:3:23: the source binding of revision DRAFT-x: declared by an earlier layer at first/u.cue:3:12"},
		},
		{
			name:   "a built-in lane's stages marked @extend()",
			layers: [][2]string{{"mine", "package contracts\n\nlanes: \"adk-go\": stages: H4: exposure: \"observed\" @extend()\n"}},
		},
		{
			name:   "a configuration added to a built-in lane",
			layers: [][2]string{{"mine", "package contracts\n\nlanes: \"adk-go\": configurations: \"own-client\": doc: \"Config.Client set\"\n"}},
		},
		{
			name: "a hidden name of an earlier user layer",
			layers: [][2]string{
				{"one", "package contracts\n\n_shared: \"a\"\n"},
				{"two", "package contracts\n\n_shared: string\n"},
			},
			want: []string{"two/u.cue:3:1: hidden name _shared: declared by an earlier layer at one/u.cue:3:1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dirs := []layer.Dir{builtinLayer()}
			for _, l := range tc.layers {
				dirs = append(dirs, userLayer(l[0], map[string]string{"u.cue": l[1]}))
			}
			_, err := Load(dirs)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("want the model to load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestLayerGuardExtendChangesReading: the opt-in does what it says, the built-in lane's binding
// is the unification of both layers.
func TestLayerGuardExtendChangesReading(t *testing.T) {
	m, err := Load([]layer.Dir{builtinLayer(), userLayer("mine", map[string]string{
		"u.cue": "package contracts\n\n_lcBlocks: text: fields: uri: path: \"/extras/uri\" @extend()\n"})})
	if err != nil {
		t.Fatal(err)
	}
	got := m.Lanes["langchain-mcp-adapters"].Stages["A2"].Compartments["content"].Content.Kinds["text"].Fields["uri"].Path
	if got != "/extras/uri" {
		t.Errorf("text uri binding = %q, want /extras/uri", got)
	}
}

// TestLayerGuardHostileFileNames: file names reach the message as they are (the CLI's one error
// sink escapes them for the terminal); the guard never fails on them.
func TestLayerGuardHostileFileNames(t *testing.T) {
	for _, c := range hostile.Cases() {
		if c.Name == "long" || c.Name == "empty" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			srcs := []Source{
				{Name: "base/" + c.S + ".cue", Layer: 0, Data: []byte("package contracts\n\n_x: 1\n")},
				{Name: "user/" + c.S + ".cue", Layer: 1, Data: []byte("package contracts\n\n_x: 1\n")},
			}
			_, err := Evaluate(srcs)
			if err == nil {
				t.Fatal("want an error")
			}
			want := "user/" + c.S + ".cue:3:1: hidden name _x: declared by an earlier layer at base/" + c.S + ".cue:3:1"
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		})
	}
}

// TestExtraVersions: a layer adds versions to a built-in lane through extraVersions (a map, so
// layers add to it together); each lands at its place in version order.
func TestExtraVersions(t *testing.T) {
	tests := []struct {
		name   string
		layers []string // one u.cue per user layer
		want   []string // adk-go's versions
		err    string
	}{
		{
			name:   "an upgrade gate",
			layers: []string{"package contracts\n\nlanes: \"adk-go\": extraVersions: \"v1.8.0\": doc: \"gate the upgrade\"\n"},
			want:   []string{"v1.0.0", "v1.6.1", "v1.7.0", "v1.8.0"},
		},
		{
			name: "versions in order across layers, with an origin of their own",
			layers: []string{
				"package contracts\n\nlanes: \"adk-go\": extraVersions: \"v1.10.0\": doc: \"next\"\n",
				"package contracts\n\nlanes: \"adk-go\": {\n\textraVersions: \"v1.6.5\": doc: \"a patch\"\n\tversionOrigins: \"v1.6.5\": \"reconstructed\"\n}\n",
			},
			want: []string{"v1.0.0", "v1.6.1", "v1.6.5", "v1.7.0", "v1.10.0"},
		},
		{
			name:   "a version the lane declares already",
			layers: []string{"package contracts\n\nlanes: \"adk-go\": extraVersions: \"v1.7.0\": doc: \"again\"\n"},
			err:    `mine0/u.cue:3:33: lanes.adk-go.extraVersions: version "v1.7.0" is already one of the lane's versions`,
		},
		{
			name:   "an extra version needs a doc",
			layers: []string{"package contracts\n\nlanes: \"adk-go\": extraVersions: \"v1.8.0\": {}\n"},
			err:    "field doc is required",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dirs := []layer.Dir{builtinLayer()}
			for i, l := range tc.layers {
				dirs = append(dirs, userLayer("mine"+string(rune('0'+i)), map[string]string{"u.cue": l}))
			}
			srcs, err := ReadLayers(dirs)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Evaluate(srcs)
			if testkit.ErrCase(t, err, tc.err) {
				return
			}
			if got := m.Lanes["adk-go"].Versions; !slices.Equal(got, tc.want) {
				t.Errorf("versions %q, want %q", got, tc.want)
			}
			// The cached model keeps the merged versions, merged once.
			key := Key(srcs)
			data, err := Encode(m, key)
			if err != nil {
				t.Fatal(err)
			}
			c, ok := decode(data, key)
			if !ok {
				t.Fatal("the cached model does not decode")
			}
			if got := c.Lanes["adk-go"].Versions; !slices.Equal(got, tc.want) {
				t.Errorf("cached versions %q, want %q", got, tc.want)
			}
		})
	}
}
