package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// visibilitySample is the sample report with a visibility readout of three rows: one whose
// stages read content-only and both, one mixed at M3 and undetermined at H4, and one read at
// M3 only whose error results show another shape than its category.
func visibilitySample() *result.Report {
	r := sample()
	r.VisibilityPolicy = "contractcheck.visibility"
	notReached := result.VisibilityFixture{Fixture: "V05", State: "not_reached", Record: "obs/lane/1.0/default.jsonl:9"}
	r.Visibility = result.VisibilityList{
		{Lane: "lane", Version: "1.0", Configuration: "default", Stage: "M3", Category: "content-only", Fixtures: []result.VisibilityFixture{
			{Fixture: "V01", State: "captured", Shape: "content", Channels: map[string]string{"structured": "none", "content": "blocks"}, Record: "obs/lane/1.0/default.jsonl:1"},
			notReached}},
		{Lane: "lane", Version: "1.0", Configuration: "default", Stage: "H4", Category: "both", Fixtures: []result.VisibilityFixture{
			{Fixture: "V01", State: "captured", Shape: "both", Channels: map[string]string{"structured": "json-text", "content": "blocks"}, Record: "obs/lane/1.0/default.jsonl:2"},
			notReached}},
		{Lane: "mixer", Version: "0.3", Configuration: "default", Stage: "M3", Category: "mixed", Nearest: "both", Disagree: []string{"V02"}, Fixtures: []result.VisibilityFixture{
			{Fixture: "V01", State: "captured", Shape: "both", Channels: map[string]string{"content": "blocks", "structured": "json-text"}, Record: "obs/mixer/0.3/default.jsonl:1"},
			{Fixture: "V02", State: "captured", Shape: "content", Channels: map[string]string{"content": "blocks", "structured": "none"}, Record: "obs/mixer/0.3/default.jsonl:3"}}},
		{Lane: "mixer", Version: "0.3", Configuration: "default", Stage: "H4", Category: "undetermined", Candidates: []string{"content-only", "fallback"}, Fixtures: []result.VisibilityFixture{
			{Fixture: "V01", State: "unstable", Channels: map[string]string{"content": "blocks"}, Record: "obs/mixer/0.3/default.jsonl:2"}}},
		{Lane: "erring", Version: "2.0", Configuration: "strict", Stage: "M3", Category: "structured-first", OnError: "content", Fixtures: []result.VisibilityFixture{
			{Fixture: "V03", State: "captured", Shape: "structured", Channels: map[string]string{"structured": "slot", "content": "none"}, Record: "obs/erring/2.0/strict.jsonl:1"},
			{Fixture: "V04", State: "captured", Shape: "content", Channels: map[string]string{"isError": "lost", "content": "blocks"}, Record: "obs/erring/2.0/strict.jsonl:2"}}},
	}
	return r
}

// blindSample is visibilitySample with two more groups: one whose records carry nothing of what
// was served (a client that sent its own error on every result) and one read rendered only.
func blindSample() *result.Report {
	r := visibilitySample()
	r.Visibility = append(r.Visibility.(result.VisibilityList),
		result.Visibility{Lane: "blind", Version: "1.0", Configuration: "default", Stage: "H4", Category: "neither", OnError: "rewritten", Fixtures: []result.VisibilityFixture{
			{Fixture: "V01", State: "captured", Shape: "nothing", Channels: map[string]string{"content": "none", "structured": "none"}, Record: "obs/blind/1.0/default.jsonl:1"},
			{Fixture: "V04", State: "captured", Shape: "rewritten", Channels: map[string]string{"content": "rewritten", "structured": "none", "isError": "flag"}, Record: "obs/blind/1.0/default.jsonl:2"}}},
		result.Visibility{Lane: "printer", Version: "0.1", Configuration: "default", Stage: "H4", Category: "neither", Rendered: "both", Fixtures: []result.VisibilityFixture{
			{Fixture: "V03", State: "captured", Shape: "rendered", Channels: map[string]string{"content": "rendered", "structured": "rendered"}, Record: "obs/printer/0.1/default.jsonl:1"}}},
	)
	return r
}

