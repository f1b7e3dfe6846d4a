package strictjson

import (
	"errors"
	"reflect"
	"testing"
)

// skipped decodes a line holding data as the member "k" of an object between two others, with
// DecodeSpan and with DecodeSkipping, and data alone with a Cursor's Skip: what a record's
// carrier is when the run's scope leaves the record out.
func skipped(data []byte, lim Limits) (span, skip spanned, cursor, decoded error) {
	line := append(append([]byte(`{"a":1,"k":`), data...), `,"z":[2]}`...)
	l := Line{Number: 3, file: "r.jsonl", start: 100, text: line}
	d := NewLineDecoder(lim)
	span.v, span.span, span.err = d.DecodeSpan(l, "k")
	skip.v, skip.span, skip.err = d.DecodeSkipping(l, "k")
	c := d.Cursor(Line{Number: 1, file: "in.json", text: data})
	if cursor = c.Skip(); cursor == nil {
		cursor = c.End()
	}
	_, decoded = Decode("in.json", data, lim)
	return span, skip, cursor, decoded
}

type spanned struct {
	v    any
	span []byte
	err  error
}

// sameSkipped fails unless skipping a value gives what decoding it gives: the same *SyntaxError
// (message, line, column, offset), or the same document but for the skipped member, nil, and the
// same bytes for it.
func sameSkipped(t *testing.T, data []byte, lim Limits) {
	t.Helper()
	span, skip, cursor, decoded := skipped(data, lim)
	if (span.err == nil) != (skip.err == nil) {
		t.Fatalf("%q: DecodeSkipping's error %v, DecodeSpan's %v", data, skip.err, span.err)
	}
	if span.err != nil {
		var se, wse *SyntaxError
		if !errors.As(skip.err, &se) || !errors.As(span.err, &wse) || *se != *wse {
			t.Fatalf("%q: DecodeSkipping's error %v, DecodeSpan's %v", data, skip.err, span.err)
		}
	} else {
		want := span.v.(map[string]any)
		got := skip.v.(map[string]any)
		if v, ok := got["k"]; !ok || v != nil {
			t.Fatalf("%q: the skipped member holds %#v, want nil", data, v)
		}
		got["k"] = want["k"]
		if !reflect.DeepEqual(got, want) || string(skip.span) != string(span.span) {
			t.Fatalf("%q: DecodeSkipping gives %#v and %q, DecodeSpan %#v and %q", data, got, skip.span, want, span.span)
		}
	}
	if (cursor == nil) != (decoded == nil) || (cursor != nil && cursor.Error() != decoded.Error()) {
		t.Fatalf("%q: Cursor.Skip's error %v, Decode's %v", data, cursor, decoded)
	}
}

// TestSkippingChecksAsDecode: a value checked and not built (a record's carrier outside the run's
// scope, a member a Cursor skips) is refused exactly where and as Decode refuses it — every
// invalid document of decodeErrorCases (duplicate keys, bad UTF-8, surrogates, numbers, depth)
// but the size limit, which LineReader applies before a line is decoded — and every valid one of
// decodeValueCases is accepted, its bytes kept.
func TestSkippingChecksAsDecode(t *testing.T) { forEachDocument(t, sameSkipped) }

// FuzzSkipping: skipping any input gives decoding's errors and, where it decodes, its bytes.
func FuzzSkipping(f *testing.F) {
	addDocumentSeeds(f)
	lim := Limits{MaxBytes: 1 << 20, MaxDepth: 32, MaxExponent: 400, MaxDigits: 100}
	f.Fuzz(func(t *testing.T, data []byte) { sameSkipped(t, data, lim) })
}
