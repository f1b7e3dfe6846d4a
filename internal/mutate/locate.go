package mutate

import (
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Operators find what they change the way the projector reads it: through the lane stage's
// compartment binding (root, JSON-RPC unwrap, content list, discriminator, block field paths), so
// one operator works on every MCP-shaped lane and on any lane whose binding names the atom.

func tokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		parts[i] = strictjson.UnescapeToken(p)
	}
	return parts
}

// lookup follows a JSON pointer.
func lookup(n *Node, ptr string) (*Node, bool) {
	for _, t := range tokens(ptr) {
		switch {
		case n == nil:
			return nil, false
		case n.Kind == Object:
			v, ok := n.Get(t)
			if !ok {
				return nil, false
			}
			n = v
		case n.Kind == Array:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(n.Items) {
				return nil, false
			}
			n = n.Items[i]
		default:
			return nil, false
		}
	}
	return n, n != nil
}

// parentOf returns the object holding the pointer's last member, and that member's key.
func parentOf(n *Node, ptr string) (*Node, string, bool) {
	ts := tokens(ptr)
	if len(ts) == 0 {
		return nil, "", false
	}
	parent, ok := lookup(n, "/"+strings.Join(escapeAll(ts[:len(ts)-1]), "/"))
	if len(ts) == 1 {
		parent, ok = n, true
	}
	if !ok || parent.Kind != Object {
		return nil, "", false
	}
	return parent, ts[len(ts)-1], true
}

func escapeAll(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = strictjson.EscapeToken(t)
	}
	return out
}

// remove deletes the member a pointer names.
func remove(n *Node, ptr string) bool {
	parent, key, ok := parentOf(n, ptr)
	return ok && parent.Delete(key)
}

// put sets the member a pointer names, creating objects on the way.
func put(n *Node, ptr string, v *Node) bool {
	ts := tokens(ptr)
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts[:len(ts)-1] {
		if n.Kind != Object {
			return false
		}
		next, ok := n.Get(t)
		if !ok {
			next = &Node{Kind: Object, Keys: []string{}, Vals: []*Node{}}
			n.Set(t, next)
		}
		n = next
	}
	if n.Kind != Object {
		return false
	}
	n.Set(ts[len(ts)-1], v)
	return true
}

// compartmentRoot is where a compartment's paths start in the carrier; nil when the carrier has
// no such place (or is a JSON-RPC error response, which carries no result).
func compartmentRoot(carrier *Node, c contract.Compartment) *Node {
	root, ok := lookup(carrier, c.Root)
	if !ok {
		return nil
	}
	if c.Unwrap == "jsonrpc" {
		if _, rpc := root.Get("jsonrpc"); rpc {
			if _, isErr := root.Get("error"); isErr {
				return nil
			}
			res, ok := root.Get("result")
			if !ok {
				return nil
			}
			return res
		}
	}
	return root
}

// block is one content item and the mapping that reads it.
type block struct {
	index   int
	item    *Node
	mapping contract.BlockMapping
	typ     string
}

// contentList returns the compartment's content list node when the binding reads a JSON array in
// place (decode "none"); lists carried as JSON text or flattened strings are out of reach.
func contentList(carrier *Node, c contract.Compartment) (*Node, bool) {
	if c.Content == nil || (c.Content.Decode != "" && c.Content.Decode != "none") {
		return nil, false
	}
	root := compartmentRoot(carrier, c)
	if root == nil {
		return nil, false
	}
	list, ok := lookup(root, c.Content.Path)
	if !ok || list.Kind != Array {
		return nil, false
	}
	return list, true
}

// blocks returns the mapped content items of a compartment.
func blocks(carrier *Node, c contract.Compartment) []block {
	list, ok := contentList(carrier, c)
	if !ok {
		return nil
	}
	var out []block
	for i, item := range list.Items {
		d, ok := lookup(item, c.Content.Discriminator)
		if !ok || d.Kind != String {
			continue
		}
		m, ok := c.Content.Kinds[d.Text]
		if !ok {
			continue
		}
		out = append(out, block{index: i, item: item, mapping: m, typ: d.Text})
	}
	return out
}

// field returns an atom's binding in a block and the value it finds there.
func (b block) field(atom string) (contract.Field, *Node, bool) {
	f, ok := b.mapping.Fields[atom]
	if !ok {
		return contract.Field{}, nil, false
	}
	v, ok := lookup(b.item, f.Path)
	if !ok || !typeAllowed(f.Types, v) {
		return f, nil, false
	}
	return f, v, true
}

func typeAllowed(types []string, v *Node) bool {
	if len(types) == 0 {
		return true
	}
	name := [...]string{"null", "boolean", "number", "string", "array", "object"}[v.Kind]
	for _, t := range types {
		if t == name {
			return true
		}
	}
	return false
}

// slot returns a compartment field's root and value (structured slot, error flag, result _meta).
func slot(carrier *Node, c contract.Compartment, f *contract.Field) (root, v *Node, ok bool) {
	if f == nil {
		return nil, nil, false
	}
	root = compartmentRoot(carrier, c)
	if root == nil {
		return nil, nil, false
	}
	v, ok = lookup(root, f.Path)
	if ok && !typeAllowed(f.Types, v) {
		return root, nil, false
	}
	return root, v, ok
}
