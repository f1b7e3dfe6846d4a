package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"
)

// ErrNotArray is ArrayReader's error for an input that is one strict JSON value, but not an
// array (the error wraps it, naming the file).
var ErrNotArray = errors.New("not a JSON array")

// arrayChunk is the least an ArrayReader reads at a time.
const arrayChunk = 64 << 10

// ArrayReader reads a document that is one JSON array, one element at a time, from a stream:
// it holds the element being read and a read buffer (at least 64 KiB, and twice the largest
// element), never the whole array, so that a caller can take a large batch of events in the
// memory of one. What it takes and refuses is Decode's, error for error: every element is
// decoded by Decode's own scanner, numbers kept verbatim, duplicate keys, invalid UTF-8,
// unpaired surrogates and a byte order mark refused, lim.MaxDepth counting the array as the
// first level, and a *SyntaxError with the line, column and offset Decode would give for the
// same bytes. An input that is one valid value but not an array is an error wrapping
// ErrNotArray.
//
// A syntax error is returned only once the input has been read to its end (as Decode reads it
// all first): a read error from the underlying reader, or an input over lim.MaxBytes, takes its
// place when one comes first. Errors are sticky.
type ArrayReader struct {
	r   io.Reader
	lim Limits
	dec decoder

	buf       []byte
	pos       int   // the first byte of buf not consumed
	off       int64 // the file offset of buf[pos]
	line, col int   // buf[pos]'s line (1-based), and the runes before it on that line
	read      int64 // bytes read from r
	eof       bool  // r is at its end
	rerr      error // r failed, or the input is over lim.MaxBytes: sticky
	state     int
	index     int // the next element's index
	err       error
	chunk     int64 // the least read at a time: arrayChunk (tests read less, to cut elements)
}

// ArrayReader states.
const (
	arrayStart   = iota // before the '['
	arrayOpen           // after the '[': an element or the ']'
	arrayAfter          // after an element: ',' or ']'
	arrayElement        // after a ',': an element
	arrayClosed         // after the ']': only white space to the end
	arrayDone           // io.EOF returned
)

// NewArrayReader returns an ArrayReader over r. file is used only in error messages.
func NewArrayReader(file string, r io.Reader, lim Limits) *ArrayReader {
	lim = lim.withDefaults()
	return &ArrayReader{r: r, lim: lim, line: 1, chunk: arrayChunk,
		dec: decoder{file: file, lineBase: 1, maxDepth: lim.MaxDepth, maxExponent: lim.MaxExponent, maxDigits: lim.MaxDigits}}
}

// Next returns the array's next element and its index (from 0). After the last element it
// returns io.EOF, once the array's ']' and the white space after it have been read to the end
// of the input. On an error, index is the element the error lies in, or -1 when it lies between
// elements or outside the array.
func (a *ArrayReader) Next() (index int, v any, err error) {
	if a.err != nil {
		return -1, nil, a.err
	}
	index, v, err = a.next()
	if err != nil {
		a.err = err
	}
	return index, v, err
}

func (a *ArrayReader) next() (int, any, error) {
	for {
		switch a.state {
		case arrayStart:
			if err := a.start(); err != nil {
				return -1, nil, err
			}
			a.state = arrayOpen
		case arrayOpen, arrayElement:
			i := a.index
			empty := false
			v, err := a.step(1, func(d *decoder) (any, error) {
				d.skipWS()
				if a.state == arrayOpen && d.pos < len(d.data) && d.data[d.pos] == ']' {
					d.pos++
					empty = true
					return nil, nil
				}
				return d.value()
			})
			if err != nil {
				return i, nil, err
			}
			if empty {
				a.state = arrayClosed
				continue
			}
			a.index++
			a.state = arrayAfter
			return i, v, nil
		case arrayAfter:
			more := false
			if _, err := a.step(1, func(d *decoder) (any, error) {
				var ok bool
				if more, ok = d.next(']'); !ok {
					return nil, d.unexpected("',' or ']'")
				}
				return nil, nil
			}); err != nil {
				return -1, nil, err
			}
			a.state = arrayClosed
			if more {
				a.state = arrayElement
			}
		case arrayClosed:
			if _, err := a.step(0, func(d *decoder) (any, error) {
				d.skipWS()
				if d.pos < len(d.data) {
					return nil, d.unexpected("end of input after the top-level value")
				}
				return nil, nil
			}); err != nil {
				return -1, nil, err
			}
			a.state = arrayDone
		default:
			return -1, nil, io.EOF
		}
	}
}

