package contract

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

// Every layer's files are one CUE package, so a hidden name (_lcBlocks) or a definition (#Lane)
// a later layer declares again unifies with the earlier layer's, and a later layer's
// `lanes: "adk-go": stages: ...` unifies with the built-in lane's bindings: either silently
// changes what a built-in lane reads; so does `revisions: "2025-11-25": source: ...`, what every
// source of a built-in revision reads as. guardLayers refuses these unless the later declaration
// says it means it, with the field attribute @extend() (see docs/writing-a-contract.md, "Extending
// the built-in layer").

// ExtendAttr is the field attribute a later layer's declaration carries to change, on purpose, a
// hidden name, a definition or a lane's stages that an earlier layer declares.
const ExtendAttr = "extend"

// parsed is one parsed source and its layer.
type parsed struct {
	file  *ast.File
	layer int
}

// decl is a top-level declaration a later layer may not change silently: a hidden name or a
// definition, a lane's stages ("lanes.<id>.stages") or a revision's source binding
// ("revisions.<id>.source").
type decl struct {
	in     *guardedField // the field of an entry or of the entry's part it declares; nil for a name
	entry  string        // with in: the entry's id, "*" for a pattern; key is "" for the entry itself
	key    string        // "_lcBlocks", "#Lane", "lanes.adk-go.stages", or "lanes.*.stages" for a pattern
	what   string        // "hidden name _lcBlocks", "definition #Lane", "the stages of lane adk-go"
	pos    token.Pos
	layer  int
	extend bool
}

// guardedField is a top-level field whose entries a layer declares (lanes, revisions) and the
// part of an entry (its stages, its source binding) a later layer may not change silently.
type guardedField struct {
	name, part string
	one        string // what the part is, before an entry's id: "the stages of lane "
	every      string // what a part under a label that is not a plain name is
	instead    string // what a layer should do instead of changing the part
}

// guardedFields are the fields guardLayers judges entry by entry.
var guardedFields = []*guardedField{
	{name: "lanes", part: "stages", one: "the stages of lane ", every: "the stages of every lane (a pattern or computed lane label)",
		instead: "declare a lane of your own (a layer may add versions with extraVersions, and configurations, without it)"},
	{name: "revisions", part: "source", one: "the source binding of revision ", every: "the source binding of every revision (a pattern or computed revision label)",
		instead: "add a revision of your own (a DRAFT-… name or a new date, with its schema in a --schemas layer) with its binding"},
}

// guardLayers refuses a declaration in a file of layer L > 0 of a hidden name, a definition or a
// lane's stages that a file of an earlier layer declares too, unless it is marked @extend(). A
// lane an earlier layer declares gets stages from a later layer only the same way; a later layer
// may add versions (extraVersions) and configurations to it freely. Hidden names and definitions
// no earlier layer declares are a layer's own helpers. Every error names both files with
// file:line:col.
func guardLayers(files []parsed) error {
	first := map[string]decl{}                     // key → first declaration in the lowest layer that has one
	entries := map[*guardedField]map[string]decl{} // entry id → its first declaration, by field
	var later []decl                               // declarations to judge against the earlier layers
	for _, p := range files {
		for _, d := range declarations(p.file, p.layer) {
			if d.in != nil && d.key == "" {
				if entries[d.in] == nil {
					entries[d.in] = map[string]decl{}
				}
				if f, ok := entries[d.in][d.entry]; !ok || d.layer < f.layer {
					entries[d.in][d.entry] = d
				}
				continue
			}
			if f, ok := first[d.key]; !ok || d.layer < f.layer {
				first[d.key] = d
			}
			later = append(later, d)
		}
	}
	var errs []string
	for _, d := range later {
		if d.layer == 0 || d.extend {
			continue
		}
		earlier, ok := first[d.key]
		instead := "give a helper of your own another name"
		if g := d.in; g != nil {
			earlier, ok = entries[g][d.entry]
			if d.entry == "*" {
				earlier, ok = firstEntry(entries[g], d.layer)
			}
			instead = g.instead
		}
		if !ok || earlier.layer >= d.layer {
			continue
		}
		errs = append(errs, fmt.Sprintf("%s%s: declared by an earlier layer at %s, and a later layer's declaration changes what it means there: mark the declaration @%s() to change it on purpose, or %s",
			prefix(d.pos), d.what, where(earlier.pos), ExtendAttr, instead))
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return &Error{Msg: strings.Join(slices.Compact(errs), "\n")}
	}
	return nil
}

