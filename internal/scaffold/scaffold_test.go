package scaffold

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/layer"
)

// TestProfileName holds the profile init names after the layer directory.
func TestProfileName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dir, task, want string
	}{
		{name: "plain", dir: "my-layer", task: "T6", want: "my-layer"},
		{name: "nested", dir: "layers/acme", task: "T6", want: "acme"},
		{name: "trailing slash", dir: "acme/", task: "T6", want: "acme"},
		{name: "upper case and space", dir: "./layers/My Layer", task: "T6", want: "my-layer"},
		{name: "dot first", dir: ".hidden", task: "T6", want: "hidden"},
		{name: "punctuation runs", dir: "a$(rm -rf)b", task: "T6", want: "a-rm-rf-b"},
		{name: "non-ASCII", dir: "café", task: "T6", want: "caf"},
		{name: "nothing left", dir: "___", task: "LINKS", want: "links-links"},
		{name: "built-in name", dir: "strict", task: "T6", want: "links-t6"},
		{name: "current directory", dir: ".", task: "T6", want: "links-t6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ProfileName(tc.dir, tc.task); got != tc.want {
				t.Errorf("ProfileName(%q, %q) = %q, want %q", tc.dir, tc.task, got, tc.want)
			}
		})
	}
}

// TestBuiltinProfiles holds BuiltinProfiles to the built-in contract model's profiles.
func TestBuiltinProfiles(t *testing.T) {
	t.Parallel()
	m, err := contract.Load([]layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range m.Profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	if !slices.Equal(names, BuiltinProfiles) {
		t.Errorf("the built-in profiles are %q, BuiltinProfiles %q", names, BuiltinProfiles)
	}
}

// TestInitFiles holds what init writes: the profile named after the layer in the CUE and in
// the commands it prints, a README heading that shows the directory as it is, and every file
// ending in exactly one newline.
func TestInitFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dir, profile, wantProfile, heading string
	}{
		{name: "named after the layer", dir: "my-layer", wantProfile: "my-layer", heading: "# my-layer: a contractcheck layer"},
		{name: "named by the option", dir: "acme.d", profile: "acme", wantProfile: "acme", heading: "# acme.d: a contractcheck layer"},
		{name: "markdown in the name", dir: "a_b*c", wantProfile: "a_b-c", heading: `# a\_b\*c: a contractcheck layer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			top := t.TempDir()
			dir := filepath.Join(top, tc.dir)
			if _, err := Init(InitOptions{Dir: dir, Profile: tc.profile}); err != nil {
				t.Fatal(err)
			}
			read := func(name string) string {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				s := string(data)
				if !strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\n\n") {
					t.Errorf("%s does not end in exactly one newline: %q", name, s[max(0, len(s)-20):])
				}
				return s
			}
			cue := read("t6.cue")
			if !strings.Contains(cue, "profiles: \""+tc.wantProfile+"\": {") {
				t.Errorf("t6.cue does not define profile %q:\n%s", tc.wantProfile, cue)
			}
			readme := read("README.md")
			if first, _, _ := strings.Cut(readme, "\n"); !strings.HasSuffix(first, tc.heading[2:]) || !strings.HasPrefix(first, "# ") {
				t.Errorf("README.md starts %q, want a heading ending %q", first, tc.heading[2:])
			}
			for _, f := range []string{cue, readme} {
				if !strings.Contains(f, "--profile "+tc.wantProfile+"\n") {
					t.Errorf("no command names --profile %s:\n%s", tc.wantProfile, f)
				}
				if strings.Contains(f, "links-t6") {
					t.Errorf("the layer still names profile links-t6:\n%s", f)
				}
			}
			read("t6.rego")
			read("t6_test.rego")
		})
	}
}

// TestInitLanes: the lanes given beside the control lane reach the profile's requirement, once
// each, and the README says which layer declares them; without any, the control lane alone.
func TestInitLanes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		lanes     []string
		want      string
		inReadme  string
		notInCode string
	}{
		{name: "none", want: `lanes: ["direct"]`, notInCode: "declared by another layer"},
		{name: "an agent's lane", lanes: []string{"acme-agent"}, want: `lanes: ["direct", "acme-agent"]`, inReadme: "The profile also gates acme-agent, which another layer declares"},
		{name: "given twice, and the control lane", lanes: []string{"a", "direct", "a", "b"}, want: `lanes: ["direct", "a", "b"]`, inReadme: "The profile also gates a, b,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "acme")
			if _, err := Init(InitOptions{Dir: dir, Lanes: tc.lanes}); err != nil {
				t.Fatal(err)
			}
			cue, _ := os.ReadFile(filepath.Join(dir, "t6.cue"))
			readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
			if !strings.Contains(string(cue), tc.want) {
				t.Errorf("t6.cue lacks %s:\n%s", tc.want, cue)
			}
			if tc.inReadme != "" && !strings.Contains(string(readme), tc.inReadme) {
				t.Errorf("README.md lacks %q:\n%s", tc.inReadme, readme)
			}
			if tc.notInCode != "" && strings.Contains(string(cue), tc.notInCode) {
				t.Errorf("t6.cue says %q with no lane given", tc.notInCode)
			}
		})
	}
	if _, err := Init(InitOptions{Dir: filepath.Join(t.TempDir(), "x"), Lanes: []string{"Bad Lane"}}); err == nil || !strings.Contains(err.Error(), `--lane "Bad Lane"`) {
		t.Errorf("a lane name the model refuses: %v", err)
	}
}

// TestInitRefusesProfile holds init to a profile name the contract model takes and no built-in
// profile has.
func TestInitRefusesProfile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, profile, want string }{
		{name: "upper case", profile: "Acme", want: "a profile name is"},
		{name: "built-in", profile: "strict", want: "a built-in profile has this name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "l")
			_, err := Init(InitOptions{Dir: dir, Profile: tc.profile})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Init with --profile %q: %v, want an error saying %q", tc.profile, err, tc.want)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("a refused init wrote %s", dir)
			}
		})
	}
}
