package schema

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// schemasDir is the project's schemas/ directory.
const schemasDir = "../../schemas"

// newValidator is the validator of schemas/, made once for the tests that read it.
var newValidator = testkit.Once(func() (*Validator, error) { return New(os.DirFS(schemasDir)) })

// pinned are the built-in revisions, as schemas/mcp holds them.
var pinned = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

func decodeFile(t testing.TB, file string) any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := strictjson.Decode(file, data, strictjson.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// checkErr checks err against an expected pointer and message fragment;
// wantPtr "-" means "expect success".
func checkErr(t *testing.T, err error, wantPtr, wantMsg string) {
	t.Helper()
	if wantPtr == "-" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q at %q", wantMsg, wantPtr)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %T %v, want *ValidationError", err, err)
	}
	if ve.Pointer != wantPtr {
		t.Errorf("pointer %q, want %q (error: %v)", ve.Pointer, wantPtr, err)
	}
	if !strings.Contains(ve.Msg, wantMsg) {
		t.Errorf("message %q does not contain %q", ve.Msg, wantMsg)
	}
}

func TestProvenanceHashes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(schemasDir, "mcp", "PROVENANCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Rows of the table: | revision | dialect | sha256 of schema.json |
	var seen []string
	for line := range strings.Lines(string(data)) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) != 5 || cells[0] != "" || cells[4] != "" {
			continue
		}
		rev, hash := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[3])
		if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
			continue // the header and separator rows
		}
		seen = append(seen, rev)
		t.Run(rev, func(t *testing.T) {
			schema, err := os.ReadFile(filepath.Join(schemasDir, "mcp", rev, "schema.json"))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(schema)
			if got := hex.EncodeToString(sum[:]); got != hash {
				t.Errorf("sha256 of mcp/%s/schema.json is %s, PROVENANCE.md pins %s (drift)", rev, got, hash)
			}
		})
	}
	slices.Sort(seen)
	if known := newValidator(t).Revisions(); !slices.Equal(seen, known) {
		t.Errorf("PROVENANCE.md pins revisions %v, the schemas directory holds %v", seen, known)
	}
	if !newValidator(t).HasRevision(DefaultRevision) {
		t.Errorf("DefaultRevision %s is not a built-in revision", DefaultRevision)
	}
}

