// Package project is step 4 of the pipeline (strict JSON → schema → contract → projector → policy →
// census → report): one generic engine that executes a CUE compartment binding on a carrier and
// emits the canonical view the policies read (docs/design.md). It reads only the binding's
// allowlisted paths, keeps an absent value distinct from a present null, and never searches
// recursively: a value the binding does not name is invisible, which is the point.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package project

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// View is a canonical view: "content", "structured", "isError", "raised" and "meta", each present
// only when the carrier has it.
type View = map[string]any

// Projector is a compiled compartment binding. It is immutable and safe for concurrent use.
type Projector struct {
	name       string
	selects    bool // a path of the binding selects by value
	root       pointer
	jsonrpc    bool
	content    *contentProjector
	structured *field
	isError    *errorField
	raised     *field
	meta       *field
}

type field struct {
	path   pointer
	decode string
	types  map[string]bool // nil: any type
	inner  *pointer        // followed inside the decoded value, when set
}

type errorField struct {
	path        pointer
	abort, cont map[string]bool
}

type contentProjector struct {
	path          pointer
	declares      bool // a mapping declares a delivery or a provider schema
	decode        string
	types         map[string]bool
	discriminator pointer
	kinds         map[string]blockProjector
}

type blockProjector struct {
	kind     string
	fields   []namedField // sorted by atom name, so views are built in one order
	embedded *embeddedProjector
	delivery string          // how the item reaches the model, "" when undeclared
	accept   func(any) error // the provider's request schema for the item, nil when undeclared
}

// embeddedProjector reads an item whose string at path is the JSON text of a content block: the
// decoded object's discriminator selects the mapping it is read with.
type embeddedProjector struct {
	path          pointer
	discriminator pointer
	kinds         map[string]blockProjector
}

type namedField struct {
	atom string
	field
}

// Options are what a compartment binding may need beyond itself.
type Options struct {
	// Accepts compiles a provider request schema named by a block mapping's accepts into a
	// validator of one carried item; a binding that names one fails to compile without it.
	Accepts func(schema string) (func(any) error, error)
}

// Compile checks and compiles a compartment binding. name is used in errors.
func Compile(name string, c contract.Compartment) (*Projector, error) {
	return CompileWith(name, c, Options{})
}

// CompileWith compiles a compartment binding with options.
func CompileWith(name string, c contract.Compartment, opts Options) (*Projector, error) {
	var err error
	p := &Projector{name: name, jsonrpc: c.Unwrap == "jsonrpc"}
	fail := func(e error) (*Projector, error) { return nil, fmt.Errorf("compartment %s: %w", name, e) }
	if p.root, err = parsePointer(c.Root); err != nil {
		return fail(err)
	}
	if c.Content != nil {
		cp := &contentProjector{decode: c.Content.Decode, types: typeSet(c.Content.Types), kinds: map[string]blockProjector{}}
		if cp.path, err = parsePointer(c.Content.Path); err != nil {
			return fail(err)
		}
		if cp.discriminator, err = parsePointer(c.Content.Discriminator); err != nil {
			return fail(err)
		}
		if cp.kinds, err = compileKinds(c.Content.Kinds, true, opts); err != nil {
			return fail(err)
		}
		for _, bp := range cp.kinds {
			if bp.delivery != "" || bp.accept != nil {
				cp.declares = true
			}
		}
		p.content = cp
	}
	for _, f := range []struct {
		dst **field
		src *contract.Field
	}{{&p.structured, c.Structured}, {&p.raised, c.Raised}, {&p.meta, c.Meta}} {
		if f.src == nil {
			continue
		}
		if *f.dst, err = compileField(f.src); err != nil {
			return fail(err)
		}
	}
	if c.IsError != nil {
		ef := &errorField{abort: set(c.IsError.Abort), cont: set(c.IsError.Continue)}
		if ef.path, err = parsePointer(c.IsError.Path); err != nil {
			return fail(err)
		}
		p.isError = ef
	}
	p.selects = p.anySelects()
	return p, nil
}