// TestVisibilitySection writes the visibility readout in the text, markdown and HTML formats and
// looks for each row, its categories per stage and its fixtures; a report without a readout
// writes no section. Every output stays in its format's grammar (checkGrammar).
func TestVisibilitySection(t *testing.T) {
	tests := []struct {
		name   string
		format string
		width  int
		r      *result.Report
		// want are whole lines of the output, in this order (not necessarily adjacent).
		want []string
		// absent are substrings the output must not hold.
		absent []string
	}{
		{
			name: "text one line per row", format: "text", width: 120, r: visibilitySample(),
			want: []string{
				"what reaches the model (visibility; docs/visibility.md):",
				"  lane 1.0 default   M3 content-only  H4 both",
				"  mixer 0.3 default  M3 mixed (nearest both; V02 differs)  H4 undetermined (content-only or fallback)",
				"  erring 2.0 strict  M3 structured-first, on error content",
			},
		},
		{
			name: "text stage past the width on a continuation line", format: "text", width: 80, r: visibilitySample(),
			want: []string{
				"  mixer 0.3 default  M3 mixed (nearest both; V02 differs)",
				"                     H4 undetermined (content-only or fallback)",
			},
		},
		{
			name: "markdown table", format: "markdown", r: visibilitySample(),
			want: []string{
				"| lane version configuration | M3 | H4 | fixtures |",
				"|---|---|---|---|",
				`| lane 1.0 default | content-only | both | V01 content, V05 not\_reached |`,
				"| mixer 0.3 default | mixed (nearest both; V02 differs) | undetermined (content-only or fallback) | V01 both, V02 content |",
				"| erring 2.0 strict | structured-first, on error content | – | V03 structured, V04 content |",
			},
		},
		{
			name: "markdown names the policy", format: "markdown", r: visibilitySample(),
			want: []string{"**What reaches the model** (policy `contractcheck.visibility`): for each lane, version and configuration, which of a tool result's channels (content, structuredContent, the isError marker) reach the model at each model-facing stage, as a category; the fixtures are the first stage's, each with what of it reaches the model. docs/visibility.md defines the categories."},
		},
		{
			name: "html section, table and channels", format: "html", r: visibilitySample(),
			want: []string{
				`<nav><a href="#rollup">what each lane loses</a> <a href="#heatmap">heatmap</a> <a href="#divergences">divergences</a> <a href="#boundaries">boundaries</a> <a href="#visibility">what reaches the model</a> <a href="#gate">gate</a> <a href="#upgrades">upgrades</a></nav>`,
				`<section id="visibility">`,
				`<h2>What reaches the model</h2>`,
				`<table class="list"><thead><tr><th>lane version configuration</th><th>M3</th><th>H4</th><th>fixtures</th></tr></thead><tbody>`,
				`<tr><td>lane 1.0 default</td><td title="V01: content blocks, structured none; V05: not_reached">content-only</td><td title="V01: content blocks, structured json-text; V05: not_reached">both</td><td>V01 content, V05 not_reached</td></tr>`,
				`<tr><td>mixer 0.3 default</td><td title="V01: content blocks, structured json-text; V02: content blocks, structured none">mixed (nearest both; V02 differs)</td><td title="V01: content blocks, unstable">undetermined (content-only or fallback)</td><td>V01 both, V02 content</td></tr>`,
				`<tr><td>erring 2.0 strict</td><td title="V03: content none, structured slot; V04: content blocks, isError lost">structured-first, on error content</td><td>–</td><td>V03 structured, V04 content</td></tr>`,
			},
		},
		{
			name: "html names the policy", format: "html", r: visibilitySample(),
			want: []string{`<p class="help">For each lane, version and configuration: which of a tool result's channels (content, structuredContent, the isError marker) reach the model at each model-facing stage, as a category judged by the policy <code>contractcheck.visibility</code>; docs/visibility.md defines the categories. Hover a category for each fixture's channels. The fixtures are the first stage's, each with what of it reaches the model.</p>`},
		},
		{
			name: "text warns of a group that carries nothing served", format: "text", width: 400, r: blindSample(),
			want: []string{
				"  blind 1.0 default    H4 neither, on error rewritten",
				"  printer 0.1 default  H4 neither, rendered both",
				"  warning: blind 1.0 default at H4: no record carries anything of what the MCP server served (every fixture reads nothing, or a text of the agent's own): " +
					"the model never saw a tool result; did the agent reject it (an error of its own sent instead)? Look at the records before trusting a category (docs/visibility.md)",
			},
			absent: []string{"warning: printer", "warning: lane"},
		},
		{
			name: "markdown warns of a group that carries nothing served", format: "markdown", r: blindSample(),
			want: []string{
				"| printer 0.1 default | – | neither, rendered both | V03 rendered |",
				"> **Warning:** blind 1.0 default at H4: no record carries anything of what the MCP server served (every fixture reads nothing, or a text of the agent's own): " +
					"the model never saw a tool result; did the agent reject it (an error of its own sent instead)? Look at the records before trusting a category (docs/visibility.md)",
			},
			absent: []string{"Warning:** printer"},
		},
		{
			name: "html warns of a group that carries nothing served", format: "html", r: blindSample(),
			want: []string{
				`<tr><td>printer 0.1 default</td><td>–</td><td title="V03: content rendered, structured rendered">neither, rendered both</td><td>V03 rendered</td></tr>`,
				`<p class="warn"><strong>Warning:</strong> blind 1.0 default at H4: no record carries anything of what the MCP server served (every fixture reads nothing, or a text of the agent&#39;s own): ` +
					`the model never saw a tool result; did the agent reject it (an error of its own sent instead)? Look at the records before trusting a category (docs/visibility.md)</p>`,
			},
			absent: []string{"Warning:</strong> printer"},
		},
		{name: "text without a readout", format: "text", r: sample(), absent: []string{"what reaches the model"}},
		{name: "markdown without a readout", format: "markdown", r: sample(), absent: []string{"What reaches the model", "| lane version configuration |"}},
		{name: "html without a readout", format: "html", r: sample(), absent: []string{`id="visibility"`, `href="#visibility"`, "What reaches the model"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.format, Options{Style: Style{Width: tc.width}}, tc.r)
			lines := strings.Split(got, "\n")
			at := 0
			for _, w := range tc.want {
				i := slices.Index(lines[at:], w)
				if i < 0 {
					t.Errorf("no line %q after line %d in:\n%s", w, at, section(got))
					continue
				}
				at += i + 1
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("output holds %q", a)
				}
			}
			if bad := checkGrammar(tc.format, got); bad != "" {
				t.Error(bad)
			}
		})
	}
}

