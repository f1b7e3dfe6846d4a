package contract

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

// A model with user layers on the built-in one is evaluated as one CUE package, as it must be: a
// user's layer unifies with the built-in definitions, entries and hidden names. CUE v0.17 cannot
// evaluate the built-in part once and the user's on top of it: cue.Value.Unify of the evaluated
// built-in value with a user file compiled in its scope (cue.Scope) evaluates both again, and took
// a third more time than building the whole package (2.9 s against 2.2 s an op on a loaded
// machine, 2026-12-07). What a load can skip is the export of the built-in part: MarshalJSON
// sorts the fields of every struct of the value (CUE's topological sort), a fifth of Evaluate's
// time (BenchmarkEvaluateUserLayer), and the Go values the built-in entries decode to are known
// already, from the model embedded at build time (BuiltinModel).
//
// So when the first layer is the embedded built-in one, unchanged, and each user file only adds or
// writes entries of the model's maps by name (overlayOf), the model's JSON is assembled from the
// embedded model's entries for every entry no user file writes and from CUE's export of each
// entry one does, and decoded as before. An entry no user file writes has the value it has in the
// built-in layer alone: CUE is monotonic, the built-in layer has no comprehension and no reference
// to an entry of a map (builtinIndependent), and a user file that declares a definition or hidden
// name of the built-in layer, a pattern, a computed label or an embedding is not taken this way.
// The embedded model is a checked one: its entries, decoded and checked again, are what CUE's
// export of them gives once checked (TestBuiltinModelIsCurrent); TestOverlayModel compares both
// ways, checked, for the layers under testdata.

// overlayMaps are the model's top-level maps, whose entries a user file may write by name: every
// top-level field but visibility, which is one value.
var overlayMaps = slices.DeleteFunc(slices.Clone(topLevel), func(name string) bool { return name == "visibility" })

// builtinParts is the embedded model split into the raw JSON of its top-level fields and of the
// entries of its maps.
type builtinParts struct {
	key     string
	top     map[string]json.RawMessage
	entries map[string]map[string]json.RawMessage
	// independent is builtinIndependent of the built-in files and declared their top-level
	// names, both computed on the first load that reads them (the built-in files are those of
	// key, the same on every load that takes this way).
	once        sync.Once
	independent bool
	declared    map[string]bool
}

// embedded is BuiltinModel split, read on the first load with a user layer; nil when it cannot be.
var embedded = sync.OnceValue(func() *builtinParts {
	var c struct {
		Key   string          `json:"key"`
		Model json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(BuiltinModel, &c); err != nil {
		return nil
	}
	p := &builtinParts{key: c.Key, entries: map[string]map[string]json.RawMessage{}}
	if err := json.Unmarshal(c.Model, &p.top); err != nil {
		return nil
	}
	for _, name := range overlayMaps {
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(p.top[name], &entries); err != nil {
			return nil
		}
		p.entries[name] = entries
	}
	for _, raw := range p.entries["lanes"] {
		// A checked lane's extra versions are merged into its versions already: decoded and
		// checked again, they would be added twice. The built-in layer declares none.
		var l struct {
			ExtraVersions map[string]json.RawMessage `json:"extraVersions"`
		}
		if err := json.Unmarshal(raw, &l); err != nil || len(l.ExtraVersions) > 0 {
			return nil
		}
	}
	return p
})

// overlay is what the user files of a load write: by map, the entries they name, and whether they
// write the top-level visibility.
type overlay struct {
	entries    map[string]map[string]bool
	visibility bool
}

// overlayOf is what files' user layers write when the model's JSON can be assembled from the
// embedded built-in model (see above), and false when it cannot: the first layer is not the
// embedded built-in one, or a user file does more than write entries of the model's maps by name.
func overlayOf(srcs []Source, files []parsed) (*overlay, *builtinParts, bool) {
	p := embedded()
	if p == nil {
		return nil, nil, false
	}
	var builtin []Source
	for _, s := range srcs {
		if s.Layer == 0 {
			builtin = append(builtin, s)
		}
	}
	if len(builtin) == len(srcs) || Key(builtin) != p.key {
		return nil, nil, false
	}
	p.once.Do(func() { p.independent, p.declared = builtinIndependent(files), builtinDeclared(files) })
	if !p.independent {
		return nil, nil, false
	}
	o := &overlay{entries: map[string]map[string]bool{}}
	for _, f := range files {
		if f.layer != 0 && !o.add(f.file, p.declared) {
			return nil, nil, false
		}
	}
	return o, p, true
}

// builtinDeclared is the top-level names the built-in layer's files declare.
func builtinDeclared(files []parsed) map[string]bool {
	declared := map[string]bool{}
	for _, f := range files {
		if f.layer != 0 {
			continue
		}
		for _, d := range f.file.Decls {
			if fd, ok := d.(*ast.Field); ok {
				if name, _, err := ast.LabelName(fd.Label); err == nil {
					declared[name] = true
				}
			}
		}
	}
	return declared
}

// add records the entries a user file writes, and reports false when the file does anything else
// that could change a built-in entry.
func (o *overlay) add(f *ast.File, declared map[string]bool) bool {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup, *ast.Attribute:
			continue
		case *ast.Field:
			name, ok := plainLabel(d)
			if !ok {
				return false
			}
			switch {
			case strings.HasPrefix(name, "#") || strings.HasPrefix(name, "_"):
				if declared[name] {
					return false // the user changes a name the built-in entries read
				}
			case name == "visibility":
				o.visibility = true
			case slices.Contains(overlayMaps, name):
				st, ok := d.Value.(*ast.StructLit)
				if !ok {
					return false
				}
				for _, e := range st.Elts {
					ef, ok := e.(*ast.Field)
					if !ok {
						if _, comment := e.(*ast.CommentGroup); comment {
							continue
						}
						return false
					}
					id, ok := plainLabel(ef)
					if !ok || strings.HasPrefix(id, "#") || strings.HasPrefix(id, "_") {
						return false
					}
					if o.entries[name] == nil {
						o.entries[name] = map[string]bool{}
					}
					o.entries[name][id] = true
				}
			default:
				return false // an unknown top-level field: checkTopLevel says which
			}
		default:
			return false // an embedding, a comprehension, a let, …
		}
	}
	return true
}

