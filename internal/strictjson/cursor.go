package strictjson

import (
	"encoding/json"
)

// Cursor reads one line's JSON value member by member, for a reader that knows the shape it
// expects (a census line: internal/censusdir) and would otherwise build a map for each object
// only to take its members out again. It reads with Decode's strictness and errors — the same
// grammar, UTF-8 and surrogate checks, limits, numbers kept as written (json.Number), duplicate
// keys refused with the position of the first occurrence, every *SyntaxError naming the file's
// line, column and offset — and a value the caller takes whole (Value) is the tree Decode gives.
// What it does not check is the caller's: which keys an object may hold and what type each
// member's value is (it names the JSON pointer then; Kind and TypeName say what was found).
//
// A Cursor is got from LineDecoder.Cursor and valid until that decoder's next call; the caller
// reads exactly one value with it (Object, String, Number, Value or Skip), then calls End.
type Cursor struct {
	d *decoder
}

// Cursor starts reading l member by member. It shares the decoder's buffers and interned keys.
func (d *LineDecoder) Cursor(l Line) *Cursor {
	d.dec.atLine(l, "")
	d.dec.reset(l.text)
	return &Cursor{d: &d.dec}
}

// Kind is the type of the next value, as TypeName names it ("object", "array", "string",
// "number", "boolean", "null"), or "" when what follows is not the start of a JSON value (reading
// it gives the error).
func (c *Cursor) Kind() string {
	d := c.d
	if d.pos == 0 && len(d.data) >= 3 && string(d.data[:3]) == "\xef\xbb\xbf" {
		return ""
	}
	d.skipWS()
	if d.pos >= len(d.data) {
		return ""
	}
	switch b := d.data[d.pos]; {
	case b == '{':
		return "object"
	case b == '[':
		return "array"
	case b == '"':
		return "string"
	case b == 't' || b == 'f':
		return "boolean"
	case b == 'n':
		return "null"
	case b == '-' || isDigit(b):
		return "number"
	}
	return ""
}

// bom refuses a byte order mark at the start of the line, as Decode does.
func (c *Cursor) bom() error {
	if c.d.pos == 0 && len(c.d.data) >= 3 && string(c.d.data[:3]) == "\xef\xbb\xbf" {
		return c.d.errAt(0, "byte order mark (U+FEFF) is not allowed")
	}
	return nil
}

// Object reads an object, calling member with each key in the order written: member reads the
// member's value with exactly one of the Cursor's reading methods (an error it returns stops the
// reading and is returned as it is). A key written twice is a *SyntaxError at its second
// occurrence naming the first, as Decode's; a syntax error after a member is found after member
// has seen it.
func (c *Cursor) Object(member func(key string) error) error {
	if err := c.bom(); err != nil {
		return err
	}
	d := c.d
	d.skipWS()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return d.unexpected("'{'")
	}
	open := d.pos
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++
	d.skipWS()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return nil
	}
	var keys keySet // the keys read so far
	for {
		d.skipWS()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.unexpected("a string to start an object key")
		}
		keyAt := d.pos
		b, err := d.str()
		if err != nil {
			return err
		}
		k := d.intern(b)
		if keys.add(k) {
			line, col := d.lineCol(d.firstKey(open, k))
			return d.errAt(keyAt, "duplicate key %q (first occurrence at %d:%d)", k, line, col)
		}
		d.skipWS()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.unexpected("':' after object key")
		}
		d.pos++
		if err := member(k); err != nil {
			return err
		}
		more, ok := d.next('}')
		if !ok {
			return d.unexpected("',' or '}'")
		}
		if !more {
			return nil
		}
	}
}

// String reads a string value. A value of another kind is an error for the caller to word: read
// it with Value (Kind says what it is).
func (c *Cursor) String() (string, error) {
	if err := c.bom(); err != nil {
		return "", err
	}
	d := c.d
	d.skipWS()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return "", d.unexpected("a string")
	}
	b, err := d.str()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Number reads a number value, its digits as written.
func (c *Cursor) Number() (json.Number, error) {
	if err := c.bom(); err != nil {
		return "", err
	}
	d := c.d
	d.skipWS()
	if d.pos >= len(d.data) || (d.data[d.pos] != '-' && !isDigit(d.data[d.pos])) {
		return "", d.unexpected("a number")
	}
	v, err := d.number()
	if err != nil {
		return "", err
	}
	return v.(json.Number), nil
}

// Value reads any value whole, as Decode would give it.
func (c *Cursor) Value() (any, error) {
	if err := c.bom(); err != nil {
		return nil, err
	}
	return c.d.value()
}

// Skip reads a value and drops it: checked as Value reads it, with the same errors, and not
// built.
func (c *Cursor) Skip() error {
	if err := c.bom(); err != nil {
		return err
	}
	c.d.discard++
	defer func() { c.d.discard-- }()
	_, err := c.d.value()
	return err
}

// End checks that nothing but whitespace follows the value read, as Decode does, and lets the
// line go (the decoder does not pin it).
func (c *Cursor) End() error {
	d := c.d
	defer func() { d.data = nil }()
	d.skipWS()
	if d.pos < len(d.data) {
		return d.unexpected("end of input after the top-level value")
	}
	return nil
}
