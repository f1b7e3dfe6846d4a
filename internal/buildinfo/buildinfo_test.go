package buildinfo

import (
	"runtime/debug"
	"testing"
)

// TestTool is the version a lock records: the module version when released, the revision (and
// whether the tree was modified) of a development build, "(devel)" when nothing was recorded; a
// replaced library shows both versions.
func TestTool(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		tool string
		opa  string
	}{
		{name: "released", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: rev}, tool: "v1.2.3", opa: "unknown"},
		{name: "development", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, tool: "(devel) abc123", opa: "unknown"},
		{name: "modified", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, tool: "(devel) abc123+modified", opa: "unknown"},
		{name: "nothing recorded", bi: nil, tool: "(devel)", opa: "unknown"},
		{name: "a replaced OPA", bi: &debug.BuildInfo{Deps: []*debug.Module{{Path: "github.com/open-policy-agent/opa", Version: "v1.22.3",
			Replace: &debug.Module{Path: "../opa", Version: "v1.22.4"}}}}, tool: "(devel)", opa: "v1.22.4 (replacing v1.22.3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := FromBuildInfo(tc.bi, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Tool(); got != tc.tool {
				t.Errorf("Tool() = %q, want %q", got, tc.tool)
			}
			if got := ToolOf(tc.bi); got != tc.tool {
				t.Errorf("ToolOf = %q, want %q", got, tc.tool)
			}
			if got := info.Libraries[0].Version; info.Libraries[0].Name != "OPA" || got != tc.opa {
				t.Errorf("OPA %q, want %q", got, tc.opa)
			}
			if len(info.Schemas) != 3 {
				t.Errorf("%d pinned MCP schemas, want 3", len(info.Schemas))
			}
		})
	}
}

// TestToolIsRead: Tool gives the running binary's Read().Tool().
func TestToolIsRead(t *testing.T) {
	info, err := Read(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Tool(), info.Tool(); got != want {
		t.Errorf("Tool() = %q, Read().Tool() = %q", got, want)
	}
}