// anySelects reports whether a path of the compiled binding selects by value.
func (p *Projector) anySelects() bool {
	sel := p.root.HasSelector()
	fieldSel := func(f *field) {
		if f != nil {
			sel = sel || f.path.HasSelector() || (f.inner != nil && f.inner.HasSelector())
		}
	}
	var kinds func(map[string]blockProjector)
	kinds = func(ks map[string]blockProjector) {
		for _, bp := range ks {
			for i := range bp.fields {
				fieldSel(&bp.fields[i].field)
			}
			if e := bp.embedded; e != nil {
				sel = sel || e.path.HasSelector() || e.discriminator.HasSelector()
				kinds(e.kinds)
			}
		}
	}
	if c := p.content; c != nil {
		sel = sel || c.path.HasSelector() || c.discriminator.HasSelector()
		kinds(c.kinds)
	}
	fieldSel(p.structured)
	fieldSel(p.raised)
	fieldSel(p.meta)
	if p.isError != nil {
		sel = sel || p.isError.path.HasSelector()
	}
	return sel
}

// compileKinds compiles the block mappings of a content binding; embedded is whether a mapping
// may itself read embedded blocks (only at the top: an embedded block holds no further one).
func compileKinds(kinds map[string]contract.BlockMapping, embedded bool, opts Options) (map[string]blockProjector, error) {
	out := make(map[string]blockProjector, len(kinds))
	for typ, m := range kinds {
		bp := blockProjector{kind: m.Kind, delivery: m.Delivery}
		if m.Accepts != "" {
			if opts.Accepts == nil {
				return nil, fmt.Errorf("kind %s: accepts %s: no provider schemas are available to this binding", typ, m.Accepts)
			}
			accept, err := opts.Accepts(m.Accepts)
			if err != nil {
				return nil, fmt.Errorf("kind %s: accepts: %w", typ, err)
			}
			bp.accept = accept
		}
		for atom, f := range m.Fields {
			cf, err := compileField(&f)
			if err != nil {
				return nil, fmt.Errorf("kind %s, atom %s: %w", typ, atom, err)
			}
			bp.fields = append(bp.fields, namedField{atom: atom, field: *cf})
		}
		sort.Slice(bp.fields, func(i, j int) bool { return bp.fields[i].atom < bp.fields[j].atom })
		if e := m.Embedded; e != nil {
			if !embedded {
				return nil, fmt.Errorf("kind %s: an embedded block mapping cannot embed another", typ)
			}
			ep := &embeddedProjector{}
			var err error
			if ep.path, err = parsePointer(e.Path); err != nil {
				return nil, fmt.Errorf("kind %s, embedded: %w", typ, err)
			}
			if ep.discriminator, err = parsePointer(e.Discriminator); err != nil {
				return nil, fmt.Errorf("kind %s, embedded: %w", typ, err)
			}
			if ep.kinds, err = compileKinds(e.Kinds, false, opts); err != nil {
				return nil, fmt.Errorf("kind %s, embedded: %w", typ, err)
			}
			bp.embedded = ep
		}
		out[typ] = bp
	}
	return out, nil
}

func compileField(f *contract.Field) (*field, error) {
	ptr, err := parsePointer(f.Path)
	if err != nil {
		return nil, err
	}
	switch f.Decode {
	case "", "none", "base64", "dataurl-payload", "dataurl-mime", "json":
	default:
		return nil, fmt.Errorf("unknown decoder %q", f.Decode)
	}
	out := &field{path: ptr, decode: f.Decode, types: typeSet(f.Types)}
	if f.Inner != nil {
		if f.Decode != "json" {
			return nil, fmt.Errorf("inner %q needs decode \"json\" (a pointer is followed inside a decoded JSON text), not %q", *f.Inner, f.Decode)
		}
		inner, err := parsePointer(*f.Inner)
		if err != nil {
			return nil, fmt.Errorf("inner: %w", err)
		}
		out.inner = &inner
	}
	return out, nil
}

func typeSet(types []string) map[string]bool {
	if len(types) == 0 {
		return nil
	}
	return set(types)
}