func TestValidateSource(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name     string
		revision string
		file     string // under testdata/source/<revision>/
		wantPtr  string // "-": valid
		wantMsg  string
		envelope bool
		rpcError bool
	}{
		// 2025-06-18 (draft-07, #/definitions/...)
		{name: "0618 structured", revision: "2025-06-18", file: "valid-structured.json", wantPtr: "-"},
		{name: "0618 rich", revision: "2025-06-18", file: "valid-rich.json", wantPtr: "-"},
		{name: "0618 missing content", revision: "2025-06-18", file: "invalid-missing-content.json", wantPtr: "", wantMsg: "missing property 'content'"},
		{name: "0618 array structuredContent", revision: "2025-06-18", file: "invalid-array-structured.json", wantPtr: "/structuredContent", wantMsg: "got array, want object"},
		{name: "0618 invalid base64", revision: "2025-06-18", file: "invalid-image-base64.json", wantPtr: "/content/0/data", wantMsg: `not a valid "byte"`},
		{name: "0618 error envelope", revision: "2025-06-18", file: "error-envelope.json", wantPtr: "-", envelope: true, rpcError: true},
		{name: "0618 result envelope invalid result", revision: "2025-06-18", file: "result-envelope-invalid-result.json", wantPtr: "/result/content/0/text", wantMsg: "got number, want string"},

		// 2025-11-25 (the default)
		{name: "1125 text", revision: "2025-11-25", file: "valid-text.json", wantPtr: "-"},
		{name: "1125 default revision", revision: "", file: "valid-text.json", wantPtr: "-"},
		{name: "1125 rich", revision: "2025-11-25", file: "valid-rich.json", wantPtr: "-"},
		{name: "1125 array structuredContent", revision: "2025-11-25", file: "invalid-array-structured.json", wantPtr: "/structuredContent", wantMsg: "got array, want object"},
		{name: "1125 null structuredContent", revision: "2025-11-25", file: "invalid-null-structured.json", wantPtr: "/structuredContent", wantMsg: "got null, want object"},
		{name: "1125 invalid base64", revision: "2025-11-25", file: "invalid-image-base64.json", wantPtr: "/content/0/data", wantMsg: "not in the standard base64 alphabet"},
		{name: "1125 url-safe base64", revision: "2025-11-25", file: "invalid-image-base64-urlsafe.json", wantPtr: "/content/0/data", wantMsg: `'-' at offset 0`},
		{name: "1125 unpadded blob", revision: "2025-11-25", file: "invalid-blob-base64-unpadded.json", wantPtr: "/content/1/resource/blob", wantMsg: "not a multiple of 4"},
		{name: "1125 relative uri", revision: "2025-11-25", file: "invalid-uri-relative.json", wantPtr: "/content/0/uri", wantMsg: `not a valid "uri"`},
		{name: "1125 uri with space", revision: "2025-11-25", file: "invalid-uri-space.json", wantPtr: "/content/0/uri", wantMsg: "' ' at offset 14"},
		{name: "1125 text block without text", revision: "2025-11-25", file: "invalid-text-missing.json", wantPtr: "/content/0", wantMsg: "missing property 'text'"},
		{name: "1125 unknown block type", revision: "2025-11-25", file: "invalid-unknown-block-type.json", wantPtr: "/content/0/type", wantMsg: "value must be one of 'audio', 'image', 'resource', 'resource_link', 'text'"},
		{name: "1125 isError string", revision: "2025-11-25", file: "invalid-iserror-string.json", wantPtr: "/isError", wantMsg: "got string, want boolean"},
		{name: "1125 error envelope", revision: "2025-11-25", file: "error-envelope.json", wantPtr: "-", envelope: true, rpcError: true},
		{name: "1125 invalid error envelope", revision: "2025-11-25", file: "error-envelope-invalid.json", wantPtr: "/error/code", wantMsg: "got string, want integer"},
		{name: "1125 result envelope", revision: "2025-11-25", file: "result-envelope.json", wantPtr: "-", envelope: true},
		{name: "1125 result envelope invalid result", revision: "2025-11-25", file: "result-envelope-invalid-result.json", wantPtr: "/result/content/1/data", wantMsg: "not a multiple of 4"},
		{name: "1125 result envelope without id", revision: "2025-11-25", file: "result-envelope-missing-id.json", wantPtr: "", wantMsg: "missing property 'id'"},
		{name: "1125 result and error", revision: "2025-11-25", file: "envelope-result-and-error.json", wantPtr: "", wantMsg: `both "result" and "error"`},
		{name: "1125 jsonrpc 1.0", revision: "2025-11-25", file: "envelope-wrong-version.json", wantPtr: "/jsonrpc", wantMsg: "value must be '2.0'"},

		// 2026-07-28
		{name: "0728 array structuredContent", revision: "2026-07-28", file: "valid-array-structured.json", wantPtr: "-"},
		{name: "0728 null structuredContent", revision: "2026-07-28", file: "valid-null-structured.json", wantPtr: "-"},
		{name: "0728 missing resultType", revision: "2026-07-28", file: "invalid-missing-resulttype.json", wantPtr: "", wantMsg: "missing property 'resultType'"},
		{name: "0728 result envelope", revision: "2026-07-28", file: "result-envelope.json", wantPtr: "-", envelope: true},
		{name: "0728 result envelope missing resultType", revision: "2026-07-28", file: "result-envelope-missing-resulttype.json", wantPtr: "/result", wantMsg: "missing property 'resultType'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rev := tc.revision
			if rev == "" {
				rev = DefaultRevision
			}
			file := filepath.Join("testdata", "source", rev, tc.file)
			src, err := v.ValidateSource(file, tc.revision, decodeFile(t, file))
			checkErr(t, err, tc.wantPtr, tc.wantMsg)
			if err != nil {
				if !strings.HasPrefix(err.Error(), file+": ") {
					t.Errorf("error %q does not start with the file name", err)
				}
				return
			}
			if src.Revision != rev || src.Envelope != tc.envelope || (src.RPCError != nil) != tc.rpcError || (src.Result == nil) != tc.rpcError {
				t.Errorf("source %+v, want revision %s, envelope %v, rpc error %v", src, rev, tc.envelope, tc.rpcError)
			}
			// A source known to be valid reads the same without being validated.
			known, err := v.KnownSource(file, tc.revision, decodeFile(t, file))
			if err != nil || !reflect.DeepEqual(known, src) {
				t.Errorf("KnownSource = %+v, %v; want %+v", known, err, src)
			}
		})
	}
}

