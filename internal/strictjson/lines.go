package strictjson

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// LineReader streams a JSON Lines file: one JSON value per line, blank lines
// (only spaces, tabs and '\r') skipped. It reads through a bufio.Reader and
// holds at most one line in memory, so record files of any size can be read;
// lim.MaxBytes bounds each line rather than the file, and lim.MaxDepth bounds
// each value.
//
// Syntax errors are *SyntaxError values carrying the file's real line number
// of the record, the column within that line and the byte offset within the
// file. A bad line does not stop the reader: the next call to Next continues
// with the following line, so a caller may collect every bad line in one
// pass. Errors from the underlying reader are returned wrapped, and repeated
// on every later call.
type LineReader struct {
	file string
	br   *bufio.Reader
	lim  Limits
	line int   // number of lines consumed so far
	off  int64 // byte offset of the next line
	buf  []byte
	err  error // sticky: io.EOF or a wrapped read error
	dec  *LineDecoder
}

// NewLineReader returns a LineReader over r. file is used only in error
// messages.
func NewLineReader(file string, r io.Reader, lim Limits) *LineReader {
	lim = lim.withDefaults()
	return &LineReader{
		file: file,
		br:   bufio.NewReaderSize(r, 64<<10),
		lim:  lim,
		dec:  NewLineDecoder(lim),
	}
}

// Next returns the next record and the 1-based line it is on. At the end of
// the input it returns io.EOF (with line 0). A line longer than MaxBytes is
// an error naming the line; it is skipped without being held in memory.
func (lr *LineReader) Next() (line int, v any, err error) {
	text, line, start, err := lr.next()
	if err != nil {
		return line, nil, err
	}
	// The line is decoded in bufio's buffer, uncopied: it stays valid until the next read.
	v, _, err = lr.dec.DecodeSpan(Line{Number: line, file: lr.file, start: start, text: text}, "")
	return line, v, err
}

// Line is one non-blank line of a JSON Lines file, read but not decoded, so
// that one goroutine can read a file while others decode its lines (a
// LineDecoder each). It owns a copy of its bytes.
type Line struct {
	// Number is the line's 1-based number in the file.
	Number int
	file   string
	start  int64 // the line's byte offset in the file
	text   []byte
}

// Size is the line's length in bytes.
func (l Line) Size() int { return len(l.text) }

