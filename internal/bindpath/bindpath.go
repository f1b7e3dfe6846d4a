// Package bindpath parses and follows the paths of a compartment binding (contracts/model.cue,
// #Pointer): RFC 6901 JSON pointers whose steps may select an array element by the values of its
// members instead of by its position, e.g.
//
//	/outputs[audience="assistant",format="structured"]/structuredContent
//
// A path is "" (the whole value) or a sequence of steps, each "/" then a reference token, then
// optionally a selector:
//
//	path     = "" / 1*( "/" token [ selector ] )
//	token    = *( char / "~0" / "~1" / "~2" )     ; char: any but "/", "~" and "["
//	selector = "[" *SP test *( *SP "," *SP test ) *SP "]"
//	test     = member *SP "=" *SP value
//	member   = 1*( mchar / "~0" / "~1" ) / string   ; mchar: any but "/", "~", "[", "]", "=", ",", `"` and SP
//	value    = string / "true" / "false" / "null"
//	string   = a JSON string literal (RFC 8259: quotes, backslash escapes, \uXXXX)
//
// A token is an RFC 6901 reference token ("~0" is "~", "~1" is "/") with one escape more: "~2"
// is a literal "[", which otherwise starts a selector. A member is one member name of the
// element, written as a reference token or, when it holds a character a bare member cannot
// (`[`, `]`, `=`, `,`, `"`, a space), as a JSON string. A selector ends its step: "/" or the end
// of the path follows its "]".
//
// A step with a selector reads its token as a plain step does, then, when the value there is an
// array, the one element that is an object holding every tested member with exactly the tested
// value (a string equal byte for byte, true, false or a present null). No element matching is
// absent, like any missing step; several matching is an error (*AmbiguousError), never a choice
// among them. Nothing is searched recursively: a selector tests the members of the elements of
// one array.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package bindpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Path is a parsed binding path. It is immutable once parsed and safe for concurrent use.
type Path struct {
	text  string
	steps []Step
	sel   bool
	ptr   strictjson.Pointer // the tokens of a path that does not select, read as a pointer
}

// Step is one step of a path: a reference token (unescaped) and, when set, the selector applied
// to the array the token names.
type Step struct {
	Token  string
	Select []Test
}

// Test is one member test of a selector: the element's member Member holds exactly Value (a
// string, a bool or nil for null).
type Test struct {
	Member string
	Value  any
}

// SyntaxError is a path that does not parse: the path, the byte offset at fault and why.
type SyntaxError struct {
	Path   string
	Offset int
	Msg    string
}

// Error names the path, quoted, and the offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("path %s: at byte %d: %s", strconv.Quote(e.Path), e.Offset, e.Msg)
}

// AmbiguousError is a selector that matched several elements of one array: At is the JSON pointer
// of the array in the value read (earlier selections written as the indices they chose), Indices
// the matching elements.
type AmbiguousError struct {
	Path    string
	At      string
	Indices []int
}

// Error names the path, the array and the matching indices.
func (e *AmbiguousError) Error() string {
	idx := make([]string, len(e.Indices))
	for i, n := range e.Indices {
		idx[i] = strconv.Itoa(n)
	}
	at := e.At
	if at == "" {
		at = `"" (the whole value)`
	}
	return fmt.Sprintf("path %s: %d elements of the array at %s match its selector (indices %s): a selector selects at most one element",
		strconv.Quote(e.Path), len(e.Indices), strconv.Quote(at), strings.Join(idx, ", "))
}

// IsAmbiguous reports whether err is, or wraps, an *AmbiguousError.
func IsAmbiguous(err error) bool {
	var a *AmbiguousError
	return errors.As(err, &a)
}

// String is the path as written.
func (p Path) String() string { return p.text }

// Steps are the path's steps; nil for the whole value.
func (p Path) Steps() []Step { return p.steps }

// HasSelector reports whether a step of the path selects by value.
func (p Path) HasSelector() bool { return p.sel }

