package contract

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/layer"
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
			want:   []string{"mine/u.cue:3:1: definition #Lane: declared by an earlier layer at contracts/model.cue:198:1"},
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
			want:   []string{"mine/u.cue:3:18: the stages of every lane (a pattern constraint): declared by an earlier layer at contracts/"},
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