// start reads up to the array's '[', or decodes an input that is not an array whole (as Decode
// does) for its error.
func (a *ArrayReader) start() error {
	for len(a.buf) < 3 && !a.eof && a.rerr == nil {
		a.fill()
	}
	if a.rerr != nil {
		return a.rerr
	}
	if bytes.HasPrefix(a.buf, []byte("\xef\xbb\xbf")) {
		a.dec.data = a.buf
		defer func() { a.dec.data = nil }()
		return a.dec.errAt(0, "byte order mark (U+FEFF) is not allowed")
	}
	array := false
	_, err := a.step(0, func(d *decoder) (any, error) {
		d.skipWS()
		if d.pos < len(d.data) && d.data[d.pos] == '[' {
			array = true
			if err := d.enter(); err != nil {
				return nil, err
			}
			d.pos++
			return nil, nil
		}
		// Not an array: Decode's verdict on the whole input, which is read to its end.
		if !a.eof {
			return nil, errMore
		}
		if _, err := d.value(); err != nil {
			return nil, err
		}
		d.skipWS()
		if d.pos < len(d.data) {
			return nil, d.unexpected("end of input after the top-level value")
		}
		return nil, nil
	})
	if err != nil {
		return err
	}
	if !array {
		return fmt.Errorf("%s: %w", a.dec.file, ErrNotArray)
	}
	return nil
}

// errMore asks step for more input.
var errMore = errors.New("more input needed")

// step runs f on the unread bytes at nesting depth: while f fails, or stops at the end of what
// was read, and the input may go on, it reads more and runs f again, so that f's outcome is the
// one it has on the whole input (a number ends only where a byte that is not a digit or the end
// of the input does). Then it consumes what f read.
func (a *ArrayReader) step(depth int, f func(d *decoder) (any, error)) (any, error) {
	d := &a.dec
	defer func() { d.data = nil }() // do not pin the buffer between calls
	for {
		d.data, d.pos, d.depth = a.buf[a.pos:], 0, depth
		d.lineBase, d.colBase, d.offBase = a.line, a.col, a.off
		clear(d.stack)
		d.stack = d.stack[:0]
		v, err := f(d)
		if err != nil || d.pos >= len(d.data) {
			if a.rerr == nil && !a.eof {
				a.fill()
				continue
			}
			if a.rerr != nil {
				return nil, a.rerr
			}
		}
		if err != nil {
			return nil, err
		}
		a.consume(d.pos)
		return v, nil
	}
}

// fill reads more input: as much again as is unread, and at least arrayChunk.
func (a *ArrayReader) fill() {
	if a.pos > 0 {
		n := copy(a.buf, a.buf[a.pos:])
		a.buf, a.pos = a.buf[:n], 0
	}
	want := max(int64(len(a.buf)), a.chunk)
	if left := a.lim.MaxBytes + 1 - a.read; want > left {
		want = left
	}
	a.buf = slices.Grow(a.buf, int(want))
	var err error
	for end := len(a.buf) + int(want); len(a.buf) < end && err == nil; {
		var n int
		n, err = a.r.Read(a.buf[len(a.buf):end])
		a.buf = a.buf[:len(a.buf)+n]
		a.read += int64(n)
	}
	switch {
	case err != nil && err != io.EOF: // io.EOF itself, as Read returns it: a source's io.ErrUnexpectedEOF (a gzip stream cut short) is a failure
		a.rerr = fmt.Errorf("%s: reading: %w", a.dec.file, err)
	case a.read > a.lim.MaxBytes:
		a.rerr = &SyntaxError{File: a.dec.file, Line: 1, Col: 1,
			Msg: fmt.Sprintf("input is over the limit of %d bytes", a.lim.MaxBytes)}
	case err == io.EOF:
		a.eof = true
	}
}

// consume moves past n bytes of the unread input, keeping its position.
func (a *ArrayReader) consume(n int) {
	b := a.buf[a.pos : a.pos+n]
	if nl := bytes.Count(b, []byte{'\n'}); nl > 0 {
		a.line += nl
		a.col = utf8.RuneCount(b[bytes.LastIndexByte(b, '\n')+1:])
	} else {
		a.col += utf8.RuneCount(b)
	}
	a.pos += n
	a.off += int64(n)
}
