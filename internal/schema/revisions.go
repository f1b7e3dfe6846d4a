package schema

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractcheck/contractcheck/internal/layer"
	versions "github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// The MCP revisions a validator knows are what its schema layers hold: every directory
// mcp/<revision>/ with a schema.json, in the built-in schemas directory and in each user schema
// layer (--schemas). No list of revisions is written in Go.
//
// A revision directory is named (RevisionNameRule, at most 64 characters) by
//
//   - a date, YYYY-MM-DD (a real calendar date, as MCP names its revisions): a released revision;
//   - a date with a suffix, YYYY-MM-DD-<suffix>, the suffix letters and digits in runs joined by
//     "." or "-" (2026-12-01-draft, 2026-12-01-rc.1): a draft of the revision of that date;
//   - a draft name, DRAFT- then letters and digits in runs joined by "." or "-" (DRAFT-2026-v1,
//     DRAFT-2026-12-01).
//
// Both kinds of draft (IsDraft) are validated against like any revision; only a plain date is a
// protocol version a server can speak (package mcpserve). Revisions are ordered (CompareRevisions)
// by date first, a dated draft before the date it is a draft of (as a SemVer pre-release before
// its release: 2026-12-01-draft before 2026-12-01, both after 2026-07-28), the suffixes of one
// date in natural order; then the DRAFT- names, which carry no date the checker reads, in natural
// order (DRAFT-2026-v2 before DRAFT-2026-v10). The order is total, so "the newest" and every list
// of revisions is the same on every run: what Revisions returns and every list of them shows.
//
// A revision's directory may hold a descriptor, revision.json, naming the definitions of its
// schema that a source is validated against, each as a fragment ("#/$defs/CallToolResult"):
//
//	{"result": "#/$defs/CallToolResult", "resultResponse": "#/$defs/JSONRPCResultResponse",
//	 "errorResponse": "#/$defs/JSONRPCErrorResponse", "replace": false}
//
// Every member is optional. A definition not named is found by convention, in the schema's
// "$defs" (or, for a draft-07 schema, "definitions"): result is CallToolResult; resultResponse is
// JSONRPCResultResponse, else JSONRPCResponse (2025-06-18's name); errorResponse is
// JSONRPCErrorResponse, else JSONRPCError. The built-in revisions have no descriptor: the
// convention finds theirs.
//
// A layer adds revisions; it does not silently change one. A revision an earlier layer already
// holds (the built-in one, or an earlier --schemas directory) is an error naming both schema
// files, unless the later layer's descriptor says "replace": true, or the later layer's directory
// is a copy of the earlier's (the same schema.json bytes and descriptor, as in an exported
// schemas directory: nothing changes, and the earlier one is kept); "replace" for a revision no
// earlier layer holds is an error too.

// DescriptorName is the file name of a revision's descriptor, beside its schema.json.
const DescriptorName = "revision.json"

// MaxRevisionName bounds the length of a revision directory's name.
const MaxRevisionName = 64