func TestValidateSourceOther(t *testing.T) {
	v := newValidator(t)
	doc := map[string]any{"content": []any{}}
	_, err := v.ValidateSource("x.json", "2024-11-05", doc)
	if err == nil || !strings.Contains(err.Error(), "2025-06-18, 2025-11-25, 2026-07-28") {
		t.Errorf("unknown revision: %v", err)
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		t.Errorf("unknown revision is a usage error, not a ValidationError")
	}
	_, err = v.ValidateSource("x.json", "", []any{})
	if err == nil || err.Error() != "x.json: got array, want object" {
		t.Errorf("array source: %v", err)
	}
	// The envelope's result is handed on as the same map.
	env := map[string]any{"jsonrpc": "2.0", "id": "1", "result": doc}
	src, err := v.ValidateSource("x.json", "", env)
	if err != nil {
		t.Fatal(err)
	}
	if src.Result["content"] == nil {
		t.Errorf("Result is not the envelope's result: %v", src.Result)
	}
}

// The examples shipped with the 2026-07-28 schema must validate; content
// examples are wrapped in a CallToolResult so their formats are exercised.
func TestExamples20260728(t *testing.T) {
	v := newValidator(t)
	root := path.Join("mcp", "2026-07-28", "examples")
	fsys := os.DirFS(schemasDir)
	wrap := map[string]func(any) any{
		"CallToolResult":         func(d any) any { return d },
		"CallToolResultResponse": func(d any) any { return d },
		"TextContent":            func(d any) any { return result(d) },
		"ImageContent":           func(d any) any { return result(d) },
		"AudioContent":           func(d any) any { return result(d) },
		"ResourceLink":           func(d any) any { return result(d) },
		"EmbeddedResource":       func(d any) any { return result(d) },
		"BlobResourceContents":   func(d any) any { return result(map[string]any{"type": "resource", "resource": d}) },
		"TextResourceContents":   func(d any) any { return result(map[string]any{"type": "resource", "resource": d}) },
	}
	n := 0
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".json" {
			return err
		}
		def := path.Base(path.Dir(p))
		w, ok := wrap[def]
		if !ok {
			t.Errorf("%s: no test wrapping for %s examples", p, def)
			return nil
		}
		n++
		t.Run(def+"/"+path.Base(p), func(t *testing.T) {
			src, err := v.ValidateSource(p, "2026-07-28", w(decodeFile(t, filepath.Join(schemasDir, p))))
			if err != nil {
				t.Fatal(err)
			}
			if src.Envelope != (def == "CallToolResultResponse") {
				t.Errorf("envelope %v", src.Envelope)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Errorf("only %d examples found", n)
	}
}

func result(block any) any {
	return map[string]any{"resultType": "complete", "content": []any{block}}
}

func TestValidateRecord(t *testing.T) {
	v := newValidator(t)

	t.Run("valid.jsonl", func(t *testing.T) {
		file := filepath.Join("testdata", "record", "valid.jsonl")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		line := 0
		for sc.Scan() {
			line++
			doc, err := strictjson.Decode(file, sc.Bytes(), strictjson.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if err := v.ValidateRecord(file, line, doc); err != nil {
				t.Errorf("line %d: %v", line, err)
			}
		}
		if line != 5 {
			t.Errorf("%d lines", line)
		}
	})

	tests := []struct {
		name    string
		file    string // under testdata/record/
		wantPtr string
		wantMsg string
	}{
		{name: "captured without carrier", file: "captured-without-carrier.json", wantPtr: "", wantMsg: "missing property 'carrier'"},
		{name: "carrier when not captured", file: "carrier-when-not-captured.json", wantPtr: "/carrier", wantMsg: `present only when state is "captured"`},
		{name: "ambiguous with a carrier", file: "ambiguous-with-carrier.json", wantPtr: "/carrier", wantMsg: `present only when state is "captured"`},
		{name: "execution_failed without error", file: "execution-failed-without-error.json", wantPtr: "", wantMsg: "missing property 'error'"},
		{name: "execution_failed with empty error", file: "execution-failed-empty-error.json", wantPtr: "/error", wantMsg: "minLength"},
		{name: "error when not failed", file: "error-when-not-failed.json", wantPtr: "/error", wantMsg: `present only when state is "execution_failed"`},
		{name: "reconstructed without basis", file: "reconstructed-without-basis.json", wantPtr: "", wantMsg: "missing property 'basis'"},
		{name: "reconstructed with empty basis", file: "reconstructed-empty-basis.json", wantPtr: "/basis", wantMsg: "minItems"},
		{name: "basis without version", file: "basis-missing-version.json", wantPtr: "/basis/0", wantMsg: "missing property 'version'"},
		{name: "basis when captured", file: "basis-when-captured.json", wantPtr: "/basis", wantMsg: `present only when origin is "reconstructed"`},
		{name: "additional property", file: "additional-property.json", wantPtr: "", wantMsg: "additional properties 'extra' not allowed"},
		{name: "repetition zero", file: "repetition-zero.json", wantPtr: "/repetition", wantMsg: "minimum"},
		{name: "repetition 1.5", file: "repetition-fraction.json", wantPtr: "/repetition", wantMsg: "want integer"},
		{name: "repetition 2.0 is an integer", file: "repetition-two-point-zero.json", wantPtr: "-"},
		{name: "stage W0", file: "stage-w0.json", wantPtr: "/stage", wantMsg: "value must be one of"},
		{name: "lane not a slug", file: "lane-bad-slug.json", wantPtr: "/lane", wantMsg: "does not match pattern"},
		{name: "uppercase sha256", file: "sha-uppercase.json", wantPtr: "/sourceSha256", wantMsg: "does not match pattern"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join("testdata", "record", tc.file)
			err := v.ValidateRecord(file, 12, decodeFile(t, file))
			checkErr(t, err, tc.wantPtr, tc.wantMsg)
			if err != nil && !strings.HasPrefix(err.Error(), file+":12: ") {
				t.Errorf("error %q does not start with file:line", err)
			}
		})
	}
}

func TestValidateReport(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name    string
		file    string // under testdata/report/
		wantPtr string
		wantMsg string
	}{
		{name: "valid", file: "valid.json", wantPtr: "-"},
		{name: "reportVersion 2", file: "invalid-version.json", wantPtr: "/reportVersion", wantMsg: "value must be 3"},
		{name: "a version 2 census's byFamily", file: "invalid-census-byfamily.json", wantPtr: "/divergences", wantMsg: "additional properties 'byFamily'"},
		{name: "unknown outcome", file: "invalid-outcome.json", wantPtr: "/results/1/outcome", wantMsg: "value must be one of"},
		{name: "missing gate", file: "invalid-missing-gate.json", wantPtr: "", wantMsg: "missing property 'gate'"},
		{name: "unknown diagnostic kind", file: "invalid-diagnostic-kind.json", wantPtr: "/results/0/diagnostics/1/kind", wantMsg: "value must be one of"},
		{name: "divergence at W0", file: "invalid-divergence-stage.json", wantPtr: "/divergences/unique/0/stages/0", wantMsg: "value must be one of"},
		{name: "extra summary key", file: "invalid-summary-extra.json", wantPtr: "/summary", wantMsg: "additional properties 'extra'"},
		{name: "negative count", file: "invalid-summary-negative.json", wantPtr: "/summary/pass", wantMsg: "minimum"},
		{name: "a failed run's report", file: "valid-failure.json", wantPtr: "-"},
		{name: "a failure of exit 2", file: "invalid-failure-exit.json", wantPtr: "/failure/exit", wantMsg: "value must be 3"},
		{name: "no null policy and no failure", file: "invalid-missing-null-policy.json", wantPtr: "", wantMsg: "missing property 'nullPolicy'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join("testdata", "report", tc.file)
			checkErr(t, v.ValidateReport(decodeFile(t, file)), tc.wantPtr, tc.wantMsg)
		})
	}
}

