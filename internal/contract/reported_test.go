package contract

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/layer"
)

// TestReportedReferences refuses a fixedBy clause, a report citation and a per-version origin that
// name what the model lacks, at the referring value's file, line and column.
func TestReportedReferences(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "fixedBy naming a version the lane lacks",
			src: `profiles: p: {doc: "d", nullPolicy: "strict", require: [], fixedBy: [{doc: "d", lane: "mcp-go", from: "v0.37.0",
	to: "v9.9.9", atoms: ["structured.state"]}]}`,
			want: `user/x.cue:6:2: profiles.p.fixedBy[0]: lane mcp-go has no version "v9.9.9"`,
		},
		{
			name: "fixedBy naming an unknown atom",
			src: `profiles: p: {doc: "d", nullPolicy: "strict", require: [], fixedBy: [{doc: "d", lane: "mcp-go", from: "v0.37.0",
	to: "v0.38.0", atoms: ["structured.nope"]}]}`,
			want: `user/x.cue:6:25: profiles.p.fixedBy[0]: unknown atom "structured.nope"`,
		},
		{
			name: "fixedBy from and to the same version",
			src: `profiles: p: {doc: "d", nullPolicy: "strict", require: [], fixedBy: [{doc: "d", lane: "mcp-go", from: "v0.38.0",
	to: "v0.38.0", atoms: ["structured.state"]}]}`,
			want: `profiles.p.fixedBy[0]: from and to are the same version "v0.38.0"`,
		},
		{
			name: "a report whose buggy version the lane lacks",
			src: `fixtures: R99: {suite: "reported", family: "reported", revision: "2025-11-25", tasks: ["T1"], doc: "d", targets: [],
	report: {url: "https://github.com/x/y/issues/1", fix: [], lane: "go-sdk", buggy: "v0.1.0", fixed: "v1.8.0", stages: ["D1"], tasks: ["T2"], atoms: ["structured.value"], loses: "l"}}`,
			want: `fixtures.R99.report: lane go-sdk has no version "v0.1.0"`,
		},
		{
			name: "a report with a side missing and no reason",
			src: `fixtures: R99: {suite: "reported", family: "reported", revision: "2025-11-25", tasks: ["T1"], doc: "d", targets: [],
	report: {url: "https://github.com/x/y/issues/1", fix: [], lane: "go-sdk", buggy: "v1.7.0", stages: ["D1"], tasks: ["T2"], atoms: ["structured.value"], loses: "l"}}`,
			want: `notRun does not say why`,
		},
		{
			name: "a version origin for a version the lane lacks",
			src:  `lanes: "go-sdk": versionOrigins: "v0.1.0": "reconstructed"`,
			want: `lanes.go-sdk.versionOrigins: unknown version "v0.1.0"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			user := fstest.MapFS{"x.cue": {Data: []byte("package contracts\n\n// A user layer.\n\n" + tc.src + "\n")}}
			_, err := Load([]layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts"), layer.FS(user, ".", "user")})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