// datedPattern is a date, with a draft suffix or without; draftPattern a draft name. The
// contract model's #Revision (contracts/model.cue) is the same grammar.
var (
	datedPattern = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2})(-[A-Za-z0-9]+([.-][A-Za-z0-9]+)*)?$`)
	draftPattern = regexp.MustCompile(`^DRAFT-[A-Za-z0-9]+([.-][A-Za-z0-9]+)*$`)
)

// draftPrefix begins a draft name.
const draftPrefix = "DRAFT-"

// RevisionNameRule says in words what a revision directory may be named.
const RevisionNameRule = "a date YYYY-MM-DD (2026-07-28), a date with a suffix YYYY-MM-DD-<suffix> (2026-12-01-draft), or DRAFT-<name> (DRAFT-2026-12-01); a suffix or name is letters and digits in runs joined by '.' or '-', at most 64 characters in all"

// CheckRevisionName reports a name that is not a revision name (RevisionNameRule). Every refusal
// is one message: the name, why, and the rule.
func CheckRevisionName(name string) error {
	why := ""
	switch m := datedPattern.FindStringSubmatch(name); {
	case len(name) > MaxRevisionName:
		why = fmt.Sprintf("longer than %d characters", MaxRevisionName)
	case m != nil:
		if _, err := time.Parse(time.DateOnly, m[1]); err == nil {
			return nil
		}
		why = fmt.Sprintf("%s is not a calendar date", strconv.Quote(m[1]))
	case draftPattern.MatchString(name):
		return nil
	default:
		why = strconv.Quote(name) + " is none of these"
	}
	return fmt.Errorf("not an MCP revision name: %s: want %s", why, RevisionNameRule)
}

// IsDraft reports whether a revision name is a draft's: a draft name (DRAFT-…) or a date with a
// suffix (2026-12-01-draft). A plain date is a released revision.
func IsDraft(name string) bool {
	if strings.HasPrefix(name, draftPrefix) {
		return true
	}
	_, suffix := splitDated(name)
	return suffix != ""
}

// splitDated splits a dated revision name into its date and its suffix ("" for a plain date);
// date is "" for a name that is not dated (a DRAFT- name).
func splitDated(name string) (date, suffix string) {
	m := datedPattern.FindStringSubmatch(name)
	if m == nil {
		return "", ""
	}
	return m[1], strings.TrimPrefix(m[2], "-")
}

// CompareRevisions orders two revision names, as every list of revisions is ordered (see the top
// of this file): dated names by date, at one date its drafts (by suffix, in natural order) before
// the date itself; then DRAFT- names in natural order. Names the grammar refuses come last, in
// byte order, so the order is total whatever it is given. It returns -1, 0 or +1.
func CompareRevisions(a, b string) int {
	if a == b {
		return 0
	}
	rank := func(name string) int {
		switch {
		case datedPattern.MatchString(name):
			return 0
		case strings.HasPrefix(name, draftPrefix):
			return 1
		}
		return 2
	}
	ra, rb := rank(a), rank(b)
	switch {
	case ra != rb:
		return cmp.Compare(ra, rb)
	case ra == 1:
		return versions.CompareVersions(a, b)
	case ra == 2:
		return strings.Compare(a, b)
	}
	da, sa := splitDated(a)
	db, sb := splitDated(b)
	switch {
	case da != db:
		return strings.Compare(da, db) // YYYY-MM-DD: their order as strings
	case sa == "":
		return 1 // the date itself after its drafts
	case sb == "":
		return -1
	}
	return versions.CompareVersions(sa, sb)
}

// Revision describes one MCP revision a validator knows.
type Revision struct {
	// Name is the revision: its directory's name.
	Name string
	// File is its schema.json as messages name it: "builtin:schemas/mcp/<name>/schema.json", or
	// the path below the --schemas directory as given.
	File string
	// Builtin says the schema is the built-in one (not added or replaced by a user layer).
	Builtin bool
	// Replaces is the file of the schema a user layer's "replace": true replaced ("" otherwise).
	Replaces string
}

// descriptor is a revision's revision.json, as read.
type descriptor struct {
	file                                  string // display name
	result, resultResponse, errorResponse string // fragments; "" is the convention
	replace                               bool
}

// descriptorMembers are the members a descriptor may have, in the order messages list them.
var descriptorMembers = []string{"result", "resultResponse", "errorResponse", "replace"}

// readDescriptor reads the descriptor of a revision directory, if it has one.
func readDescriptor(fsys fs.FS, path, display string) (*descriptor, error) {
	data, err := safeio.ReadFile(fsys, path, safeio.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, safeio.PathCause(err))
	}
	doc, err := strictjson.Decode(display, data, strictjson.Limits{MaxBytes: safeio.MaxFileBytes})
	if err != nil {
		return nil, err
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, &ValidationError{File: display, Msg: fmt.Sprintf("got %s, want an object with members %s", strictjson.TypeName(doc), strings.Join(descriptorMembers, ", "))}
	}
	d := &descriptor{file: display}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		ptr := "/" + strictjson.EscapeToken(k)
		switch k {
		case "result", "resultResponse", "errorResponse":
			s, ok := obj[k].(string)
			if !ok || !strings.HasPrefix(s, "#/") {
				return nil, &ValidationError{File: display, Pointer: ptr, Msg: `want a fragment naming a definition of schema.json, e.g. "#/$defs/CallToolResult"`}
			}
			switch k {
			case "result":
				d.result = s
			case "resultResponse":
				d.resultResponse = s
			default:
				d.errorResponse = s
			}
		case "replace":
			b, ok := obj[k].(bool)
			if !ok {
				return nil, &ValidationError{File: display, Pointer: ptr, Msg: "want true or false"}
			}
			d.replace = b
		default:
			return nil, &ValidationError{File: display, Pointer: ptr, Msg: fmt.Sprintf("unknown member (a descriptor has %s)", strings.Join(descriptorMembers, ", "))}
		}
	}
	return d, nil
}

// sameDescriptor reports whether two descriptors (nil: none) say the same.
func sameDescriptor(a, b *descriptor) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.result == b.result && a.resultResponse == b.resultResponse && a.errorResponse == b.errorResponse && a.replace == b.replace
}

// definitions are the fragments of a revision's schema a source is validated against.
type definitions struct {
	result, resultResponse, errorResponse string
}

// resolve finds the definitions of a revision's schema doc: those its descriptor names, which
// must exist, and the others by convention (see the top of this file).
func resolve(doc any, d *descriptor, file string) (definitions, error) {
	root, _ := doc.(map[string]any)
	container := "$defs"
	if _, ok := root["$defs"]; !ok {
		if _, ok := root["definitions"]; ok {
			container = "definitions"
		}
	}
	defs, _ := root[container].(map[string]any)
	var out definitions
	for _, x := range []struct {
		member string
		named  string
		into   *string
		names  []string
	}{
		{"result", descriptorField(d, "result"), &out.result, []string{"CallToolResult"}},
		{"resultResponse", descriptorField(d, "resultResponse"), &out.resultResponse, []string{"JSONRPCResultResponse", "JSONRPCResponse"}},
		{"errorResponse", descriptorField(d, "errorResponse"), &out.errorResponse, []string{"JSONRPCErrorResponse", "JSONRPCError"}},
	} {
		if x.named != "" {
			if !pointerExists(doc, x.named) {
				return out, &ValidationError{File: d.file, Pointer: "/" + x.member, Msg: fmt.Sprintf("%s names nothing in %s", x.named, file)}
			}
			*x.into = x.named
			continue
		}
		for _, n := range x.names {
			if _, ok := defs[n]; ok {
				*x.into = "#/" + container + "/" + n
				break
			}
		}
		if *x.into == "" {
			desc := "mcp/<revision>/" + DescriptorName
			if d != nil {
				desc = d.file
			}
			return out, fmt.Errorf("%s: no definition %s in %q: name the one to validate a %s against in %s (member %q)", file, strings.Join(x.names, " or "), container, x.member, desc, x.member)
		}
	}
	return out, nil
}

func descriptorField(d *descriptor, member string) string {
	if d == nil {
		return ""
	}
	switch member {
	case "result":
		return d.result
	case "resultResponse":
		return d.resultResponse
	}
	return d.errorResponse
}

// pointerExists reports whether the fragment frag ("#/a/b", an RFC 6901 pointer after the "#")
// names a value in doc.
func pointerExists(doc any, frag string) bool {
	p, err := strictjson.ParsePointer(strings.TrimPrefix(frag, "#"))
	if err != nil {
		return false
	}
	_, ok := p.Lookup(doc)
	return ok
}

// found is one revision directory found in a layer.
type found struct {
	name string
	file string // display name of its schema.json
	desc *descriptor
}

// revisionsIn lists the revision directories of one schema layer: fsys rooted at the layer's
// directory (root inside it), shown as display. A layer without an mcp/ directory holds none.
func revisionsIn(fsys fs.FS, root, display string) ([]found, error) {
	mcpDir := layer.Join(root, "mcp")
	entries, err := fs.ReadDir(fsys, mcpDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", layer.Join(display, "mcp"), safeio.PathCause(err))
	}
	var out []found
	for _, e := range entries {
		if !e.IsDir() {
			continue // mcp/PROVENANCE.md, a README: not a revision
		}
		name := e.Name()
		dirDisplay := layer.Join(display, "mcp/"+name)
		if err := CheckRevisionName(name); err != nil {
			return nil, fmt.Errorf("%s: %w", dirDisplay, err)
		}
		schemaPath := layer.Join(mcpDir, name+"/schema.json")
		if st, err := fs.Stat(fsys, schemaPath); err != nil || st.IsDir() {
			if err == nil || errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s: a revision directory holds its schema.json, and this one has none", dirDisplay)
			}
			return nil, fmt.Errorf("%s/schema.json: %w", dirDisplay, safeio.PathCause(err))
		}
		desc, err := readDescriptor(fsys, layer.Join(mcpDir, name+"/"+DescriptorName), dirDisplay+"/"+DescriptorName)
		if err != nil {
			return nil, err
		}
		out = append(out, found{name: name, file: dirDisplay + "/schema.json", desc: desc})
	}
	return out, nil
}

// builtinDisplay is how the validator's base schemas directory is shown.
const builtinDisplay = layer.BuiltinPrefix + "schemas"

// revisionFS serves the validator's schemas directory: the base one, with the directory of each
// revision a user layer holds (mcp/<revision>/…) served from that layer.
type revisionFS struct {
	base  fs.FS
	users map[string]layer.Dir // revision → the layer its schema is read from
}

func (r revisionFS) Open(name string) (fs.File, error) {
	if rest, ok := strings.CutPrefix(name, "mcp/"); ok {
		rev, _, _ := strings.Cut(rest, "/")
		if d, ok := r.users[rev]; ok {
			p, _ := d.Path(name)
			return d.FS.Open(p)
		}
	}
	return r.base.Open(name)
}

// display is the name a path inside the validator's schemas directory is shown under in a
// decoding error: a user revision's file under its layer's name, any other as it is (a carrier
// schema's layer is the caller's to name).
func (r revisionFS) display(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp/"); ok {
		rev, _, _ := strings.Cut(rest, "/")
		if d, ok := r.users[rev]; ok {
			_, disp := d.Path(name)
			return disp
		}
	}
	return name
}

// Revisions lists the MCP revisions the validator knows, in order (see CompareRevisions): every
// mcp/<revision>/schema.json of its schema layers.
func (v *Validator) Revisions() []string { return slices.Clone(v.order) }

// Revision describes a revision the validator knows.
func (v *Validator) Revision(name string) (Revision, bool) {
	r, ok := v.revisions[name]
	if !ok {
		return Revision{}, false
	}
	return r.info, true
}

// HasRevision reports whether the validator knows revision.
func (v *Validator) HasRevision(name string) bool {
	_, ok := v.revisions[name]
	return ok
}

// BuiltinSchema reports whether revision's schema is the built-in one: a built-in source
// validated against it when the binary was built need not be validated again.
func (v *Validator) BuiltinSchema(name string) bool {
	r, ok := v.revisions[name]
	return ok && r.info.Builtin
}

// Known lists the revisions for a message: "a, b, c".
func (v *Validator) Known() string { return strings.Join(v.order, ", ") }

// UnknownRevision is the error for a revision the validator does not know.
func (v *Validator) UnknownRevision(name string) error {
	return fmt.Errorf("unknown MCP revision %s: no schema layer holds mcp/%s/schema.json (known: %s; a --schemas directory adds one, docs/writing-a-contract.md)", strconv.Quote(name), name, v.Known())
}