// Parse parses a binding path. A plain RFC 6901 pointer parses to the steps its reference tokens
// name; a "~" not followed by 0, 1 or 2 is an error, as is a selector that does not parse.
func Parse(s string) (Path, error) {
	p := Path{text: s}
	if s == "" {
		return p, nil
	}
	if s[0] != '/' {
		return Path{}, &SyntaxError{Path: s, Offset: 0, Msg: "a path is empty or starts with /"}
	}
	r := &reader{s: s, i: 0}
	for r.i < len(s) {
		r.i++ // the "/"
		tok, err := r.token()
		if err != nil {
			return Path{}, err
		}
		st := Step{Token: tok}
		if r.peek() == '[' {
			if st.Select, err = r.selector(); err != nil {
				return Path{}, err
			}
			p.sel = true
			if r.i < len(s) && s[r.i] != '/' {
				return Path{}, r.fail("a selector ends its step: want / or the end of the path after ]")
			}
		}
		p.steps = append(p.steps, st)
	}
	if !p.sel {
		p.ptr = make(strictjson.Pointer, len(p.steps))
		for i, st := range p.steps {
			p.ptr[i] = st.Token
		}
	}
	return p, nil
}

// MustParse is Parse for a path known to be valid; it panics otherwise.
func MustParse(s string) Path {
	p, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}

type reader struct {
	s string
	i int
}

func (r *reader) fail(format string, args ...any) error {
	return &SyntaxError{Path: r.s, Offset: r.i, Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) peek() byte {
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

// token reads a step's reference token up to "/", "[" or the end.
func (r *reader) token() (string, error) {
	var b strings.Builder
	if _, err := r.escaped(&b, "/[", true, "bad escape: ~ is followed by 0 (~), 1 (/) or 2 ([)"); err != nil {
		return "", err
	}
	return b.String(), nil
}

// escaped reads characters into b up to one of stops or the end, each escape as itself: ~0 for
// "~", ~1 for "/" and, where bracket is set (a step's token, not a member name), ~2 for "["; any
// other character after a ~ fails with msg. It reports whether a stop ended the characters.
func (r *reader) escaped(b *strings.Builder, stops string, bracket bool, msg string) (bool, error) {
	for r.i < len(r.s) {
		c := r.s[r.i]
		if strings.IndexByte(stops, c) >= 0 {
			return true, nil
		}
		if c != '~' {
			b.WriteByte(c)
			r.i++
			continue
		}
		switch e := r.peekAt(1); {
		case e == '0':
			b.WriteByte('~')
		case e == '1':
			b.WriteByte('/')
		case e == '2' && bracket:
			b.WriteByte('[')
		default:
			return false, r.fail("%s", msg)
		}
		r.i += 2
	}
	return false, nil
}

func (r *reader) peekAt(n int) byte {
	if r.i+n < len(r.s) {
		return r.s[r.i+n]
	}
	return 0
}

func (r *reader) spaces() {
	for r.peek() == ' ' {
		r.i++
	}
}

// selector reads "[test, …]".
func (r *reader) selector() ([]Test, error) {
	r.i++ // the "["
	var tests []Test
	seen := map[string]bool{}
	for {
		r.spaces()
		if r.peek() == ']' && len(tests) == 0 {
			return nil, r.fail("an empty selector: want member=value")
		}
		at := r.i
		m, err := r.member()
		if err != nil {
			return nil, err
		}
		if seen[m] {
			r.i = at
			return nil, r.fail("member %s is tested twice", strconv.Quote(m))
		}
		seen[m] = true
		r.spaces()
		if r.peek() != '=' {
			return nil, r.fail("want = after the member name")
		}
		r.i++
		r.spaces()
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		tests = append(tests, Test{Member: m, Value: v})
		r.spaces()
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return tests, nil
		case 0:
			return nil, r.fail("the selector is not closed: want ]")
		default:
			return nil, r.fail("want , or ] after a member test")
		}
	}
}

// member reads a bare member name (a reference token without the selector's punctuation) or a
// JSON string.
func (r *reader) member() (string, error) {
	if r.peek() == '"' {
		return r.str()
	}
	var b strings.Builder
	stopped, err := r.escaped(&b, "/[]=,\" ", false, "bad escape in a member name: ~ is followed by 0 (~) or 1 (/)")
	switch {
	case err != nil:
		return "", err
	case !stopped:
		return "", r.fail("the selector is not closed: want ]")
	case b.Len() == 0:
		return "", r.fail("want a member name (a reference token, or a JSON string for a name holding [ ] = , \" or a space)")
	}
	return b.String(), nil
}

// value reads a JSON string, true, false or null.
func (r *reader) value() (any, error) {
	if r.peek() == '"' {
		return r.str()
	}
	for _, lit := range []struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(r.s[r.i:], lit.text) {
			r.i += len(lit.text)
			return lit.v, nil
		}
	}
	return nil, r.fail("a selector compares a member with a JSON string (quoted), true, false or null")
}