func TestValidateByte(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{name: "empty", in: "", ok: true},
		{name: "one byte", in: "AA==", ok: true},
		{name: "two bytes", in: "AAE=", ok: true},
		{name: "three bytes", in: "AAEC", ok: true},
		{name: "all alphabet", in: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", ok: true},
		{name: "unpadded", in: "AA", ok: false},
		{name: "url-safe", in: "-_==", ok: false},
		{name: "line break", in: "AAAA\nAAAA", ok: false},
		{name: "crlf-wrapped", in: "AAAA\r\nAA==", ok: false},
		{name: "space", in: "AA A", ok: false},
		{name: "padding inside", in: "AA==AAAA", ok: false},
		{name: "three pads", in: "A===", ok: false},
		{name: "non-zero pad bits ==", in: "AB==", ok: false},
		{name: "non-zero pad bits =", in: "AAF=", ok: false},
		{name: "data url", in: "data:image/png;base64,AAAA", ok: false},
		{name: "non-ASCII", in: "AAé=", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := validateByte(tc.in)
			if (err == nil) != tc.ok {
				t.Errorf("validateByte(%q) = %v, want ok=%v", tc.in, err, tc.ok)
			}
		})
	}
	if validateByte(42) != nil {
		t.Error("a non-string is for the type keyword to reject")
	}
}

