package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/contractcheck/contractcheck/internal/result"
)

// JSON writes the report as indented JSON with reportVersion result.Version (see WriteJSON). The results and
// the upgrade changes are written one at a time, as they are made, so writing a report of a
// million bindings holds one binding at a time; the bytes are those WriteJSON would write.
type JSON struct{}

// Output implements Outputter.
func (JSON) Output(w io.Writer, r *result.Report) error {
	s := &jsonStream{w: bufio.NewWriterSize(w, 256<<10)}
	s.raw("{")
	v := reflect.ValueOf(r).Elem()
	t := v.Type()
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fv := v.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if !first {
			s.raw(",")
		}
		first = false
		s.raw("\n  " + compactJSON(name) + ": ")
		switch f.Name {
		case "Results":
			s.parallelArray(r.Len(), "    ", elements(r.Results, r.Results.At))
		case "Localizations":
			// One at a time too: at a million bindings they are a hundred thousand, and the
			// whole list marshalled and indented at once held tens of megabytes twice over.
			if r.Localizations == nil {
				s.raw("null")
			} else {
				s.array(r.Localized(), "    ", func(i int) any { return r.Localizations.At(i) })
			}
		case "Visibility":
			// One group at a time: at a million bindings the list is some 7 MB of JSON, which
			// encoded at once held its compact and its indented bytes, each in a buffer grown by
			// doubling, at the end of the report.
			// The groups are made when read (result.Visibilities), each let go once written.
			s.array(r.VisibilityGroups(), "    ", func(i int) any { return r.Visibility.At(i) })
		case "Upgrades":
			if r.Upgrades == nil {
				s.raw("null")
			} else {
				s.array(len(r.Upgrades), "    ", func(i int) any { return streamedUpgrade(r.Upgrades[i]) })
			}
		default:
			s.value(fv.Interface(), "  ")
		}
	}
	s.raw("\n}\n")
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

// jsonStream writes indented JSON piece by piece, keeping the first error.
type jsonStream struct {
	w   *bufio.Writer
	err error
	// encs are reused from one value to the next: a 1M-binding report writes a million results,
	// and an encoder and a buffer made for each were most of what writing it allocated.
	encs map[string]*indentEncoder // by prefix
}

// indentEncoder encodes values indented at one prefix, without HTML escaping, into buffers it
// reuses: encoding/json writes the value compact, and indent lays it out as json.Indent does.
// (An Encoder with SetIndent indents through the JSON scanner's state machine, a byte at a time:
// two thirds of encoding a 1M-binding report's results.)
type indentEncoder struct {
	buf    bytes.Buffer
	enc    *json.Encoder
	prefix string
	out    []byte
}

func newIndentEncoder(prefix string) *indentEncoder {
	e := &indentEncoder{prefix: prefix}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// encode returns v's encoding without the encoder's final newline; the bytes are valid until the
// next call.
func (e *indentEncoder) encode(v any) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	e.out = indent(e.out[:0], bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), e.prefix, "  ")
	return e.out, nil
}

// indent appends src, one compact JSON value (no whitespace outside strings, as encoding/json
// writes it), to dst laid out as json.Indent lays it out: each member and element on a line of
// its own, after prefix and an indent per level; empty objects and arrays stay "{}" and "[]"; a
// space after each colon. FuzzIndent holds it to json.Indent.
func indent(dst, src []byte, prefix, indent string) []byte {
	// line is a newline, prefix and an indent per level, for the deepest level so far: a line
	// starts with a slice of it.
	var buf [128]byte
	line := append(append(buf[:0], '\n'), prefix...)
	base, depth := len(line), 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			if len(line) < base+depth*len(indent) {
				line = append(line, indent...)
			}
			dst = append(dst, line[:base+depth*len(indent)]...)
		case '}', ']':
			depth--
			dst = append(dst, line[:base+depth*len(indent)]...)
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = append(dst, line[:base+depth*len(indent)]...)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			j := i + 1
			for j < len(src) && !special[src[j]] {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
		}
	}
	return dst
}

// special marks the bytes indent lays out; every other byte of compact JSON is copied.
var special = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true, ',': true, ':': true}

func (s *jsonStream) raw(text string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(text)
	}
}

// value writes v indented as a member at the given prefix, without HTML escaping.
func (s *jsonStream) value(v any, prefix string) {
	if s.err != nil {
		return
	}
	if sv, ok := v.(streamedUpgrade); ok {
		sv.write(s, prefix)
		return
	}
	enc, ok := s.encs[prefix]
	if !ok {
		if s.encs == nil {
			s.encs = map[string]*indentEncoder{}
		}
		enc = newIndentEncoder(prefix)
		s.encs[prefix] = enc
	}
	b, err := enc.encode(v)
	if s.err = err; err == nil {
		_, s.err = s.w.Write(b)
	}
}

// elementEncoder encodes array elements, each as the bytes array writes for it: the separator,
// the newline and indent, and the value indented at indent.
type elementEncoder struct {
	*indentEncoder
	indent  string
	compact []byte // what an Appender appended, reused
}

func newElementEncoder(indent string) *elementEncoder {
	return &elementEncoder{indentEncoder: newIndentEncoder(indent), indent: indent}
}

