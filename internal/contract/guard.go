package contract

import (
	"fmt"
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
	lane     string // a lane's declaration: its id (and key is "")
	revision string // a revision's declaration: its name (and key is "")
	key      string // "_lcBlocks", "#Lane", "lanes.adk-go.stages", or "lanes.*.stages" for a pattern
	what     string // "hidden name _lcBlocks", "definition #Lane", "the stages of lane adk-go"
	pos      token.Pos
	layer    int
	extend   bool
}

// guardLayers refuses a declaration in a file of layer L > 0 of a hidden name, a definition or a
// lane's stages that a file of an earlier layer declares too, unless it is marked @extend(). A
// lane an earlier layer declares gets stages from a later layer only the same way; a later layer
// may add versions (extraVersions) and configurations to it freely. Hidden names and definitions
// no earlier layer declares are a layer's own helpers. Every error names both files with
// file:line:col.
func guardLayers(files []parsed) error {
	first := map[string]decl{} // key → first declaration in the lowest layer that has one
	lanes := map[string]decl{} // lane id → its first declaration
	revs := map[string]decl{}  // revision name → its first declaration
	var later []decl           // declarations to judge against the earlier layers
	for _, p := range files {
		for _, d := range declarations(p.file, p.layer) {
			if d.lane != "" {
				if f, ok := lanes[d.lane]; !ok || d.layer < f.layer {
					lanes[d.lane] = d
				}
				continue
			}
			if d.revision != "" {
				if f, ok := revs[d.revision]; !ok || d.layer < f.layer {
					revs[d.revision] = d
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
		if lane, isStages := strings.CutPrefix(d.key, "lanes."); isStages {
			earlier, ok = lanes[strings.TrimSuffix(lane, ".stages")]
			if lane == "*.stages" {
				earlier, ok = firstLane(lanes, d.layer)
			}
		}
		if rev, isSource := strings.CutPrefix(d.key, "revisions."); isSource {
			earlier, ok = revs[strings.TrimSuffix(rev, ".source")]
			if rev == "*.source" {
				earlier, ok = firstLane(revs, d.layer)
			}
		}
		if !ok || earlier.layer >= d.layer {
			continue
		}
		instead := "give a helper of your own another name"
		if strings.HasPrefix(d.key, "lanes.") {
			instead = "declare a lane of your own (a layer may add versions with extraVersions, and configurations, without it)"
		}
		if strings.HasPrefix(d.key, "revisions.") {
			instead = "add a revision of your own (a DRAFT-… name or a new date, with its schema in a --schemas layer) with its binding"
		}
		errs = append(errs, fmt.Sprintf("%s%s: declared by an earlier layer at %s, and a later layer's declaration changes what it means there: mark the declaration @%s() to change it on purpose, or %s",
			prefix(d.pos), d.what, where(earlier.pos), ExtendAttr, instead))
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return &Error{Msg: strings.Join(compact(errs), "\n")}
	}
	return nil
}

// firstLane is the declaration, in a layer before layer, of the lane (or revision) whose id sorts
// first: the built-in one a pattern constraint over every lane (revision) would change.
func firstLane(lanes map[string]decl, layer int) (decl, bool) {
	for _, id := range SortedKeys(lanes) {
		if lanes[id].layer < layer {
			return lanes[id], true
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
		case name == "lanes":
			for _, lf := range fields(fd.Value) {
				id, _, err := ast.LabelName(lf.Label)
				if err == nil && id != "" {
					out = append(out, decl{lane: id, pos: lf.Pos(), layer: layer})
				}
				for _, sf := range fields(lf.Value) {
					if n, _, err := ast.LabelName(sf.Label); err != nil || n != "stages" {
						continue
					}
					d := decl{key: "lanes." + id + ".stages", what: "the stages of lane " + id, pos: sf.Pos(), layer: layer,
						extend: attrOn(fd) || attrOn(lf) || extends(sf)}
					if err != nil {
						d.key, d.what = "lanes.*.stages", "the stages of every lane (a pattern or computed lane label)"
					}
					out = append(out, d)
				}
			}
		case name == "revisions":
			for _, rf := range fields(fd.Value) {
				id, _, err := ast.LabelName(rf.Label)
				if err == nil && id != "" {
					out = append(out, decl{revision: id, pos: rf.Pos(), layer: layer})
				}
				for _, sf := range fields(rf.Value) {
					if n, _, err := ast.LabelName(sf.Label); err != nil || n != "source" {
						continue
					}
					d := decl{key: "revisions." + id + ".source", what: "the source binding of revision " + id, pos: sf.Pos(), layer: layer,
						extend: attrOn(fd) || attrOn(rf) || extends(sf)}
					if err != nil {
						d.key, d.what = "revisions.*.source", "the source binding of every revision (a pattern or computed revision label)"
					}
					out = append(out, d)
				}
			}
		}
	}
	return out
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
