package visibility_test

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// layer writes files (path → content) under a new directory and returns it.
func layer(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteTree(t, dir, files)
	return dir
}

// group finds one group of a readout.
func group(vs []result.Visibility, lane, version, configuration, stage string) (result.Visibility, bool) {
	for _, v := range vs {
		if v.Lane == lane && v.Version == version && v.Configuration == configuration && v.Stage == stage {
			return v, true
		}
	}
	return result.Visibility{}, false
}

// A user's contracts layer names a policy of their own (and their own fixtures): the readout
// follows it, the built-in policy and fixtures untouched.
func TestLayerReplacesPolicy(t *testing.T) {
	policies := layer(t, map[string]string{"acme/visibility.rego": `package acme.visibility

# Reads only whether the carrier holds any text at all.
channels := {"content": "texted"} if {
	some b in input.observed.content.content
	b.kind == "text"
} else := {"content": "silent"}

category := {"category": "talks", "shapes": {id: f.channels.content | some id, f in input.fixtures}} if {
	every _, f in input.fixtures {
		f.channels.content == "texted"
	}
} else := {"category": "sometimes-silent", "shapes": {id: f.channels.content | some id, f in input.fixtures}}
`})
	tests := []struct {
		name      string
		contracts string
		check     func(t *testing.T, vs []result.Visibility)
	}{
		{
			name:      "own policy",
			contracts: "package contracts\n\nvisibility: policy: \"acme.visibility\"\n",
			check: func(t *testing.T, vs []result.Visibility) {
				// adk-js hands V02's empty content list on as it is: no text at all.
				v, ok := group(vs, "adk-js", "2.0.0", "default", "H4")
				if !ok || v.Category != "sometimes-silent" || v.Fixtures[1].Shape != "silent" || v.Fixtures[0].Channels["content"] != "texted" {
					t.Errorf("adk-js H4: %+v", v)
				}
				for _, v := range vs {
					if v.Category != "talks" && v.Category != "sometimes-silent" {
						t.Errorf("%s %s %s %s: category %s from the built-in policy", v.Lane, v.Version, v.Configuration, v.Stage, v.Category)
					}
				}
			},
		},
		{
			name:      "own fixtures, built-in policy",
			contracts: "package contracts\n\nvisibility: fixtures: fixtures: [\"C04\", \"X09\"]\n",
			check: func(t *testing.T, vs []result.Visibility) {
				v, ok := group(vs, "openai-agents", "0.22.0", "use-structured-content", "H4")
				if !ok || v.Category != "structured-first" || len(v.Fixtures) != 2 || v.Fixtures[0].Fixture != "C04" {
					t.Errorf("openai-agents use-structured-content H4 on C04, X09: %+v", v)
				}
			},
		},
		{
			name:      "a profile adds a stage",
			contracts: "package contracts\n\nprofiles: \"model-reads-a2\": {doc: \"A2 is what our model reads.\", nullPolicy: \"strict\", require: [], visibility: stages: [\"A2\"]}\n",
			check: func(t *testing.T, vs []result.Visibility) {
				if _, ok := group(vs, "agent-framework", "1.13.0", "default", "A2"); !ok {
					t.Errorf("no A2 group: %+v", vs)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := inputs.Options{Contracts: []string{layer(t, map[string]string{"visibility.cue": tt.contracts})}, Policies: []string{policies}}
			if strings.Contains(tt.contracts, "profiles:") {
				o.Profile = "model-reads-a2"
			}
			r, err := check.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if r.VisibilityGroups() == 0 {
				t.Fatal("no visibility readout")
			}
			tt.check(t, r.VisibilityReadout())
		})
	}
}

// A policy that breaks the interface, or a package that is not there, is an error that names the
// policy: an instrument failure (exit 3) for what it returned, an input error (exit 2) for what
// is missing. Nothing is turned into a category. Every case names the one package, acme.vis, so
// that its contracts layer is the same bytes in each case's directory: the model cache (by
// content) evaluates the CUE once for the seven cases, not once a case.
func TestPolicyErrors(t *testing.T) {
	const contract = "package contracts\n\nvisibility: policy: \"acme.vis\"\n"
	tests := []struct {
		name string
		rego string
		want string
		code int
	}{
		{
			name: "missing package",
			want: "visibility policy (contracts: visibility.policy): policy: package acme.vis not found",
			code: 2,
		},
		{
			name: "no category rule",
			rego: "package acme.vis\n\nchannels := {\"content\": \"x\"}\n",
			want: "defines no category rule",
			code: 2,
		},
		{
			name: "channel not a word",
			rego: "package acme.vis\n\nchannels := {\"content\": \"::error::pwned\\n\"}\n\ncategory := {\"category\": \"x\"}\n",
			want: `visibility policy acme.vis: channels["content"] is "::error::pwned\n", want a lowercase word`,
			code: 3,
		},
		{
			name: "channel key not a name",
			rego: "package acme.vis\n\nchannels := {\"\\u202e<script>\": \"x\"}\n\ncategory := {\"category\": \"x\"}\n",
			want: `channels has the key "\u202e<script>", want a name`,
			code: 3,
		},
		{
			name: "category not a word",
			rego: "package acme.vis\n\nchannels := {\"content\": \"x\"}\n\ncategory := {\"category\": 7}\n",
			want: "category is 7, want a lowercase word",
			code: 3,
		},
		{
			name: "rendered not a word",
			rego: "package acme.vis\n\nchannels := {\"content\": \"x\"}\n\ncategory := {\"category\": \"neither\", \"rendered\": \"Both!\"}\n",
			want: `rendered is "Both!", want a lowercase word`,
			code: 3,
		},
		{
			name: "disagree names a stranger",
			rego: "package acme.vis\n\nchannels := {\"content\": \"x\"}\n\ncategory := {\"category\": \"mixed\", \"disagree\": [\"C01\"]}\n",
			want: `disagree names "C01", which is not a fixture of the group`,
			code: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := inputs.Options{Contracts: []string{layer(t, map[string]string{"v.cue": contract})}}
			if tt.rego != "" {
				o.Policies = []string{layer(t, map[string]string{"p.rego": tt.rego})}
			}
			_, err := check.Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if c := result.ExitCode(err); c != tt.code {
				t.Errorf("exit code %d, want %d (%v)", c, tt.code, err)
			}
		})
	}
}