// section is the part of a report from its visibility readout on, or all of it when it has none,
// to show in a failure.
func section(out string) string {
	for _, mark := range []string{"what reaches the model", "What reaches the model"} {
		if i := strings.Index(out, mark); i >= 0 {
			return out[i:]
		}
	}
	return out
}

// TestVisibilityHelpers: the table's stage columns follow the pipeline, a fixture reads as its
// shape or, not captured, its state, and its channels in a fixed order.
func TestVisibilityHelpers(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"stages in pipeline order, unknown after by name",
			strings.Join(visibilityStages(result.VisibilityList{{Stage: "Z9"}, {Stage: "H4"}, {Stage: "X1"}, {Stage: "M3"}, {Stage: "H4"}}), " "), "M3 H4 X1 Z9"},
		{"captured fixture as its shape", fixtureShape(result.VisibilityFixture{State: "captured", Shape: "both"}), "both"},
		{"captured fixture without a shape as its state", fixtureShape(result.VisibilityFixture{State: "captured"}), "captured"},
		{"unstable fixture as its state", fixtureShape(result.VisibilityFixture{State: "unstable", Shape: "both"}), "unstable"},
		{"fixtures escaped for the sink", visibilityFixtures([]result.VisibilityFixture{{Fixture: "V_1", State: "not_reached"}}, md), `V\_1 not\_reached`},
		{"channels content, structured, isError, then by name",
			visibilityChannels([]result.VisibilityFixture{{Fixture: "V01", State: "captured", Channels: map[string]string{"meta": "kept", "isError": "flag", "extra": "x", "structured": "slot", "content": "none"}}}),
			"V01: content none, structured slot, isError flag, extra x, meta kept"},
		{"captured without channels reads its state", visibilityChannels([]result.VisibilityFixture{{Fixture: "V01", State: "captured"}}), "V01: captured"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

// TestReachedText: a gate unmet by the profile's visibility.reached lists each group with
// nothing served, its first record and the clause, and counts them on the verdict line; escaped
// for the terminal.
func TestReachedText(t *testing.T) {
	r := blindSample()
	r.Profile = "probe"
	r.Gate = result.Gate{Verdict: result.VerdictUnmet, Violations: []result.Violation{}, Reached: []result.ReachedResult{{
		Name: "profiles.probe.visibility.reached", Stage: "H4", Groups: 2,
		Unreached: []result.UnreachedGroup{{Lane: "blind\x1b[2J", Version: "1.0", Configuration: "default", Records: []string{"obs/blind/1.0/default.jsonl:1"}}}}}}
	text, md := render(t, "text", Options{Style: Style{Width: 200}}, r), render(t, "markdown", Options{}, r)
	want := "- `blind\\u001b[2J` 1.0 default H4: nothing of what was served reached the model (record `obs/blind/1.0/default.jsonl:1`); required by `profiles.probe.visibility.reached` (docs/visibility.md)."
	if !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
	if bad := checkGrammar("markdown", md); bad != "" {
		t.Error(bad)
	}
	lines := strings.Split(text, "\n")
	at := 0
	for _, w := range []string{
		`  ✗ blind\u001b[2J 1.0 default H4: nothing of what was served reached the model (every record reads nothing, or a text of the agent's own)`,
		"      record obs/blind/1.0/default.jsonl:1",
		"      required by profiles.probe.visibility.reached (docs/visibility.md)",
		"gate: profile probe NOT satisfied (0 violations, 1 group with nothing served, 0 bindings gated)",
	} {
		i := slices.Index(lines[at:], w)
		if i < 0 {
			t.Errorf("no line %q after line %d in:\n%s", w, at, text)
			continue
		}
		at += i + 1
	}
}
