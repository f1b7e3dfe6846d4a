package reproduce

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Check is one assertion of the consumer decision, in terms of a carrier document: the value the
// consumer reads at a place must be what was sent (Op equal), must not be there (absent), the
// content list must hold as many items (count), an item must be of a kind (kind), or the error
// decision must be what the source says (decision). Messages name what must reach the stage.
type Check struct {
	Message string `json:"message"`
	Op      string `json:"op"`
	Target  Target `json:"target"`
	// Want is the expected value as exact JSON text (equal), the item count (count), the
	// decision (decision), or the carrier item types that read as the kind (kind, JSON array).
	Want string `json:"want"`
}

// Check operations.
const (
	OpEqual    = "equal"
	OpAbsent   = "absent"
	OpCount    = "count"
	OpKind     = "kind"
	OpDecision = "decision"
)

// Target is where in a carrier document a check reads, following the stage's compartment binding:
// a pointer to a slot and its decoder; or a content item's field (List, ListDecode, Index, Field,
// Decode); then Rest inside the decoded value. Unbound says the binding has no place for it.
type Target struct {
	Pointer    string `json:"pointer,omitempty"`
	List       string `json:"list,omitempty"`
	ListDecode string `json:"listDecode,omitempty"`
	Index      int    `json:"index,omitempty"`
	// Item is true when the target is inside the content item at Index.
	Item          bool     `json:"item,omitempty"`
	Discriminator string   `json:"discriminator,omitempty"`
	Field         string   `json:"field,omitempty"`
	Decode        string   `json:"decode,omitempty"`
	Rest          string   `json:"rest,omitempty"`
	IsError       string   `json:"isError,omitempty"`
	Abort         []string `json:"abort,omitempty"`
	Continue      []string `json:"continue,omitempty"`
	Raised        string   `json:"raised,omitempty"`
	Unbound       string   `json:"unbound,omitempty"`
}

// reading is a compartment binding applied to one document: the pointers resolved against it
// (a JSON-RPC envelope unwrapped as the projector unwraps it).
type reading struct {
	c    contract.Compartment
	doc  any
	root string // the result's pointer in doc
	// raisedEnvelope is set when doc is a JSON-RPC error response the binding unwraps.
	raisedEnvelope string
}

func newReading(c contract.Compartment, doc any) reading {
	r := reading{c: c, doc: doc, root: c.Root}
	if c.Unwrap == "jsonrpc" {
		if env, ok := lookup(doc, c.Root).(map[string]any); ok {
			if _, rpc := env["jsonrpc"]; rpc {
				if _, isErr := env["error"]; isErr {
					r.raisedEnvelope = c.Root + "/error"
				} else {
					r.root = c.Root + "/result"
				}
			}
		}
	}
	return r
}

// lookup follows an RFC 6901 pointer as the projector does (strictjson.Lookup); nil when absent
// (callers that care use has).
func lookup(doc any, ptr string) any {
	v, _ := strictjson.Lookup(doc, ptr)
	return v
}

// items is the content list of the reading's document, decoded as the binding decodes it.
func (r reading) items() ([]any, bool) {
	cb := r.c.Content
	if cb == nil {
		return nil, false
	}
	v, ok := strictjson.Lookup(r.doc, r.root+cb.Path)
	if !ok {
		return nil, false
	}
	switch s, isString := v.(string); {
	case cb.Decode == "text" && isString:
		return []any{map[string]any{"text": s}}, true
	case cb.Decode == "json" && isString:
		parsed, err := strictjson.Decode("", []byte(s), strictjson.DefaultLimits)
		if err != nil {
			return nil, false
		}
		v = parsed
	}
	list, ok := v.([]any)
	return list, ok
}