// Values counts, without decoding it, about how many JSON values the line
// holds (objects, arrays, strings, numbers, literals; an object's keys are not
// counted): one, plus one per '{', '[' and ',' outside strings. That is exact
// for any valid value whose objects and arrays are not empty, and one too
// many per empty one. A caller that must know what a line will cost before
// decoding it (every value becomes a Go value, then a policy value) reads it
// here in one pass over the bytes.
func (l Line) Values() int {
	n := 1
	b := l.text
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[', ',':
			n++
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return n
}

// NextLine returns the next non-blank line without decoding it, with the
// errors Next returns for it: io.EOF at the end, a line over MaxBytes, a read
// error.
func (lr *LineReader) NextLine() (Line, error) {
	text, line, start, err := lr.next()
	if err != nil {
		return Line{Number: line}, err
	}
	return Line{Number: line, file: lr.file, start: start, text: append([]byte(nil), text...)}, nil
}

// next returns the text of the next non-blank line (valid until the next
// read), its number and its offset.
func (lr *LineReader) next() (text []byte, line int, start int64, err error) {
	for {
		if lr.err != nil {
			return nil, 0, 0, lr.err
		}
		text, size, start, ok := lr.readLine()
		if !ok {
			continue // lr.err is set
		}
		line = lr.line
		if size > lr.lim.MaxBytes {
			return nil, line, start, &SyntaxError{File: lr.file, Line: line, Col: 1, Offset: start,
				Msg: fmt.Sprintf("line %d is %d bytes, over the limit of %d bytes", line, size, lr.lim.MaxBytes)}
		}
		if blank(text) {
			continue
		}
		return text, line, start, nil
	}
}

// LineDecoder decodes Lines as LineReader.Next would have, errors naming the
// line's file, line, column and offset. It keeps its buffers and interned keys
// from one line to the next: use one per goroutine.
type LineDecoder struct{ dec decoder }

// NewLineDecoder returns a LineDecoder applying lim (the limits the lines
// were read with).
func NewLineDecoder(lim Limits) *LineDecoder {
	lim = lim.withDefaults()
	return &LineDecoder{dec: decoder{maxDepth: lim.MaxDepth, maxExponent: lim.MaxExponent, maxDigits: lim.MaxDigits}}
}

// Decode decodes one line.
func (d *LineDecoder) Decode(l Line) (any, error) {
	v, _, err := d.DecodeSpan(l, "")
	return v, err
}

// DecodeSpan decodes one line and also returns the bytes of the value of the
// member key of the line's top-level object, as written (nil when the line is
// not an object or has no such member; key "" asks for none). Two lines with
// the same bytes there hold the same value, whatever else differs: check
// validates and projects a carrier that repeats byte for byte only once. The
// bytes belong to the line.
func (d *LineDecoder) DecodeSpan(l Line, key string) (v any, span []byte, err error) {
	d.dec.atLine(l, key)
	return d.spanned(l)
}

// DecodeSkipping decodes one line as DecodeSpan does, but the value of the member key of the
// line's top-level object is only checked, with Decode's strictness and errors, and not built:
// the member holds nil in the value returned, and span holds its bytes. DecodeSpan of the same
// line builds it (a record the run's scope leaves out is checked, its carrier never built:
// inputs.DecodeEnvelope).
func (d *LineDecoder) DecodeSkipping(l Line, key string) (v any, span []byte, err error) {
	d.dec.atLine(l, key)
	d.dec.skipSpan = key != ""
	return d.spanned(l)
}

// spanned decodes l, the decoder set for its line and span (atLine).
func (d *LineDecoder) spanned(l Line) (v any, span []byte, err error) {
	v, err = d.dec.decode(l.text)
	d.dec.data = nil // do not pin the line between calls
	if err != nil {
		return nil, nil, err
	}
	if d.dec.spanEnd > d.dec.spanStart {
		span = l.text[d.dec.spanStart:d.dec.spanEnd:d.dec.spanEnd]
	}
	return v, span, nil
}

// readLine reads one line without its '\n'. size is the line's full length
// even when it was too long to keep (then text is empty); start is its offset
// in the file. ok is false when there was no line: lr.err is then set.
func (lr *LineReader) readLine() (text []byte, size, start int64, ok bool) {
	lr.buf = lr.buf[:0]
	var raw int64 // bytes consumed, including the '\n'
	newline := false
	for first := true; ; first = false {
		chunk, err := lr.br.ReadSlice('\n')
		raw += int64(len(chunk))
		if first && err == nil && int64(len(chunk)) <= lr.lim.MaxBytes+1 {
			// The common case: the whole line is in bufio's buffer, and
			// it stays valid until the next read, after decoding.
			lr.line++
			start = lr.off
			lr.off += raw
			return chunk[:len(chunk)-1], raw - 1, start, true
		}
		// Keep at most MaxBytes+1 bytes: enough to know the line is too long.
		if int64(len(lr.buf)) <= lr.lim.MaxBytes {
			keep := chunk
			if room := lr.lim.MaxBytes + 1 - int64(len(lr.buf)); int64(len(keep)) > room {
				keep = keep[:room]
			}
			lr.buf = append(lr.buf, keep...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			newline = true
		} else if raw == 0 || !errors.Is(err, io.EOF) {
			if errors.Is(err, io.EOF) {
				lr.err = io.EOF
			} else {
				lr.err = fmt.Errorf("%s: reading line %d: %w", lr.file, lr.line+1, err)
			}
			return nil, 0, 0, false
		}
		// else: a last line without '\n'; the next call sees EOF again.
		break
	}
	lr.line++
	start = lr.off
	lr.off += raw
	size = raw
	if newline {
		size--
		if int64(len(lr.buf)) > size {
			lr.buf = lr.buf[:size]
		}
	}
	if size > lr.lim.MaxBytes {
		return nil, size, start, true
	}
	return lr.buf, size, start, true
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