// encodeElement appends element i, v, to out.
func (e *elementEncoder) encodeElement(out []byte, i int, v any) ([]byte, error) {
	b, err := e.encode(v)
	return append(e.start(out, i), b...), err
}

// appendElement appends element i of a to out.
func (e *elementEncoder) appendElement(out []byte, i int, a result.Appender) ([]byte, error) {
	b, err := a.AppendJSON(e.compact[:0], i)
	if err != nil {
		return out, err
	}
	e.compact = b
	return indent(e.start(out, i), b, e.indent, "  "), nil
}

// start appends what comes before element i: the separator, the newline and the indent.
func (e *elementEncoder) start(out []byte, i int) []byte {
	if i > 0 {
		out = append(out, ',')
	}
	out = append(out, '\n')
	return append(out, e.indent...)
}

// elementFunc appends element i of an array to out with one goroutine's encoder.
type elementFunc func(e *elementEncoder, out []byte, i int) ([]byte, error)

// elements are the elements of list (Results or Changes): appended by the list itself when it is
// an Appender, else made by at and encoded.
func elements[T any](list any, at func(int) T) elementFunc {
	if a, ok := list.(result.Appender); ok {
		return func(e *elementEncoder, out []byte, i int) ([]byte, error) { return e.appendElement(out, i, a) }
	}
	return func(e *elementEncoder, out []byte, i int) ([]byte, error) { return e.encodeElement(out, i, at(i)) }
}

// parallelBatch is how many elements parallelArray hands a worker at a time.
const parallelBatch = 256

// parallelArray writes n elements, each appended by el, as array writes them, for an el that is
// safe for concurrent use and elements that take long to make (a million results): batches of
// elements are made by as many goroutines as there are processors, batch b by worker b mod
// workers, while the batches before are written, in order. A worker fills one buffer while the
// other waits to be written: the writes (a 1M-binding report is 0.9 GB) no longer leave the
// workers idle.
func (s *jsonStream) parallelArray(n int, indent string, el elementFunc) {
	workers := runtime.GOMAXPROCS(0)
	if n == 0 {
		s.raw("[]")
		return
	}
	if n < 2*parallelBatch || workers < 2 {
		s.raw("[")
		enc := newElementEncoder(indent)
		var out []byte
		for i := 0; i < n && s.err == nil; i++ {
			if out, s.err = el(enc, out[:0], i); s.err == nil {
				_, s.err = s.w.Write(out)
			}
		}
		s.raw("\n" + indent[:len(indent)-2] + "]")
		return
	}
	type batch struct {
		out []byte
		err error
	}
	batches := (n + parallelBatch - 1) / parallelBatch
	done := make([]chan batch, workers)  // worker w's batches, encoded, in order
	free := make([]chan []byte, workers) // worker w's buffers, written
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		done[w], free[w] = make(chan batch, 1), make(chan []byte, 2)
		free[w] <- nil
		free[w] <- nil
		wg.Go(func() {
			enc := newElementEncoder(indent)
			for b := w; b < batches; b += workers {
				var out []byte
				select {
				case out = <-free[w]:
				case <-stop:
					return
				}
				var err error
				out = out[:0]
				for i := b * parallelBatch; i < min((b+1)*parallelBatch, n) && err == nil; i++ {
					out, err = el(enc, out, i)
				}
				select {
				case done[w] <- batch{out, err}:
				case <-stop:
					return
				}
				if err != nil {
					return
				}
			}
		})
	}
	s.raw("[")
	for b := 0; b < batches && s.err == nil; b++ {
		r := <-done[b%workers]
		if s.err = r.err; s.err == nil {
			_, s.err = s.w.Write(r.out)
		}
		free[b%workers] <- r.out
	}
	close(stop)
	wg.Wait()
	s.raw("\n" + indent[:len(indent)-2] + "]")
}

// array writes n elements, each made by at, as an indented array whose elements start at indent.
func (s *jsonStream) array(n int, indent string, at func(int) any) {
	if n == 0 {
		s.raw("[]")
		return
	}
	s.raw("[")
	for i := range n {
		if i > 0 {
			s.raw(",")
		}
		s.raw("\n" + indent)
		s.value(at(i), indent)
	}
	s.raw("\n" + indent[:len(indent)-2] + "]")
}

// streamedUpgrade writes an upgrade with its changes one at a time.
type streamedUpgrade result.Upgrade

func (u streamedUpgrade) write(s *jsonStream, prefix string) {
	in := prefix + "  "
	s.raw("{\n")
	for _, f := range []struct{ name, v string }{{"lane", u.Lane}, {"configuration", u.Configuration}, {"from", u.From}, {"to", u.To}} {
		s.raw(in + compactJSON(f.name) + ": " + compactJSON(f.v) + ",\n")
	}
	s.raw(in + `"changes": `)
	up := result.Upgrade(u)
	if up.Changes == nil {
		s.raw("null")
	} else {
		s.parallelArray(up.Count(), in+"  ", elements(up.Changes, up.Changes.At))
	}
	s.raw("\n" + prefix + "}")
}