func TestValidateURI(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{name: "https", in: "https://example.com/a/b?c=d&e=%20#frag", ok: true},
		{name: "file", in: "file:///tmp/report.txt", ok: true},
		{name: "urn", in: "urn:isbn:0451450523", ok: true},
		{name: "mailto", in: "mailto:a@example.com", ok: true},
		{name: "custom scheme", in: "memo+v1.x-y://note/1", ok: true},
		{name: "data url", in: "data:image/png;base64,iVBORw0KGgo=", ok: true},
		{name: "ipv6 literal", in: "http://[2001:db8::1]:8080/", ok: true},
		{name: "userinfo and port", in: "ftp://user:pw@host:21/x", ok: true},
		{name: "relative path", in: "reports/final.pdf", ok: false},
		{name: "absolute path", in: "/tmp/x", ok: false},
		{name: "network-path reference", in: "//example.com/x", ok: false},
		{name: "empty", in: "", ok: false},
		{name: "scheme starts with digit", in: "1http://x", ok: false},
		{name: "space in path", in: "file:///tmp/my report.pdf", ok: false},
		{name: "non-ASCII (an IRI)", in: "https://example.com/café", ok: false},
		{name: "bad percent", in: "https://example.com/?q=%zz", ok: false},
		{name: "truncated percent", in: "https://example.com/%4", ok: false},
		{name: "two hashes", in: "https://example.com/#a#b", ok: false},
		{name: "bracket in path", in: "https://example.com/[x]", ok: false},
		{name: "backslash", in: `file:\\host\share`, ok: false},
		{name: "bad port", in: "http://example.com:80a/", ok: false},
		{name: "unbracketed ipv6", in: "http://2001:db8::1/", ok: false},
		{name: "quote", in: `https://example.com/"x"`, ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := validateURI(tc.in)
			if (err == nil) != tc.ok {
				t.Errorf("validateURI(%q) = %v, want ok=%v", tc.in, err, tc.ok)
			}
		})
	}
}