// str reads a JSON string literal strictly: its end is the first unescaped quote, and its text
// is decoded by the strict JSON reader (valid UTF-8, no lone surrogate, no raw control character).
func (r *reader) str() (string, error) {
	start := r.i
	j := r.i + 1
	for ; j < len(r.s); j++ {
		if r.s[j] == '\\' {
			j++
			continue
		}
		if r.s[j] == '"' {
			break
		}
	}
	if j >= len(r.s) {
		return "", r.fail("a string is not closed: want \"")
	}
	lit := r.s[start : j+1]
	if !utf8.ValidString(lit) {
		return "", r.fail("a string is not valid UTF-8")
	}
	v, err := strictjson.Decode("", []byte(lit), strictjson.DefaultLimits)
	if err != nil {
		return "", r.fail("not a JSON string: %v", err)
	}
	s, ok := v.(string)
	if !ok {
		return "", r.fail("not a JSON string")
	}
	r.i = j + 1
	return s, nil
}

// Lookup follows the path through v. It reports false when a step is absent, which keeps absent
// apart from a present null; a selector that matches several elements reads as absent too: use
// Read where that must be an error.
func (p Path) Lookup(v any) (any, bool) {
	if !p.sel {
		return p.ptr.Lookup(v) // a plain path reads as the pointer it is, as fast
	}
	out, ok, _ := p.Read(v)
	return out, ok
}

// Read follows the path through v as Lookup does, and returns an *AmbiguousError when a selector
// matches several elements.
func (p Path) Read(v any) (any, bool, error) {
	root := v
	for i, st := range p.steps {
		next, ok := step(v, st.Token)
		if !ok {
			return nil, false, nil
		}
		v = next
		if st.Select == nil {
			continue
		}
		arr, isArr := v.([]any)
		if !isArr {
			return nil, false, nil
		}
		found, many := selectOne(arr, st.Select)
		if many != nil {
			return nil, false, &AmbiguousError{Path: p.text, At: p.concrete(root, i), Indices: many}
		}
		if found < 0 {
			return nil, false, nil
		}
		v = arr[found]
	}
	return v, true, nil
}

// selectOne is the index of the one element of arr that matches tests (-1 for none), or, when
// several do, their indices.
func selectOne(arr []any, tests []Test) (found int, many []int) {
	found = -1
	for j, el := range arr {
		if !matches(el, tests) {
			continue
		}
		if found >= 0 {
			if many == nil {
				many = []int{found}
			}
			many = append(many, j)
			continue
		}
		found = j
	}
	return found, many
}

// concrete is the JSON pointer, in root, of the value step last's token names: each earlier
// selection written as the index it chose (those steps matched one element each). It is made only
// for a message, so a read that succeeds allocates nothing for it.
func (p Path) concrete(root any, last int) string {
	var tokens []string
	v := root
	for i, st := range p.steps[:last+1] {
		v, _ = step(v, st.Token)
		tokens = append(tokens, st.Token)
		if i == last || st.Select == nil {
			continue
		}
		arr, _ := v.([]any)
		found, _ := selectOne(arr, st.Select)
		if found < 0 {
			break
		}
		v = arr[found]
		tokens = append(tokens, strconv.Itoa(found))
	}
	return pointer(tokens)
}

// pointer spells reference tokens as an RFC 6901 pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strictjson.EscapeToken(t))
	}
	return b.String()
}

// step follows one reference token as strictjson.Pointer.Lookup does (an array index is decimal
// without leading zeros).
func step(v any, tok string) (any, bool) {
	switch node := v.(type) {
	case map[string]any:
		next, ok := node[tok]
		return next, ok
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(node) || (len(tok) > 1 && tok[0] == '0') {
			return nil, false
		}
		return node[i], true
	}
	return nil, false
}

// matches reports whether el is an object holding every tested member with exactly its value.
func matches(el any, tests []Test) bool {
	obj, ok := el.(map[string]any)
	if !ok {
		return false
	}
	for _, t := range tests {
		got, ok := obj[t.Member]
		if !ok {
			return false
		}
		switch want := t.Value.(type) {
		case string:
			if s, isStr := got.(string); !isStr || s != want {
				return false
			}
		case bool:
			if b, isBool := got.(bool); !isBool || b != want {
				return false
			}
		case nil:
			if got != nil {
				return false
			}
		}
	}
	return true
}
