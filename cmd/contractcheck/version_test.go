package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/buildinfo"
)

// TestVersion describes a build as the build recorded it: a released module version, a
// development build with its VCS revision, a build that recorded nothing; each with the linked
// OPA, CUE and jsonschema versions, the report versions and the pinned MCP schemas' sha256, which
// must be the ones schemas/mcp/PROVENANCE.md names.
func TestVersion(t *testing.T) {
	t.Parallel()
	deps := []*debug.Module{
		{Path: "cuelang.org/go", Version: "v0.17.1"},
		{Path: "github.com/open-policy-agent/opa", Version: "v1.22.3"},
		{Path: "github.com/santhosh-tekuri/jsonschema/v6", Version: "v6.0.3"},
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want []string
		not  []string
	}{
		{name: "released", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Deps: deps},
			want: []string{"contractcheck v1.2.3\n", "go go1.26.8\n", "OPA v1.22.3 (github.com/open-policy-agent/opa)\n", "CUE v0.17.1 (cuelang.org/go)\n",
				"jsonschema v6.0.3 (github.com/santhosh-tekuri/jsonschema/v6)\n", "reportVersion 3: check report", "lockVersion 1: lock file"},
			not: []string{"revision"}},
		{name: "development build of a modified tree", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps,
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.time", Value: "2026-11-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			want: []string{"contractcheck (devel)\n", "revision 0123456789abcdef0123456789abcdef01234567 2026-11-01T10:00:00Z (modified)\n"}},
		{name: "nothing recorded", bi: nil,
			want: []string{"contractcheck (devel)\n", "OPA unknown ("}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := runVersion(tc.bi, versionFormat("text"), &out); err != nil {
				t.Fatal(err)
			}
			for _, w := range append(tc.want, provenanceHashes(t)...) {
				if !strings.Contains(out.String(), w) {
					t.Errorf("version lacks %q:\n%s", w, out.String())
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("version says %q:\n%s", n, out.String())
				}
			}
		})
	}
}

// The JSON of version is written as every other JSON writer writes: a value's bytes as they are,
// < > & not turned into \u003c escapes.
func TestVersionJSONEscapesNoHTML(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0-<b>&"}}
	if err := runVersion(bi, versionFormat("json"), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"version": "v1.0.0-<b>&"`) {
		t.Errorf("version --format json:\n%s", out.String())
	}
}

// versionFormat is version's --format name and no --output, as the command line binds them.
func versionFormat(name string) output[buildinfo.Info] {
	return output[buildinfo.Info]{Format: name, formats: versionOutputters}
}

// provenanceHashes are the "MCP schema <revision> sha256 <hash>" facts of schemas/mcp/PROVENANCE.md.
func provenanceHashes(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../schemas/mcp/PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\| (\d{4}-\d\d-\d\d) \| [^|]+ \| ([0-9a-f]{64}) \|$`).FindAllStringSubmatch(string(data), -1) {
		out = append(out, "MCP schema "+m[1])
		out = append(out, "sha256 "+m[2]+"\n")
	}
	if len(out) != 6 {
		t.Fatalf("PROVENANCE.md names %d revisions' hashes, want 3", len(out)/2)
	}
	return out
}

// TestVersionCommand runs the verb on this binary: the libraries are the ones go.mod requires,
// and --format json says the same.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	opa := regexp.MustCompile(`github.com/open-policy-agent/opa (v\S+)`).FindSubmatch(gomod)
	if opa == nil {
		t.Fatal("go.mod requires no OPA")
	}
	code, stdout, stderr := cli(t, "version")
	if code != 0 || !strings.Contains(stdout, "OPA "+string(opa[1])+" ") {
		t.Errorf("version: exit %d, want OPA %s\n%s%s", code, opa[1], stdout, stderr)
	}
	code, stdout, stderr = cli(t, "version", "--format", "json")
	var info struct {
		Libraries []struct{ Name, Version string }
		Schemas   []struct{ Revision, Sha256 string } `json:"mcpSchemas"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &info) != nil || len(info.Schemas) != 3 || len(info.Libraries) != 3 || info.Libraries[0].Version != string(opa[1]) {
		t.Errorf("version --format json: exit %d, %+v\n%s%s", code, info, stdout, stderr)
	}
}
