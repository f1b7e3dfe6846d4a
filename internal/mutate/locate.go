package mutate

import (
	"strconv"

	"github.com/contractcheck/contractcheck/internal/bindpath"
	"github.com/contractcheck/contractcheck/internal/contract"
)

// Operators find what they change the way the projector reads it: through the lane stage's
// compartment binding (root, JSON-RPC unwrap, content list, discriminator, block field paths), so
// one operator works on every MCP-shaped lane and on any lane whose binding names the atom.

// steps parses a binding path (bindpath: a JSON pointer whose steps may select an array element by
// its members' values); false for one that does not parse (the contract loader refuses those).
func steps(ptr string) ([]bindpath.Step, bool) {
	p, err := bindpath.Parse(ptr)
	if err != nil {
		return nil, false
	}
	return p.Steps(), true
}

// lookup follows a binding path as the projector does: a selecting step reads the one element of
// an array that matches (none, or several, is not found).
func lookup(n *Node, ptr string) (*Node, bool) {
	sts, ok := steps(ptr)
	if !ok {
		return nil, false
	}
	return follow(n, sts)
}

// follow follows parsed steps.
func follow(n *Node, sts []bindpath.Step) (*Node, bool) {
	for _, st := range sts {
		var ok bool
		if n, ok = child(n, st.Token); !ok {
			return nil, false
		}
		if st.Select != nil {
			if n, ok = selectOne(n, st.Select); !ok {
				return nil, false
			}
		}
	}
	return n, n != nil
}

// child follows one reference token.
func child(n *Node, t string) (*Node, bool) {
	switch {
	case n == nil:
		return nil, false
	case n.Kind == Object:
		return n.Get(t)
	case n.Kind == Array:
		i, err := strconv.Atoi(t)
		if err != nil || i < 0 || i >= len(n.Items) {
			return nil, false
		}
		return n.Items[i], true
	}
	return nil, false
}

// selectOne is the one element of an array that is an object holding every tested member with
// its value; false when n is no array, or no element or several match.
func selectOne(n *Node, tests []bindpath.Test) (*Node, bool) {
	if n == nil || n.Kind != Array {
		return nil, false
	}
	var found *Node
	for _, it := range n.Items {
		if !elementMatches(it, tests) {
			continue
		}
		if found != nil {
			return nil, false
		}
		found = it
	}
	return found, found != nil
}

// elementMatches reports whether an element is an object holding every tested member with exactly the
// tested value (bindpath: a string byte for byte, a bool, a present null).
func elementMatches(it *Node, tests []bindpath.Test) bool {
	if it == nil || it.Kind != Object {
		return false
	}
	for _, t := range tests {
		v, ok := it.Get(t.Member)
		if !ok {
			return false
		}
		switch want := t.Value.(type) {
		case string:
			if v.Kind != String || v.Text != want {
				return false
			}
		case bool:
			if v.Kind != Bool || v.Bool != want {
				return false
			}
		case nil:
			if v.Kind != Null {
				return false
			}
		}
	}
	return true
}

// parentOf returns the object holding the path's last member, and that member's key; false when
// the last step selects an element (it names no member).
func parentOf(n *Node, ptr string) (*Node, string, bool) {
	sts, ok := steps(ptr)
	if !ok || len(sts) == 0 || sts[len(sts)-1].Select != nil {
		return nil, "", false
	}
	parent, ok := follow(n, sts[:len(sts)-1])
	if !ok || parent.Kind != Object {
		return nil, "", false
	}
	return parent, sts[len(sts)-1].Token, true
}

// remove deletes the member a pointer names.
func remove(n *Node, ptr string) bool {
	parent, key, ok := parentOf(n, ptr)
	return ok && parent.Delete(key)
}

// put sets the member a path names, creating objects on the way (a selecting step must find its
// element: it is not made).
func put(n *Node, ptr string, v *Node) bool {
	sts, ok := steps(ptr)
	if !ok || len(sts) == 0 || sts[len(sts)-1].Select != nil {
		return false
	}
	for _, st := range sts[:len(sts)-1] {
		if n.Kind != Object {
			return false
		}
		next, ok := n.Get(st.Token)
		if !ok {
			if st.Select != nil {
				return false
			}
			next = &Node{Kind: Object, Keys: []string{}, Vals: []*Node{}}
			n.Set(st.Token, next)
		}
		n = next
		if st.Select != nil {
			if n, ok = selectOne(n, st.Select); !ok {
				return false
			}
		}
	}
	if n.Kind != Object {
		return false
	}
	n.Set(sts[len(sts)-1].Token, v)
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
