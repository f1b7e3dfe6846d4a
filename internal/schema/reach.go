package schema

import (
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// A compile reads only what it reaches.
//
// The library validates every document it loads against its meta-schema and indexes all of it
// before it compiles the part asked for. The pinned MCP schemas are 108–181 KB, and what a source
// is checked against (a CallToolResult and the two JSON-RPC responses) reaches 15 to 20 of a
// revision's 91 to 155 definitions: loading the three revisions whole cost the control lane's
// carrier schema 45 of its 70 ms, on the path of the first record of every run that reads one.
//
// So each schema compiles with a compiler of its own (they also compile in parallel, with no
// lock to share), to which reach hands every document the schema reaches, each decoded once per
// Validator; a document reached only through its definitions ("#/$defs/Name…" or
// "#/definitions/Name…") is cut to the definitions reached, so the library reads those. Pointers
// into a cut document are those of the whole one, so a compiled schema, and every error it
// reports, is the same. Where the references cannot be followed with certainty here (an $id
// below a document's root, anchors, dynamic references, a document out of reach), nothing is
// cut: the library then reads every document whole, as it did.

// docCache decodes the documents of the schemas directory, each once, for every compiler of a
// Validator. The decoded trees are shared and never modified (neither the library nor cut writes
// to them).
type docCache struct {
	fsys fs.FS
	// display is the name a path is shown under in a decoding error (nil: the path itself).
	display func(string) string
	docs    sync.Map // path → *lazyDoc, as decoded
	// own are the paths of the user revisions' schemas, ids their root $ids (ids.go): both set
	// before anything compiles. A schema at one of own is compiled without its root $id, and
	// every schema with its references to ids rewritten (views).
	own   map[string]bool
	ids   revisionIDs
	views sync.Map // path → *lazyDoc, as compiled (own paths, and every path when ids is not empty)
}

// lazyDoc is a document decoded on first use.
type lazyDoc struct {
	once sync.Once
	doc  any
	err  error
}

// displayName is the name the file at path inside the schemas directory is shown under.
func (c *docCache) displayName(path string) string {
	if c.display != nil {
		return c.display(path)
	}
	return path
}

// get returns the document at path inside the schemas directory as it is compiled: decoded, and
// for a user revision's schema read under its own place (ids.go).
func (c *docCache) get(path string) (any, error) {
	if !c.own[path] && len(c.ids) == 0 {
		return c.raw(path)
	}
	e, ok := c.views.Load(path)
	if !ok {
		e, _ = c.views.LoadOrStore(path, &lazyDoc{})
	}
	d := e.(*lazyDoc)
	d.once.Do(func() {
		doc, err := c.raw(path)
		switch {
		case err != nil:
			d.err = err
		case c.own[path]:
			d.doc = c.ids.underOwnPlace(path, doc)
		default:
			d.doc = doc
			if base, err := url.Parse(baseURL + path); err == nil {
				d.doc, _ = c.ids.rewriteRefs(doc, base)
			}
		}
	})
	return d.doc, d.err
}

// raw returns the decoded document at path inside the schemas directory, as it is.
func (c *docCache) raw(path string) (any, error) {
	e, ok := c.docs.Load(path)
	if !ok {
		e, _ = c.docs.LoadOrStore(path, &lazyDoc{})
	}
	d := e.(*lazyDoc)
	d.once.Do(func() {
		data, err := safeio.ReadFile(c.fsys, path, safeio.MaxFileBytes)
		if err != nil {
			d.err = err
			return
		}
		// strictjson: a duplicate member in a user's carrier schema is an error naming its line,
		// not a silent choice of one of the two.
		name := path
		if c.display != nil {
			name = c.display(path)
		}
		d.doc, d.err = strictjson.Decode(name, data, strictjson.Limits{MaxBytes: safeio.MaxFileBytes})
	})
	return d.doc, d.err
}

// fsLoader serves baseURL from a docCache and nothing else.
type fsLoader struct{ docs *docCache }

// Load implements jsonschema.URLLoader.
func (l fsLoader) Load(rawURL string) (any, error) {
	name, err := schemaPath(rawURL)
	if err != nil {
		return nil, err
	}
	return l.docs.get(name)
}

// schemaPath is the path inside the schemas directory that an absolute URL under baseURL names.
func schemaPath(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	if u.Scheme+":///" != baseURL || u.Host != "" {
		return "", fmt.Errorf("refusing to load %s: schemas are read only from the schemas directory", rawURL)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if !fs.ValidPath(name) {
		return "", fmt.Errorf("invalid schema path %q", name)
	}
	return name, nil
}

// compile compiles the schemas at roots (each a path inside the schemas directory, with a
// fragment or without) with a compiler of their own, holding what they reach (see reach).
func (v *Validator) compile(roots ...string) ([]*jsonschema.Schema, error) {
	c := newCompiler(fsLoader{v.docs})
	if docs, ok := v.docs.reach(roots); ok {
		for _, path := range slices.Sorted(maps.Keys(docs)) {
			doc, _ := v.docs.get(path) // reach read it
			if d := docs[path]; !d.whole {
				doc = cut(doc, d)
			}
			if err := c.AddResource(baseURL+path, doc); err != nil {
				return nil, fmt.Errorf("schema: %s: %w", path, err)
			}
		}
	}
	out := make([]*jsonschema.Schema, len(roots))
	for i, r := range roots {
		s, err := c.Compile(baseURL + r)
		if err != nil {
			return nil, fmt.Errorf("schema: compiling %s: %w", r, err)
		}
		out[i] = s
	}
	return out, nil
}

// reached is what a compile reaches in one document: all of it, or the named members of one of
// its definition containers.
type reached struct {
	whole     bool
	container string          // "$defs" or "definitions"
	names     map[string]bool // the definitions reached
}

// reach follows the references from roots through the documents of the schemas directory and
// says what of each document the compile reaches. ok is false when a reference cannot be followed
// with certainty (see the top of this file).
func (c *docCache) reach(roots []string) (map[string]*reached, bool) {
	docs := map[string]*reached{}
	type part struct{ path, name string } // name "" is the whole document
	var todo []part
	mark := func(path, frag string) {
		d := docs[path]
		if d == nil {
			d = &reached{names: map[string]bool{}}
			docs[path] = d
		}
		container, name, ok := definition(frag)
		switch {
		case d.whole:
		case !ok || (d.container != "" && d.container != container):
			d.whole = true
			todo = append(todo, part{path, ""})
		case !d.names[name]:
			d.container = container
			d.names[name] = true
			todo = append(todo, part{path, name})
		}
	}
	for _, r := range roots {
		path, frag, _ := strings.Cut(r, "#")
		mark(path, frag)
	}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		doc, err := c.get(p.path)
		if err != nil {
			return nil, false
		}
		base, ok := docBase(p.path, doc)
		if !ok {
			return nil, false
		}
		node := doc
		if p.name != "" {
			m, _ := doc.(map[string]any)
			defs, _ := m[docs[p.path].container].(map[string]any)
			if node, ok = defs[p.name]; !ok {
				return nil, false // a reference to nothing: the library says so
			}
		}
		if !refs(node, p.name == "", func(ref string) bool {
			u, err := base.Parse(ref)
			if err != nil {
				return false
			}
			frag := u.Fragment
			u.Fragment, u.RawFragment = "", ""
			switch {
			case *u == *base: // the document itself, which may be named by its $id
				mark(p.path, frag)
			case u.Scheme+":///" == baseURL && u.Host == "":
				mark(strings.TrimPrefix(u.Path, "/"), frag)
			default:
				return false
			}
			return true
		}) {
			return nil, false
		}
	}
	return docs, true
}

// definition splits a fragment "/$defs/Name…" or "/definitions/Name…" into its container and
// the definition's name.
func definition(frag string) (container, name string, ok bool) {
	for _, c := range []string{"$defs", "definitions"} {
		if rest, found := strings.CutPrefix(frag, "/"+c+"/"); found {
			name, _, _ = strings.Cut(rest, "/")
			name = strictjson.UnescapeToken(name)
			return c, name, name != ""
		}
	}
	return "", "", false
}

// docBase is the URL that the references of the document at path resolve against: its root $id
// when it has one, else its place in the schemas directory.
func docBase(path string, doc any) (*url.URL, bool) {
	base, err := url.Parse(baseURL + path)
	if err != nil {
		return nil, false
	}
	m, _ := doc.(map[string]any)
	if _, ok := m["id"].(string); ok {
		return nil, false // a draft-04 id, or not: either way not followed here
	}
	if id, ok := m["$id"]; ok {
		s, isString := id.(string)
		if !isString {
			return nil, false
		}
		if base, err = base.Parse(s); err != nil {
			return nil, false
		}
		base.Fragment, base.RawFragment = "", "" // "$id": "…#" names the same document
	}
	return base, true
}

// refs calls ref with every "$ref" in a schema node, stopping at the first false. It is false,
// too, for what changes how references resolve below a document's root: an "$id" (or draft-04's
// "id") there, anchors and dynamic references. It may also see a "$ref" inside an enum or a const, which is not a
// reference: then it reaches more than needed, never less.
func refs(node any, root bool, ref func(string) bool) bool {
	switch n := node.(type) {
	case map[string]any:
		for k, x := range n {
			switch k {
			case "$id":
				if !root {
					return false
				}
			case "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor":
				return false
			case "id": // draft-04's $id, when it is a string
				if _, ok := x.(string); ok {
					return false
				}
			case "$ref":
				if s, ok := x.(string); ok {
					if !ref(s) {
						return false
					}
					continue
				}
			}
			if !refs(x, false, ref) {
				return false
			}
		}
	case []any:
		for _, x := range n {
			if !refs(x, false, ref) {
				return false
			}
		}
	}
	return true
}

// cut is doc with its definition container holding only the definitions reached.
func cut(doc any, d *reached) any {
	m := doc.(map[string]any) // reach read a container in it
	out := maps.Clone(m)
	defs := m[d.container].(map[string]any)
	kept := make(map[string]any, len(d.names))
	for name := range d.names {
		kept[name] = defs[name]
	}
	out[d.container] = kept
	return out
}
