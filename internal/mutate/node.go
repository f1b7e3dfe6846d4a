package mutate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Kind is the JSON type of a Node.
type Kind int

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
	// Raw is JSON text written verbatim (a record embedded in a case as it was written).
	Raw
)

// Node is an ordered JSON value: object members keep their order and numbers their spelling, so
// an operator changes exactly what it means to change and a control can change only the spelling.
type Node struct {
	Kind  Kind
	Bool  bool
	Text  string  // a string's value, or a number's literal
	Items []*Node // array elements
	Keys  []string
	Vals  []*Node // object members, in order
	Raw   []byte  // verbatim JSON text of a Raw node
}

// Parse reads one JSON document into an ordered tree, with the strict reader
// (strictjson.DecodeOrdered), so duplicate keys, invalid UTF-8 and over-deep input are errors named
// by file, line and column, in one reading.
func Parse(file string, data []byte) (*Node, error) {
	v, err := strictjson.DecodeOrdered(file, data, strictjson.DefaultLimits)
	if err != nil {
		return nil, err
	}
	return fromOrdered(v), nil
}

// fromOrdered converts what strictjson.DecodeOrdered read into a Node: objects in their members'
// order, numbers as written.
func fromOrdered(v any) *Node {
	switch t := v.(type) {
	case nil:
		return &Node{Kind: Null}
	case bool:
		return &Node{Kind: Bool, Bool: t}
	case json.Number:
		return &Node{Kind: Number, Text: string(t)}
	case string:
		return &Node{Kind: String, Text: t}
	case []any:
		n := &Node{Kind: Array, Items: make([]*Node, 0, len(t))}
		for _, item := range t {
			n.Items = append(n.Items, fromOrdered(item))
		}
		return n
	case *strictjson.Object:
		n := &Node{Kind: Object, Keys: t.Keys, Vals: make([]*Node, 0, len(t.Vals))}
		for _, val := range t.Vals {
			n.Vals = append(n.Vals, fromOrdered(val))
		}
		return n
	}
	panic(fmt.Sprintf("mutate: strictjson gave a %T", v))
}

// FromTree builds an ordered node from a strictjson tree (object keys sorted).
func FromTree(v any) *Node {
	b, err := strictjson.Marshal(v)
	if err != nil {
		panic(err) // a strictjson tree always marshals
	}
	n, err := Parse("", b)
	if err != nil {
		panic(err)
	}
	return n
}

// Str returns a string node.
func Str(s string) *Node { return &Node{Kind: String, Text: s} }

// Clone returns a deep copy.
func (n *Node) Clone() *Node {
	c := *n
	if n.Items != nil {
		c.Items = make([]*Node, len(n.Items))
		for i, it := range n.Items {
			c.Items[i] = it.Clone()
		}
	}
	if n.Keys != nil {
		c.Keys = append([]string{}, n.Keys...)
		c.Vals = make([]*Node, len(n.Vals))
		for i, v := range n.Vals {
			c.Vals[i] = v.Clone()
		}
	}
	return &c
}

// Get returns an object member.
func (n *Node) Get(key string) (*Node, bool) {
	if n == nil || n.Kind != Object {
		return nil, false
	}
	for i, k := range n.Keys {
		if k == key {
			return n.Vals[i], true
		}
	}
	return nil, false
}

// Set replaces an object member, or appends it.
func (n *Node) Set(key string, v *Node) {
	for i, k := range n.Keys {
		if k == key {
			n.Vals[i] = v
			return
		}
	}
	n.Keys = append(n.Keys, key)
	n.Vals = append(n.Vals, v)
}

// Delete removes an object member and reports whether it was there.
func (n *Node) Delete(key string) bool {
	for i, k := range n.Keys {
		if k == key {
			n.Keys = append(n.Keys[:i:i], n.Keys[i+1:]...)
			n.Vals = append(n.Vals[:i:i], n.Vals[i+1:]...)
			return true
		}
	}
	return false
}

// Tree converts the node to a strictjson tree (map[string]any, []any, json.Number, …).
func (n *Node) Tree() any {
	switch n.Kind {
	case Null:
		return nil
	case Bool:
		return n.Bool
	case Number:
		return json.Number(n.Text)
	case String:
		return n.Text
	case Array:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Tree()
		}
		return out
	}
	out := make(map[string]any, len(n.Keys))
	for i, k := range n.Keys {
		out[k] = n.Vals[i].Tree()
	}
	return out
}

// Walk calls f on every node, depth first, with its JSON pointer.
func (n *Node) Walk(ptr string, f func(ptr string, n *Node)) {
	f(ptr, n)
	switch n.Kind {
	case Array:
		for i, it := range n.Items {
			it.Walk(ptr+"/"+strconv.Itoa(i), f)
		}
	case Object:
		for i, k := range n.Keys {
			n.Vals[i].Walk(ptr+"/"+strictjson.EscapeToken(k), f)
		}
	}
}

// Style is how a node is written. The zero style is compact JSON with minimal escapes.
type Style struct {
	Indent        string // newline and this indent per level; "" is compact
	Colon         string // written after each key's colon (only with Indent)
	EscapeLetters bool   // write every letter (ASCII or not) as a \u escape
	EscapeSolidus bool   // write '/' as "\/"
	// Inner applies from the node Inner.At on (the carrier inside a record).
	Inner *InnerStyle
}

// InnerStyle switches the style for one subtree.
type InnerStyle struct {
	At    *Node
	Style Style
}

// Write writes the node in a style.
func (n *Node) Write(w io.Writer, s Style) error {
	var b bytes.Buffer
	n.write(&b, s, 0)
	_, err := w.Write(b.Bytes())
	return err
}

// Bytes returns the node written in a style.
func (n *Node) Bytes(s Style) []byte {
	var b bytes.Buffer
	n.write(&b, s, 0)
	return b.Bytes()
}

func (n *Node) write(b *bytes.Buffer, s Style, depth int) {
	if s.Inner != nil && s.Inner.At == n {
		s = s.Inner.Style
	}
	newline := func(d int) {
		if s.Indent != "" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(s.Indent, d))
		}
	}
	switch n.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(n.Bool))
	case Number:
		b.WriteString(n.Text)
	case Raw:
		b.Write(n.Raw)
	case String:
		writeString(b, n.Text, s)
	case Array:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			it.write(b, s, depth+1)
		}
		if len(n.Items) > 0 {
			newline(depth)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			writeString(b, k, s)
			b.WriteByte(':')
			if s.Indent != "" {
				b.WriteString(s.Colon)
			}
			n.Vals[i].write(b, s, depth+1)
		}
		if len(n.Keys) > 0 {
			newline(depth)
		}
		b.WriteByte('}')
	}
}

func writeString(b *bytes.Buffer, str string, s Style) {
	b.WriteByte('"')
	for _, r := range str {
		if e := escape.Short(r); e != "" {
			b.WriteString(e)
			continue
		}
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20, s.EscapeLetters && isLetter(r):
			b.WriteString(escape.JSONRune(r))
		case r == '/' && s.EscapeSolidus:
			b.WriteString(`\/`)
		default:
			var buf [utf8.UTFMax]byte
			b.Write(buf[:utf8.EncodeRune(buf[:], r)])
		}
	}
	b.WriteByte('"')
}

// isLetter is what the unicode-escape control escapes: ASCII letters and every non-ASCII character.
func isLetter(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= 0x80
}