// firstEntry is the declaration, in a layer before layer, of the entry (lane, revision) whose id
// sorts first: the built-in one a pattern constraint over every entry would change.
func firstEntry(entries map[string]decl, layer int) (decl, bool) {
	for _, id := range SortedKeys(entries) {
		if entries[id].layer < layer {
			return entries[id], true
		}
	}
	return decl{}, false
}

// declarations lists a file's top-level hidden names and definitions, the lanes it declares and
// the lanes whose stages it sets, the revisions it declares and those whose source binding it
// sets. A lane label that is not a plain name (a pattern constraint, an
// interpolation) may reach any lane, so its stages are judged against every earlier lane. Fields a
// comprehension makes are not seen (the syntax does not name them).
func declarations(f *ast.File, layer int) []decl {
	var out []decl
	for _, fd := range topFields(f.Decls) {
		name, isIdent, err := ast.LabelName(fd.Label)
		if err != nil {
			continue
		}
		switch {
		case isIdent && strings.HasPrefix(name, "_") && name != "_":
			out = append(out, decl{key: name, what: "hidden name " + name, pos: fd.Pos(), layer: layer, extend: extends(fd)})
		case isIdent && strings.HasPrefix(name, "#"):
			out = append(out, decl{key: name, what: "definition " + name, pos: fd.Pos(), layer: layer, extend: extends(fd)})
		default:
			g := guardedFieldNamed(name)
			if g == nil {
				continue
			}
			for _, ef := range fields(fd.Value) {
				id, _, err := ast.LabelName(ef.Label)
				if err == nil && id != "" {
					out = append(out, decl{in: g, entry: id, pos: ef.Pos(), layer: layer})
				}
				for _, sf := range fields(ef.Value) {
					if n, _, err := ast.LabelName(sf.Label); err != nil || n != g.part {
						continue
					}
					d := decl{in: g, entry: id, key: g.name + "." + id + "." + g.part, what: g.one + id, pos: sf.Pos(), layer: layer,
						extend: attrOn(fd) || attrOn(ef) || extends(sf)}
					if err != nil {
						d.entry, d.key, d.what = "*", g.name+".*."+g.part, g.every
					}
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// guardedFieldNamed is the guarded field of that name, or nil.
func guardedFieldNamed(name string) *guardedField {
	for _, g := range guardedFields {
		if g.name == name {
			return g
		}
	}
	return nil
}

// topFields lists the fields declared at the top level of a file, through embedded struct
// literals.
func topFields(decls []ast.Decl) []*ast.Field {
	var out []*ast.Field
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			out = append(out, d)
		case *ast.EmbedDecl:
			out = append(out, fields(d.Expr)...)
		}
	}
	return out
}

// fields lists the fields a value declares: those of a struct literal (and of the structs it
// embeds), of both sides of a unification, of a parenthesised value.
func fields(x ast.Expr) []*ast.Field {
	switch x := x.(type) {
	case *ast.StructLit:
		return topFields(x.Elts)
	case *ast.BinaryExpr:
		if x.Op == token.AND {
			return append(fields(x.X), fields(x.Y)...)
		}
	case *ast.ParenExpr:
		return fields(x.X)
	}
	return nil
}

// extends reports whether a field, or the field its shorthand value declares (`a: b: c: 1
// @extend()` puts the attribute on c), carries @extend(). An attribute deeper inside a braced
// value does not: the opt-in is on the declaration itself.
func extends(f *ast.Field) bool {
	if attrOn(f) {
		return true
	}
	if s, ok := f.Value.(*ast.StructLit); ok && !s.Lbrace.IsValid() && len(s.Elts) == 1 {
		if sub, ok := s.Elts[0].(*ast.Field); ok {
			return extends(sub)
		}
	}
	return false
}

// attrOn reports whether a field itself carries @extend().
func attrOn(f *ast.Field) bool {
	for _, a := range f.Attrs {
		if name, _ := a.Split(); name == ExtendAttr {
			return true
		}
	}
	return false
}