func TestValidationErrorFormat(t *testing.T) {
	tests := []struct {
		name string
		err  ValidationError
		want string
	}{
		{name: "jsonl", err: ValidationError{File: "a.jsonl", Line: 3, Pointer: "/carrier", Msg: "m"}, want: "a.jsonl:3: /carrier: m"},
		{name: "file", err: ValidationError{File: "a.json", Pointer: "/content/0/data", Msg: "m"}, want: "a.json: /content/0/data: m"},
		{name: "document", err: ValidationError{File: "a.json", Msg: "m"}, want: "a.json: m"},
		{name: "no file", err: ValidationError{Pointer: "/x", Msg: "m"}, want: "/x: m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := pointer([]string{"a/b", "~c", "0"}); got != "/a~1b/~0c/0" {
		t.Errorf("pointer escaping: %q", got)
	}
}

// The chosen error does not depend on the library's map iteration order.
func TestErrorDeterministic(t *testing.T) {
	v := newValidator(t)
	doc := map[string]any{
		"content": []any{
			map[string]any{"type": "image", "data": "A", "mimeType": 1},
			map[string]any{"type": "text"},
			map[string]any{"type": "resource_link", "uri": "x", "name": 2},
		},
		"isError":           "no",
		"structuredContent": []any{},
	}
	var first string
	for i := range 50 {
		_, err := v.ValidateSource("d.json", "", doc)
		if err == nil {
			t.Fatal("no error")
		}
		if i == 0 {
			first = err.Error()
			t.Log(first)
		} else if err.Error() != first {
			t.Fatalf("run %d: %q, first run %q", i, err, first)
		}
	}
}

func TestConcurrent(t *testing.T) {
	v := newValidator(t)
	file := filepath.Join("testdata", "record", "carrier-when-not-captured.json")
	doc := decodeFile(t, file)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if err := v.ValidateRecord(file, 1, doc); err == nil {
					t.Error("no error")
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkValidateRecord(b *testing.B) {
	v := newValidator(b)
	file := filepath.Join("testdata", "record", "valid.jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	doc, err := strictjson.Decode(file, line, strictjson.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := v.ValidateRecord(file, 1, doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateSource(b *testing.B) {
	v := newValidator(b)
	file := filepath.Join("testdata", "source", "2025-11-25", "valid-rich.json")
	doc := decodeFile(b, file)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.ValidateSource(file, "", doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	fsys := os.DirFS(schemasDir)
	for b.Loop() {
		if _, err := New(fsys); err != nil {
			b.Fatal(err)
		}
	}
}

// Schemas are read from fsys only: a $ref to the network or the host file
// system fails to compile instead of being fetched.
func TestLoaderStaysInFS(t *testing.T) {
	base := os.DirFS(schemasDir)
	mapFS := fstest.MapFS{}
	for _, rev := range pinned {
		data, err := fs.ReadFile(base, MCPSchemaPath(rev))
		if err != nil {
			t.Fatal(err)
		}
		mapFS[MCPSchemaPath(rev)] = &fstest.MapFile{Data: data}
	}
	report, err := fs.ReadFile(base, ReportSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	mapFS[ReportSchemaPath] = &fstest.MapFile{Data: report}
	tests := []struct {
		name string
		ref  string
		want string
	}{
		{name: "https", ref: "https://example.com/evil.schema.json", want: "refusing to load"},
		{name: "file", ref: "file:///etc/hostname", want: "refusing to load"},
		{name: "missing in fsys", ref: "nope.schema.json", want: "nope.schema.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mapFS[RecordSchemaPath] = &fstest.MapFile{Data: []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "` + tc.ref + `"}`)}
			v, err := New(mapFS)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.record.get(v, RecordSchemaPath); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("compiling the record schema: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	t.Run("revision directory without its schema", func(t *testing.T) {
		delete(mapFS, MCPSchemaPath("2026-07-28"))
		mapFS["mcp/2026-07-28/notes.md"] = &fstest.MapFile{Data: []byte("x")}
		if _, err := New(mapFS); err == nil || !strings.Contains(err.Error(), "builtin:schemas/mcp/2026-07-28: a revision directory holds its schema.json") {
			t.Errorf("New: %v", err)
		}
	})
}

// The first uses of a revision may race; each revision compiles once.
func TestConcurrentFirstUse(t *testing.T) {
	v, err := New(os.DirFS(schemasDir))
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeFile(t, filepath.Join("testdata", "source", "2025-11-25", "valid-text.json"))
	var wg sync.WaitGroup
	for i := range 6 {
		rev := pinned[i%2] // 2025-06-18, 2025-11-25: doc is valid for both
		wg.Go(func() {
			if _, err := v.ValidateSource("x.json", rev, doc); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestOwnSchemasCompile: New no longer compiles the project's own schemas (a run that needs
// neither pays nothing for them), so this test does: a broken record or report schema fails here,
// not in the first run whose record fails the check in Go.
func TestOwnSchemasCompile(t *testing.T) {
	v, err := New(os.DirFS(schemasDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    *lazySchema
		path string
	}{
		{name: "record", s: &v.record, path: RecordSchemaPath},
		{name: "report", s: &v.report, path: ReportSchemaPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.s.get(v, tc.path); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestConcurrentFirstUseOfLazySchemas: goroutines that need a lazily compiled schema at once (the
// record schema for records the Go check refuses, a carrier schema a warm-up is compiling) all
// get the same compiled schema and the same verdict (run with -race).
func TestConcurrentFirstUseOfLazySchemas(t *testing.T) {
	v, err := New(os.DirFS(schemasDir))
	if err != nil {
		t.Fatal(err)
	}
	carrier := decodeFile(t, filepath.Join("testdata", "source", "2025-11-25", "valid-text.json"))
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			if i%2 == 0 {
				errs[i] = v.ValidateCarrier("carriers/mcp-source.schema.json", "obs.jsonl", i+1, carrier)
			} else {
				errs[i] = v.ValidateRecord("obs.jsonl", i+1, map[string]any{"fixture": "C01"})
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if i%2 == 0 && err != nil {
			t.Errorf("carrier %d: %v", i, err)
		}
		if i%2 == 1 && err == nil {
			t.Errorf("record %d: an incomplete record passed", i)
		}
	}
}

// TestReadSource holds ReadSource to the bytes of a source file: no JSON is an error at
// file:line:col, a document the schema refuses is a *ValidationError unless the bytes are known
// valid (known: not validated, the document still read), and a valid source is read with its
// document.
func TestReadSource(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name    string
		data    string
		known   bool
		wantErr string // "": read
	}{
		{name: "a valid source", data: `{"content": [{"type": "text", "text": "hi"}]}`},
		{name: "no JSON", data: "{\n  \"content\": [,]}", wantErr: "src.json:2:"},
		{name: "a duplicate member", data: `{"content": [], "content": []}`, wantErr: "src.json:1:"},
		{name: "refused by the schema", data: `{"content": "x"}`, wantErr: "/content"},
		{name: "refused, but known valid", data: `{"content": "x"}`, known: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, s, err := v.ReadSource("src.json", DefaultRevision, []byte(tc.data), tc.known)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s == nil || s.Revision != DefaultRevision || doc.(map[string]any)["content"] == nil {
				t.Errorf("read %#v, %+v", doc, s)
			}
		})
	}
}