// plainLabel is the name of a regular field labelled by a plain name or string: not a pattern, a
// computed or interpolated label, an alias, an optional or required field.
func plainLabel(f *ast.Field) (string, bool) {
	if _, alias := f.Label.(*ast.Alias); alias || f.Alias != nil || f.Constraint != token.ILLEGAL {
		return "", false
	}
	name, _, err := ast.LabelName(f.Label)
	return name, err == nil
}

// builtinIndependent reports whether the built-in layer's entries depend on nothing a user file
// may add: its files hold no comprehension and no reference to one of the model's top-level
// fields (a name used other than as a field's label).
func builtinIndependent(files []parsed) bool {
	independent := true
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Comprehension:
			independent = false
		case *ast.Field:
			// The label names a field; only the value (and a pattern label) may refer.
			if l, ok := n.Label.(*ast.ListLit); ok {
				ast.Walk(l, visit, nil)
			}
			ast.Walk(n.Value, visit, nil)
			return false
		case *ast.Ident:
			if slices.Contains(topLevel, n.Name) {
				independent = false
			}
		}
		return independent
	}
	for _, f := range files {
		if f.layer == 0 {
			ast.Walk(f.file, visit, nil)
		}
	}
	return independent
}

// marshal is the model's JSON: the built-in entries no user file writes taken from the embedded
// model, every other part exported from v. It reports false when an export fails: Evaluate then
// exports v whole, and says what failed as before.
func (o *overlay) marshal(v cue.Value, p *builtinParts) ([]byte, bool) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, name := range overlayMaps {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeKey(&buf, name)
		buf.WriteByte('{')
		ids := make(map[string]bool, len(p.entries[name])+len(o.entries[name]))
		for id := range p.entries[name] {
			ids[id] = true
		}
		for id := range o.entries[name] {
			ids[id] = true
		}
		first := true
		for _, id := range SortedKeys(ids) {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			writeKey(&buf, id)
			if !o.entries[name][id] {
				buf.Write(p.entries[name][id])
				continue
			}
			data, err := v.LookupPath(cue.MakePath(cue.Str(name), cue.Str(id))).MarshalJSON()
			if err != nil {
				return nil, false
			}
			buf.Write(data)
		}
		buf.WriteByte('}')
	}
	buf.WriteByte(',')
	writeKey(&buf, "visibility")
	if !o.visibility {
		buf.Write(p.top["visibility"])
	} else {
		data, err := v.LookupPath(cue.ParsePath("visibility")).MarshalJSON()
		if err != nil {
			return nil, false
		}
		buf.Write(data)
	}
	buf.WriteByte('}')
	return buf.Bytes(), true
}

// writeKey writes a JSON object key and its colon.
func writeKey(buf *bytes.Buffer, key string) {
	k, _ := json.Marshal(key) // a string always encodes
	buf.Write(k)
	buf.WriteByte(':')
}
