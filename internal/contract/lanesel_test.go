package contract

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestLaneSelected: a LANE@CONFIGURATION entry selects only that configuration of the lanes it
// matches, whatever --configuration says; the lanes named without one keep --configuration's (all
// when it is empty); a lane no entry names is not selected.
func TestLaneSelected(t *testing.T) {
	study := []string{"direct", "openai-agents@application-context", "google-adk"}
	tests := []struct {
		name         string
		scope        result.Scope
		lane, config string
		want         bool
	}{
		{name: "no scope selects all", lane: "openai-agents", config: "default", want: true},
		{name: "configuration alone", scope: result.Scope{Configurations: []string{"default"}}, lane: "openai-agents", config: "use-structured-content", want: false},
		{name: "lane@config selects that configuration", scope: result.Scope{Lanes: study}, lane: "openai-agents", config: "application-context", want: true},
		{name: "lane@config leaves the lane's other configurations out", scope: result.Scope{Lanes: study}, lane: "openai-agents", config: "default", want: false},
		{name: "lane@config overrides --configuration", scope: result.Scope{Lanes: study, Configurations: []string{"default"}}, lane: "openai-agents", config: "application-context", want: true},
		{name: "other lanes keep --configuration", scope: result.Scope{Lanes: study, Configurations: []string{"default"}}, lane: "google-adk", config: "default", want: true},
		{name: "other lanes keep --configuration's restriction", scope: result.Scope{Lanes: []string{"langchain-mcp-adapters", "openai-agents@application-context"}, Configurations: []string{"default"}}, lane: "langchain-mcp-adapters", config: "append-structured-content", want: false},
		{name: "other lanes keep every configuration without --configuration", scope: result.Scope{Lanes: []string{"langchain-mcp-adapters", "openai-agents@application-context"}}, lane: "langchain-mcp-adapters", config: "append-structured-content", want: true},
		{name: "a lane no entry names", scope: result.Scope{Lanes: study}, lane: "mcp-go", config: "default", want: false},
		{name: "repeated lane@config entries are a union", scope: result.Scope{Lanes: []string{"openai-agents@default", "openai-agents@application-context"}}, lane: "openai-agents", config: "default", want: true},
		{name: "a plain entry for the same lane does not widen it", scope: result.Scope{Lanes: []string{"openai-agents", "openai-agents@application-context"}}, lane: "openai-agents", config: "default", want: false},
		{name: "glob lane with a configuration", scope: result.Scope{Lanes: []string{"openai-agents*@default"}}, lane: "openai-agents-js", config: "default", want: true},
		{name: "glob configuration", scope: result.Scope{Lanes: []string{"openai-agents@*context"}}, lane: "openai-agents", config: "application-context", want: true},
		{name: "a malformed entry selects nothing", scope: result.Scope{Lanes: []string{"openai-agents@"}}, lane: "openai-agents", config: "default", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := LaneSelected(tc.scope, tc.lane, tc.config); got != tc.want {
				t.Errorf("LaneSelected(%v, %s, %s) = %v, want %v", tc.scope, tc.lane, tc.config, got, tc.want)
			}
		})
	}
}

// TestCheckLaneEntries: an entry naming a configuration its lane does not have is refused, naming
// the entry, the lane and the lane's configurations; a malformed entry is refused.
func TestCheckLaneEntries(t *testing.T) {
	m := &Model{Lanes: map[string]Lane{
		"openai-agents": {Configurations: map[string]Configuration{"default": {}, "application-context": {}}},
		"direct":        {Configurations: map[string]Configuration{"default": {}}},
	}}
	tests := []struct {
		name  string
		entry string
		want  string // "" accepted
	}{
		{name: "lane", entry: "direct"},
		{name: "lane at its configuration", entry: "openai-agents@application-context"},
		{name: "glob lane at a configuration one of them has", entry: "*@application-context"},
		{name: "unknown configuration of a lane", entry: "openai-agents@use-structured-context",
			want: `"openai-agents@use-structured-context": lane openai-agents has no configuration "use-structured-context" (its configurations: application-context, default)`},
		{name: "a configuration of another lane", entry: "direct@application-context",
			want: `lane direct has no configuration "application-context" (its configurations: default)`},
		{name: "glob lane, no such configuration", entry: "open*@nope", want: `no lane matching open* has a configuration "nope"`},
		{name: "unknown lane", entry: "nope@default", want: `"nope@default" matches no lane the contracts define (known: direct, openai-agents)`},
		{name: "empty configuration", entry: "direct@", want: `"direct@": LANE@CONFIGURATION needs both parts`},
		{name: "empty lane", entry: "@default", want: `"@default": LANE@CONFIGURATION needs both parts`},
		{name: "two separators", entry: "direct@default@x", want: `"direct@default@x": one @ only`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			m.CheckLaneEntries([]string{tc.entry}, func(_ int, msg string) { got = append(got, msg) })
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("refused: %v", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("got %q, want one message containing %q", got, tc.want)
			}
		})
	}
}

// TestCohortErrors: a profile's cohort that selects nothing the model defines is a load error at
// the entry's position.
func TestCohortErrors(t *testing.T) {
	base := os.DirFS("../../contracts")
	tests := []struct {
		name, cohort, want string
	}{
		{name: "unknown configuration of a lane", cohort: `lanes: ["direct", "openai-agents@nope"]`,
			want: `mine/u.cue:3:87: profiles.mine.cohort.lanes: "openai-agents@nope": lane openai-agents has no configuration "nope"`},
		{name: "unknown suite", cohort: `suites: ["papers"]`, want: `unknown suite "papers"`},
		{name: "unknown field", cohort: `lane: ["direct"]`, want: "mine/u.cue:3:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			user := "package contracts\n\nprofiles: mine: {doc: \"d\", nullPolicy: \"strict\", cohort: {doc: \"c\", " + tc.cohort + "}, require: [{doc: \"r\", lanes: [\"direct\"], outcomes: [\"pass\"]}]}\n"
			_, err := Load([]layer.Dir{layer.FS(base, ".", "contracts"), layer.FS(fstest.MapFS{"u.cue": {Data: []byte(user)}}, ".", "mine")})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
