// Package buildinfo says what a contractcheck binary is: its module version or the VCS revision it
// was built from, the versions of the libraries that decide its verdicts (OPA, CUE, the JSON Schema
// validator), the versions of the reports it writes, and the sha256 of the MCP schemas pinned in
// it. `contractcheck version` prints it, and the lock file (internal/lock) records the tool
// version it gives.
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"
	"strings"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// Devel is the version of a build that is not a released module version (a `go build` in a
// clone, a test binary).
const Devel = "(devel)"

// Libraries are the modules whose versions decide a verdict, in the order `version` prints them.
var Libraries = []struct{ Name, Path string }{
	{"OPA", "github.com/open-policy-agent/opa"},
	{"CUE", "cuelang.org/go"},
	{"jsonschema", "github.com/santhosh-tekuri/jsonschema/v6"},
}

// Info describes one build.
type Info struct {
	// Version is the main module's version (v1.2.3, or a pseudo-version), or Devel.
	Version string `json:"version"`
	// Revision is the VCS revision the binary was built from, when the build recorded it.
	Revision string `json:"revision,omitempty"`
	// Time is the commit time of Revision (RFC 3339), when recorded.
	Time string `json:"time,omitempty"`
	// Modified says the work tree had changes not in Revision.
	Modified bool `json:"modified,omitempty"`
	// Go is the Go toolchain that built the binary.
	Go string `json:"go"`
	// Libraries maps each of Libraries' names to the version linked in ("unknown" when the build
	// recorded none).
	Libraries []Library `json:"libraries"`
	// Reports are the versions of the files contractcheck writes and reads.
	Reports []Format `json:"reports"`
	// Schemas are the pinned MCP schemas, one per revision, with the sha256 of the bytes embedded.
	Schemas []Schema `json:"mcpSchemas"`
}

// Library is one library and its version.
type Library struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Version string `json:"version"`
}

// Format is a file format contractcheck writes and the version it stamps in it.
type Format struct {
	Name    string `json:"name"`
	Field   string `json:"field"`
	Version int    `json:"version"`
}

// Schema is a pinned MCP schema.
type Schema struct {
	Revision string `json:"revision"`
	Path     string `json:"path"`
	Sha256   string `json:"sha256"`
	Default  bool   `json:"default,omitempty"`
}

// Read describes the running binary, with the versions of the formats it writes (listed where
// the verbs that write them are: cmd/contractcheck).
func Read(formats []Format) (Info, error) {
	bi, _ := debug.ReadBuildInfo()
	return FromBuildInfo(bi, formats)
}

// FromBuildInfo describes the build bi records (nil: nothing recorded) with the given format
// versions and this binary's embedded schemas. This package knows no verb: the caller lists the
// formats, so that what says what a binary is depends on nothing it describes.
func FromBuildInfo(bi *debug.BuildInfo, formats []Format) (Info, error) {
	info := build(bi)
	for _, l := range Libraries {
		info.Libraries = append(info.Libraries, Library{Name: l.Name, Path: l.Path, Version: depVersion(bi, l.Path)})
	}
	info.Reports = append([]Format(nil), formats...)
	// The built-in revisions: whatever the built-in schema layer holds (a user's --schemas layer
	// adds revisions to a run, not to the binary).
	sfs, err := fs.Sub(contractcheck.Builtin, "schemas")
	if err != nil {
		return Info{}, fmt.Errorf("pinned MCP schemas: %w", err)
	}
	v, err := schema.New(sfs)
	if err != nil {
		return Info{}, fmt.Errorf("pinned MCP schemas: %w", err)
	}
	for _, rev := range v.Revisions() {
		p := "schemas/" + schema.MCPSchemaPath(rev)
		data, err := fs.ReadFile(contractcheck.Builtin, p)
		if err != nil {
			return Info{}, fmt.Errorf("pinned MCP schema %s: %w", rev, err)
		}
		sum := sha256.Sum256(data)
		info.Schemas = append(info.Schemas, Schema{Revision: rev, Path: "builtin:" + p, Sha256: hex.EncodeToString(sum[:]), Default: rev == schema.DefaultRevision})
	}
	return info, nil
}

// build is what bi records of the build itself (nil: nothing recorded): version, revision, commit
// time, modified, toolchain.
func build(bi *debug.BuildInfo) Info {
	info := Info{Version: Devel}
	if bi != nil {
		if v := bi.Main.Version; v != "" {
			info.Version = v
		}
		info.Go = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	return info
}

// Tool is Read().Tool() without the rest of Read: it hashes no schema, so it is what the lock's
// tool version should cost.
func Tool() string {
	bi, _ := debug.ReadBuildInfo()
	return ToolOf(bi)
}

// ToolOf is the Tool of the build bi records (nil: nothing recorded), as FromBuildInfo(bi).Tool()
// gives it.
func ToolOf(bi *debug.BuildInfo) string { return build(bi).Tool() }

// depVersion is the version of the module path linked into the build, following a replace.
func depVersion(bi *debug.BuildInfo, path string) string {
	if bi == nil {
		return "unknown"
	}
	for _, d := range bi.Deps {
		if d.Path != path {
			continue
		}
		if d.Replace != nil {
			return d.Replace.Version + " (replacing " + d.Version + ")"
		}
		return d.Version
	}
	return "unknown"
}

// Tool is the version a lock records and compares: the module version, or for a development
// build the revision it was built from ("(devel) <revision>", with "+modified" when the work tree
// had changes), or Devel when the build recorded none.
func (i Info) Tool() string {
	if i.Version != Devel || i.Revision == "" {
		return i.Version
	}
	v := Devel + " " + i.Revision
	if i.Modified {
		v += "+modified"
	}
	return v
}

// WriteText writes the description a person reads, one fact a line.
func (i Info) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "contractcheck %s\n", i.Version)
	if i.Revision != "" {
		mod := ""
		if i.Modified {
			mod = " (modified)"
		}
		when := ""
		if i.Time != "" {
			when = " " + i.Time
		}
		fmt.Fprintf(&b, "revision %s%s%s\n", i.Revision, when, mod)
	}
	if i.Go != "" {
		fmt.Fprintf(&b, "go %s\n", i.Go)
	}
	for _, l := range i.Libraries {
		fmt.Fprintf(&b, "%s %s (%s)\n", l.Name, l.Version, l.Path)
	}
	for _, r := range i.Reports {
		fmt.Fprintf(&b, "%s %d: %s\n", r.Field, r.Version, r.Name)
	}
	for _, s := range i.Schemas {
		def := ""
		if s.Default {
			def = " (default)"
		}
		fmt.Fprintf(&b, "MCP schema %s%s sha256 %s\n", s.Revision, def, s.Sha256)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