// field is the target of a block atom of item i: the item's type selects the mapping, whose
// field gives the path and the decoder.
func (r reading) field(i int, atom, rest string) Target {
	cb := r.c.Content
	if cb == nil {
		return Target{Unbound: "the binding reads no content list"}
	}
	t := itemTarget(r, i)
	t.Rest = rest
	list, _ := r.items()
	if cb.Decode == "text" {
		if v, ok := strictjson.Lookup(r.doc, t.List); ok {
			if _, isString := v.(string); isString {
				if atom != "text" {
					return Target{Unbound: fmt.Sprintf("the content is one string: it has no %s", atom)}
				}
				t.Field = "/text"
				return t
			}
		}
	}
	if i >= len(list) {
		return Target{Unbound: fmt.Sprintf("the content has no item %d", i)}
	}
	typ, _ := lookup(list[i], cb.Discriminator).(string)
	m, ok := cb.Kinds[typ]
	if !ok {
		return Target{Unbound: fmt.Sprintf("item %d is of type %q, which the binding does not map", i, typ)}
	}
	f, ok := m.Fields[atom]
	if !ok {
		return Target{Unbound: fmt.Sprintf("a %s item has no place for %s", typ, atom)}
	}
	t.Field, t.Decode = f.Path, decoder(f.Decode)
	return t
}

func decoder(d string) string {
	if d == "none" {
		return ""
	}
	return d
}

// slot is the target of a compartment slot (structured, meta), then rest inside it.
func (r reading) slot(f *contract.Field, name, rest string) Target {
	if f == nil {
		return Target{Unbound: "the binding reads no " + name}
	}
	return Target{Pointer: r.root + f.Path, Decode: decoder(f.Decode), Rest: rest}
}

func (r reading) decision() Target {
	t := Target{}
	if r.raisedEnvelope != "" {
		t.Raised = r.raisedEnvelope
		return t
	}
	if e := r.c.IsError; e != nil {
		t.IsError, t.Abort, t.Continue = r.root+e.Path, e.Abort, e.Continue
	}
	if f := r.c.Raised; f != nil {
		t.Raised, t.Decode = r.root+f.Path, decoder(f.Decode)
	}
	return t
}

// plan turns a binding's diagnostics into checks on two documents: the source (W0 as the raw
// server answers it, through the canonical binding) and the lane's carrier (through the stage's
// compartment binding). Both sides get the same checks, each pointing where its binding reads.
func plan(diags []map[string]any, sourceView project.View, src, lane reading, stage string) (direct, observed []Check, err error) {
	seen := map[string]bool{}
	add := func(msg, op, want string, ts, to Target) {
		key := msg + "\x00" + op + "\x00" + want
		if seen[key] {
			return
		}
		seen[key] = true
		direct = append(direct, Check{Message: msg, Op: op, Target: ts, Want: want})
		observed = append(observed, Check{Message: msg, Op: op, Target: to, Want: want})
	}
	for _, d := range diags {
		atom, _ := d["atom"].(string)
		path, _ := d["path"].(string)
		kind, _ := d["kind"].(string)
		expected, hasExpected := d["expected"]
		// value checks one value, which each side reads where at says: absent at the stage
		// (absentMsg) when the lane added it, else W0's value (equalMsg) when the diagnostic
		// gives it.
		value := func(label, absentMsg, equalMsg string, at func(reading) Target) {
			if kind == "added" {
				add(fmt.Sprintf(absentMsg, label, stage), OpAbsent, "", at(src), at(lane))
			} else if hasExpected {
				add(fmt.Sprintf(equalMsg, valued(label, expected), stage), OpEqual, exact(expected), at(src), at(lane))
			}
		}
		switch {
		case atom == "block.count":
			n := len(contentOf(sourceView))
			add(fmt.Sprintf("content must reach %s with its %d items", stage, n), OpCount, strconv.Itoa(n),
				listTarget(src), listTarget(lane))
		case atom == "block.kind":
			i := blockIndex(d)
			want, _ := expected.(string)
			add(fmt.Sprintf("content[%d] must reach %s as a %s block", i, stage, want), OpKind, kindTypes(src.c, want),
				itemTarget(src, i), itemTarget(lane, i))
			observed[len(observed)-1].Want = kindTypes(lane.c, want)
		case atom == "block.primary":
			i := blockIndex(d)
			exp, _ := expected.(map[string]any)
			for _, member := range contract.SortedKeys(exp) {
				add(fmt.Sprintf("%s must reach %s", valued(fmt.Sprintf("content[%d].%s", i, member), exp[member]), stage), OpEqual, exact(exp[member]),
					src.field(i, member, ""), lane.field(i, member, ""))
			}
		case strings.HasPrefix(atom, "block."):
			i := blockIndex(d)
			name := strings.TrimPrefix(atom, "block.")
			rest := strings.TrimPrefix(path, fmt.Sprintf("/%d/%s", i, strictjson.EscapeToken(name)))
			value(fmt.Sprintf("content[%d].%s%s", i, name, dotted(rest)), "%s must not appear at %s (W0 has none)", "%s must reach %s",
				func(r reading) Target { return r.field(i, name, rest) })
		case atom == "structured.value":
			value("structuredContent"+dotted(path), "%s must not appear at %s (W0 has none)", "%s must reach %s exactly",
				func(r reading) Target { return r.slot(r.c.Structured, "structured slot", path) })
		case strings.HasPrefix(atom, "structured."):
			// The state, type and relation of the structured slot all rest on the slot as sent.
			if v, ok := sourceView["structured"]; ok {
				add(fmt.Sprintf("%s must reach %s as sent", valued("structuredContent", v), stage), OpEqual, exact(v),
					src.slot(src.c.Structured, "structured slot", ""), lane.slot(lane.c.Structured, "structured slot", ""))
			} else {
				add(fmt.Sprintf("structuredContent must stay absent at %s (W0 has none)", stage), OpAbsent, "",
					src.slot(src.c.Structured, "structured slot", ""), lane.slot(lane.c.Structured, "structured slot", ""))
			}
		case atom == "error.decision":
			want, _ := expected.(string)
			add(fmt.Sprintf("the error decision must reach %s as %s (W0 says %s)", stage, want, decisionWords(want)), OpDecision, want, src.decision(), lane.decision())
		case atom == "result._meta":
			value("_meta"+dotted(path), "%s must not reach %s", "%s must reach %s",
				func(r reading) Target { return r.slot(r.c.Meta, "result _meta", path) })
		default:
			return nil, nil, fmt.Errorf("no reproduction for atom %s (a custom atom: its diagnostic path has no carrier meaning reproduce knows)", atom)
		}
	}
	if len(direct) == 0 {
		return nil, nil, fmt.Errorf("the diagnostics give no check")
	}
	return direct, observed, nil
}