// block returns the first fenced block of a language in a markdown file.
func block(t *testing.T, file, lang string) string {
	t.Helper()
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```"+lang+"\n")
	if !ok {
		t.Fatalf("%s has no ```%s block", file, lang)
	}
	body, _, _ := strings.Cut(rest, "```\n")
	return body
}

// The worked example of docs/visibility.md, "Make it yours", runs as written: its contracts layer
// and its policy change agent-framework's H4 readout (a structured value found only on a line of
// a joined text no longer counts) and add A2.
func TestDocExample(t *testing.T) {
	o := inputs.Options{
		Contracts: []string{layer(t, map[string]string{"visibility.cue": block(t, docFile, "cue")})},
		Policies:  []string{layer(t, map[string]string{"acme/visibility.rego": block(t, docFile, "rego")})},
	}
	r, err := check.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if r.VisibilityPolicy != "acme.visibility" {
		t.Errorf("policy %q", r.VisibilityPolicy)
	}
	v, ok := group(r.VisibilityReadout(), "agent-framework", "1.13.0", "default", "H4")
	if !ok || v.Category != "fallback" || v.Fixtures[0].Channels["structured"] != "none" {
		t.Errorf("agent-framework H4 under the example policy: %s %+v", v.Summary(), v)
	}
	if v, ok := group(r.VisibilityReadout(), "agent-framework", "1.13.0", "default", "M3"); !ok || v.Category != "both" {
		t.Errorf("agent-framework M3 under the example policy: %s %+v", v.Summary(), v)
	}
	if _, ok := group(r.VisibilityReadout(), "agent-framework", "1.13.0", "default", "A2"); !ok {
		t.Error("the example's stages add A2, and agent-framework has no A2 group")
	}
}

// TestRunsGiveTheSameReadout: the built-in check's visibility readout (captured records, the
// built-in policy's channels, categories and shapes) is the same when the collector writes its
// entries out as runs every three entries and merges them at the report.
func TestRunsGiveTheSameReadout(t *testing.T) {
	ctx := context.Background()
	whole, err := check.Run(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	restore := visibility.SetEntriesInMemory(3)
	defer restore()
	merged, err := check.Run(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, got := whole.VisibilityReadout(), merged.VisibilityReadout()
	if len(want) == 0 || !slices.ContainsFunc(want, func(v result.Visibility) bool { return v.Category != "unread" }) {
		t.Fatalf("the built-in readout has %d groups, none judged: the test reads nothing it means to", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the readout of the merged runs differs from the whole one's (%d and %d groups)", len(got), len(want))
	}
}