func set(values []string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// Project reads the compartment out of a carrier. A selector of the binding that matches several
// elements reads as absent here: a carrier that can hold such a thing is read with Read, which
// says so (the instrument reads every source and record that way before anything else does).
func (p *Projector) Project(carrier any) View {
	return p.project(carrier, nil)
}

// Read is Project that returns an error naming the compartment and the path when a selector of
// the binding matches several elements of the carrier (bindpath.AmbiguousError): the carrier
// cannot be read one way only, which is bad input, never an outcome.
func (p *Projector) Read(carrier any) (View, error) {
	var fail error
	view := p.project(carrier, &fail)
	if fail != nil {
		return nil, fmt.Errorf("compartment %s: %w", p.name, fail)
	}
	return view, nil
}

// Selects reports whether a path of the binding selects by value: only then can Read fail.
func (p *Projector) Selects() bool { return p.selects }

func (p *Projector) project(carrier any, fail *error) View {
	view := View{}
	root, ok := look(p.root, carrier, fail)
	if !ok {
		return view
	}
	if p.jsonrpc {
		if env, isObj := root.(map[string]any); isObj {
			if _, rpc := env["jsonrpc"]; rpc {
				if e, isErr := env["error"]; isErr {
					view["raised"] = raised(e)
					return view
				}
				if root, ok = env["result"]; !ok {
					return view
				}
			}
		}
	}
	if p.content != nil {
		if v, ok := look(p.content.path, root, fail); ok && (p.content.types == nil || p.content.types[strictjson.TypeName(v)]) {
			p.content.project(view, v, fail)
		}
	}
	if p.structured != nil {
		if v, ok := p.structured.read(root, fail); ok {
			view["structured"] = v
		}
	}
	if p.isError != nil {
		if v, ok := look(p.isError.path, root, fail); ok {
			view["isError"] = p.isError.flag(v)
		}
	}
	if p.raised != nil {
		if v, ok := p.raised.read(root, fail); ok && v != nil {
			view["raised"] = raised(v)
		}
	}
	if p.meta != nil {
		if v, ok := p.meta.read(root, fail); ok {
			view["meta"] = v
		}
	}
	return view
}

// raised canonicalises the carried form of a raised error to {"message": …} when it has one.
func raised(v any) map[string]any {
	switch e := v.(type) {
	case string:
		return map[string]any{"message": e}
	case map[string]any:
		if m, ok := e["message"].(string); ok {
			return map[string]any{"message": m}
		}
	}
	return map[string]any{"value": v}
}

func (e *errorField) flag(v any) any {
	if s, ok := v.(string); ok && (len(e.abort) > 0 || len(e.cont) > 0) {
		switch {
		case e.abort[s]:
			return true
		case e.cont[s]:
			return false
		}
	}
	return v
}

// project reads the content value into the view: its "content" blocks and, beside them, the
// "delivery" list (per block, how it reaches the model, null where its mapping declares nothing)
// when any mapping declares a delivery, and the "rejected" list (the blocks the provider's request
// schema refuses) when any declares accepts. The lists sit beside "content", not in it, so the
// content tasks read the blocks as before.
func (c *contentProjector) project(view View, v any, fail *error) {
	switch c.decode {
	case "text":
		if s, ok := v.(string); ok {
			view["content"] = []any{map[string]any{"kind": "text", "text": s}}
			view["delivery"] = []any{"text"} // a content flattened into one string reaches the model as text
			return
		}
	case "json":
		if parsed, ok := decodeText(v); ok {
			v = parsed
		}
	}
	if v == nil {
		view["content"] = nil // a null list is kept as null, as carried; the policies read it as empty
		return
	}
	items, ok := v.([]any)
	if !ok {
		// The carrier holds something other than a list where the list belongs: one unmapped block
		// keeps it visible to the policies instead of hiding it as an empty list.
		view["content"] = []any{map[string]any{"kind": "unmapped", "carried": v}}
		return
	}
	blocks := make([]any, len(items))
	var deliveries, rejected []any
	if c.declares {
		deliveries, rejected = make([]any, len(items)), []any{}
	}
	anyDelivery, anyAccept := false, false
	for i, item := range items {
		b, bp, embedded, mapped := c.block(item, fail)
		blocks[i] = b
		if !c.declares || !mapped {
			continue
		}
		if bp.delivery != "" {
			deliveries[i] = bp.delivery
			anyDelivery = true
		} else if embedded {
			deliveries[i] = "text" // a block serialised into a text item
		}
		if bp.accept != nil {
			anyAccept = true
			if err := bp.accept(item); err != nil {
				rejected = append(rejected, map[string]any{"block": json.Number(strconv.Itoa(i)), "error": err.Error()})
			}
		}
	}
	view["content"] = blocks
	if anyDelivery {
		view["delivery"] = deliveries
	}
	if anyAccept {
		view["rejected"] = rejected
	}
}

// block reads one item as a block, with the mapping its discriminator selects (the top-level
// one: its delivery and accepts describe the carried item, mapped false when there is none), and
// whether the item held an embedded block.
func (c *contentProjector) block(item any, fail *error) (b map[string]any, bp blockProjector, embedded, mapped bool) {
	d, _ := look(c.discriminator, item, fail)
	typ, _ := d.(string)
	bp, ok := c.kinds[typ]
	if !ok {
		return map[string]any{"kind": "unmapped", "type": d}, bp, false, false
	}
	if bp.embedded != nil {
		if b, ok := bp.embedded.block(item, fail); ok {
			return b, bp, true, true
		}
	}
	return bp.project(item, fail), bp, false, true
}

// decodeText reads v as strict JSON when it is a string.
func decodeText(v any) (any, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	parsed, err := strictjson.Decode("", []byte(s), strictjson.DefaultLimits)
	return parsed, err == nil
}

// project reads one item with the mapping's fields: an absent path leaves the atom absent, a null
// is kept as null.
func (bp *blockProjector) project(item any, fail *error) map[string]any {
	b := make(map[string]any, len(bp.fields)+1)
	b["kind"] = bp.kind
	for _, f := range bp.fields {
		if v, ok := f.read(item, fail); ok {
			b[f.atom] = v
		}
	}
	return b
}

// block reads the item as the content block its string at e.path holds, when that string is
// strict JSON of an object whose discriminator is a string e.kinds maps. Otherwise ok is false and
// the item is read as carried: text that only looks like a block stays text.
func (e *embeddedProjector) block(item any, fail *error) (b map[string]any, ok bool) {
	v, found := look(e.path, item, fail)
	if !found {
		return nil, false
	}
	parsed, ok := decodeText(v)
	if !ok {
		return nil, false
	}
	obj, isObject := parsed.(map[string]any)
	if !isObject {
		return nil, false
	}
	d, _ := look(e.discriminator, obj, fail)
	typ, _ := d.(string)
	bp, mapped := e.kinds[typ]
	if !mapped {
		return nil, false
	}
	return bp.project(obj, fail), true
}

// read looks the field up and decodes it. A value the decoder cannot read is returned as carried,
// so a corrupted payload shows up as a difference rather than disappearing.
func (f *field) read(v any, fail *error) (any, bool) {
	v, ok := look(f.path, v, fail)
	if !ok || (f.types != nil && !f.types[strictjson.TypeName(v)]) {
		return nil, false
	}
	if f.inner != nil {
		// A slot inside a JSON text exists only when the text is strict JSON holding it.
		parsed, ok := decodeText(v)
		if !ok {
			return nil, false
		}
		return look(*f.inner, parsed, fail)
	}
	s, isString := v.(string)
	if !isString {
		return v, true
	}
	switch f.decode {
	case "base64":
		if b, ok := decodeBase64(s); ok {
			return b, true
		}
	case "dataurl-payload":
		if _, data, ok := splitDataURL(s); ok {
			if b, ok := decodeBase64(data); ok {
				return b, true
			}
		}
	case "dataurl-mime":
		if mime, _, ok := splitDataURL(s); ok {
			return mime, true
		}
	case "json":
		if parsed, ok := decodeText(s); ok {
			return parsed, true
		}
	}
	return v, true
}

// decodeBase64 accepts standard base64 with or without padding and returns the canonical padded
// encoding of the same bytes: payload identity is the bytes, not their spelling.
func decodeBase64(s string) (string, bool) {
	enc := base64.StdEncoding
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	b, err := enc.Strict().DecodeString(s)
	if err != nil {
		return "", false
	}
	return base64.StdEncoding.EncodeToString(b), true
}

// splitDataURL splits "data:<mime>[;param…];base64,<data>" into its MIME type and base64 data.
// Only base64 data URLs carry a payload a consumer can decode exactly.
func splitDataURL(s string) (mime, data string, ok bool) {
	rest, found := strings.CutPrefix(s, "data:")
	if !found {
		return "", "", false
	}
	header, data, found := strings.Cut(rest, ",")
	if !found {
		return "", "", false
	}
	params := strings.Split(header, ";")
	if params[len(params)-1] != "base64" {
		return "", "", false
	}
	return params[0], data, true
}