func listTarget(r reading) Target {
	if r.c.Content == nil {
		return Target{Unbound: "the binding reads no content list"}
	}
	return Target{List: r.root + r.c.Content.Path, ListDecode: r.c.Content.Decode}
}

func itemTarget(r reading, i int) Target {
	t := listTarget(r)
	if t.Unbound == "" {
		t.Index, t.Item, t.Discriminator = i, true, r.c.Content.Discriminator
	}
	return t
}

// kindTypes lists, as a JSON array, the carrier item types the binding reads as a kind.
func kindTypes(c contract.Compartment, kind string) string {
	var out []string
	if c.Content != nil {
		for typ, m := range c.Content.Kinds {
			if m.Kind == kind {
				out = append(out, typ)
			}
		}
	}
	sort.Strings(out)
	b, _ := json.Marshal(out)
	return string(b)
}

func contentOf(v project.View) []any {
	l, _ := v["content"].([]any)
	return l
}

func blockIndex(d map[string]any) int {
	if n, ok := d["block"].(json.Number); ok {
		i, _ := strconv.Atoi(n.String())
		return i
	}
	p, _ := d["path"].(string)
	tok, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	i, _ := strconv.Atoi(tok)
	return i
}

// dotted writes a pointer as a property path: /a/0/b as .a.0.b.
func dotted(ptr string) string {
	if ptr == "" {
		return ""
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		parts[i] = strictjson.UnescapeToken(p)
	}
	return "." + strings.Join(parts, ".")
}

// exact is a value's JSON text with its numbers as written.
func exact(v any) string {
	b, err := strictjson.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// valued is a label followed by the value when the value is short enough to read in a test's
// name; a longer one is in the check's want.
func valued(label string, v any) string {
	if s := exact(v); len(s) <= 40 {
		return label + " " + s
	}
	return label
}

// short is exact cut to 60 bytes for a message, at a character.
func short(v any) string {
	s := exact(v)
	if len(s) > 60 {
		n := 57
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n] + "…"
	}
	return s
}

func decisionWords(d string) string {
	switch d {
	case "abort":
		return "the call failed"
	case "continue":
		return "the call succeeded: isError false"
	}
	return "nothing about an error"
}
