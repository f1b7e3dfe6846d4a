package bindpath

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		path  string
		steps []Step
		err   string // a substring of the error; "" parses
	}{
		{name: "whole value", path: ""},
		{name: "plain pointer", path: "/content/0/text", steps: []Step{{Token: "content"}, {Token: "0"}, {Token: "text"}}},
		{name: "RFC 6901 escapes", path: "/a~1b/c~0d", steps: []Step{{Token: "a/b"}, {Token: "c~d"}}},
		{name: "an empty token", path: "/", steps: []Step{{Token: ""}}},
		{name: "a literal [ as ~2", path: "/a~2b]", steps: []Step{{Token: "a[b]"}}},
		{name: "selector", path: `/outputs[audience="assistant",format="structured"]/structuredContent`,
			steps: []Step{{Token: "outputs", Select: []Test{{"audience", "assistant"}, {"format", "structured"}}}, {Token: "structuredContent"}}},
		{name: "spaces around tests", path: `/o[ a = "x" , b="y" ]`, steps: []Step{{Token: "o", Select: []Test{{"a", "x"}, {"b", "y"}}}}},
		{name: "true false null", path: `/o[a=true,b=false,c=null]`, steps: []Step{{Token: "o", Select: []Test{{"a", true}, {"b", false}, {"c", nil}}}}},
		{name: "selector ends the path", path: `/o[a="x"]`, steps: []Step{{Token: "o", Select: []Test{{"a", "x"}}}}},
		{name: "quoted member with punctuation", path: `/o["a=b,c]\" d"="v"]`, steps: []Step{{Token: "o", Select: []Test{{`a=b,c]" d`, "v"}}}}},
		{name: "member escapes", path: `/o[a~1b~0="v"]`, steps: []Step{{Token: "o", Select: []Test{{"a/b~", "v"}}}}},
		{name: "hostile value: quote and ]", path: `/o[a="\"]"]`, steps: []Step{{Token: "o", Select: []Test{{"a", `"]`}}}}},
		{name: "hostile value: = and ,", path: `/o[a="x=y,z"]`, steps: []Step{{Token: "o", Select: []Test{{"a", "x=y,z"}}}}},
		{name: "hostile value: U+2028 escaped", path: `/o[a="\u2028"]`, steps: []Step{{Token: "o", Select: []Test{{"a", "\u2028"}}}}},
		{name: "hostile value: U+2028 raw", path: "/o[a=\"\u2028\"]", steps: []Step{{Token: "o", Select: []Test{{"a", "\u2028"}}}}},
		{name: "hostile value: bidi", path: "/o[a=\"\u202egnp.exe\"]", steps: []Step{{Token: "o", Select: []Test{{"a", "\u202egnp.exe"}}}}},
		{name: "hostile value: slash", path: `/o[a="x/y"]/z`, steps: []Step{{Token: "o", Select: []Test{{"a", "x/y"}}}, {Token: "z"}}},
		{name: "no leading slash", path: "content", err: "starts with /"},
		{name: "bad escape", path: "/a~3", err: "bad escape"},
		{name: "empty selector", path: "/o[]", err: "empty selector"},
		{name: "unclosed selector", path: `/o[a="x"`, err: "not closed"},
		{name: "unclosed string", path: `/o[a="x]`, err: "string is not closed"},
		{name: "bare value", path: `/o[a=assistant]`, err: "JSON string (quoted), true, false or null"},
		{name: "number value", path: `/o[a=1]`, err: "JSON string (quoted), true, false or null"},
		{name: "single quotes", path: `/o[a='x']`, err: "JSON string (quoted)"},
		{name: "no =", path: `/o[a]`, err: "want = after the member name"},
		{name: "missing member", path: `/o[="x"]`, err: "want a member name"},
		{name: "a member name with ~2", path: `/o[a~2="x"]`, err: "bad escape in a member name"},
		{name: "a member name to the end", path: `/o[ab`, err: "the selector is not closed"},
		{name: "member tested twice", path: `/o[a="x",a="y"]`, err: "tested twice"},
		{name: "text after the selector", path: `/o[a="x"]b`, err: "a selector ends its step"},
		{name: "two selectors", path: `/o[a="x"][b="y"]`, err: "a selector ends its step"},
		{name: "bad JSON escape", path: `/o[a="\x"]`, err: "not a JSON string"},
		{name: "raw control character", path: "/o[a=\"\x01\"]", err: "not a JSON string"},
		{name: "lone surrogate", path: `/o[a="\ud800"]`, err: "not a JSON string"},
		{name: "invalid UTF-8", path: "/o[a=\"\xff\"]", err: "not valid UTF-8"},
		{name: "trailing comma", path: `/o[a="x",]`, err: "want a member name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse(%q) = %v, want an error holding %q", tc.path, err, tc.err)
				}
				if !strings.Contains(err.Error(), "at byte ") {
					t.Errorf("error %q does not name the offset", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.path, err)
			}
			if !reflect.DeepEqual(p.Steps(), tc.steps) {
				t.Errorf("Parse(%q) = %#v, want %#v", tc.path, p.Steps(), tc.steps)
			}
			if p.String() != tc.path {
				t.Errorf("String() = %q, want %q", p.String(), tc.path)
			}
			want := false
			for _, s := range tc.steps {
				want = want || s.Select != nil
			}
			if p.HasSelector() != want {
				t.Errorf("HasSelector() = %v, want %v", p.HasSelector(), want)
			}
		})
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	doc, err := strictjson.Decode("doc", []byte(`{
		"outputs": [
			{"audience": "user", "format": "structured", "structuredContent": {"who": "user"}},
			{"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "hi"}]},
			{"audience": "assistant", "format": "structured", "structuredContent": {"who": "assistant"}},
			{"audience": "x\"]", "format": "a=b,c", "structuredContent": "hostile"},
			{"audience": "\u2028\u202e", "structuredContent": "separators"},
			{"audience": "dup", "n": 1}, {"audience": "dup", "n": 2},
			{"audience": null, "flag": true, "structuredContent": "null audience"},
			"not an object", 7,
			{"audience": "assistant ", "format": "structured", "structuredContent": "trailing space"}
		],
		"a[b": {"c": 1},
		"list": [{"k": "v"}],
		"notArray": {"k": "v"}
	}`), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		path  string
		want  any
		found bool
		ambig string // a substring of the *AmbiguousError; "" none
	}{
		{name: "plain pointer", path: "/outputs/0/audience", want: "user", found: true},
		{name: "selected by two members", path: `/outputs[audience="assistant",format="structured"]/structuredContent/who`, want: "assistant", found: true},
		{name: "order of tests does not matter", path: `/outputs[format="structured", audience="assistant"]/structuredContent/who`, want: "assistant", found: true},
		{name: "hostile values match exactly", path: `/outputs[audience="x\"]",format="a=b,c"]/structuredContent`, want: "hostile", found: true},
		{name: "U+2028 and bidi values", path: `/outputs[audience="\u2028\u202e"]/structuredContent`, want: "separators", found: true},
		{name: "null and true", path: `/outputs[audience=null,flag=true]/structuredContent`, want: "null audience", found: true},
		{name: "no trailing-space match", path: `/outputs[audience="assistant",format="structured",structuredContent="trailing"]`, found: false},
		{name: "zero matches is absent", path: `/outputs[audience="programmatic"]/structuredContent`, found: false},
		{name: "a member of another type does not match", path: `/outputs[n="1"]`, found: false},
		{name: "a selector on an object is absent", path: `/notArray[k="v"]`, found: false},
		{name: "a missing array is absent", path: `/nothing[k="v"]`, found: false},
		{name: "the whole element", path: `/list[k="v"]`, want: map[string]any{"k": "v"}, found: true},
		{name: "literal [ in a key", path: "/a~2b/c", want: json.Number("1"), found: true},
		{name: "several matches", path: `/outputs[audience="dup"]/n`, ambig: `elements of the array at "/outputs" match its selector (indices 5, 6)`},
		{name: "several matches by one member", path: `/outputs[audience="assistant"]/structuredContent`, ambig: "(indices 1, 2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			got, found, err := p.Read(doc)
			if tc.ambig != "" {
				if err == nil || !IsAmbiguous(err) || !strings.Contains(err.Error(), tc.ambig) {
					t.Fatalf("Read = %v, want an ambiguity error holding %q", err, tc.ambig)
				}
				if _, ok := p.Lookup(doc); ok {
					t.Error("Lookup found a value where Read is ambiguous")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if found != tc.found || (found && !strictjson.Equal(got, tc.want)) {
				t.Errorf("Read = %#v, %v; want %#v, %v", got, found, tc.want, tc.found)
			}
			if _, ok := p.Lookup(doc); ok != found {
				t.Errorf("Lookup found %v, Read %v", ok, found)
			}
		})
	}
}

// TestPlainPathsReadAsPointers holds the pointers of a binding without a selector to
// strictjson.Pointer: a path reads what the pointer reads.
func TestPlainPathsReadAsPointers(t *testing.T) {
	t.Parallel()
	doc, err := strictjson.Decode("doc", []byte(`{"a":[{"b":null},{"c":[1,2]}],"":{"x":1},"~/":2}`), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"", "/a", "/a/0/b", "/a/1/c/1", "/a/01", "/a/+1", "/a/-0", "/a/2", "/", "//x", "/~0~1", "/a/0/b/x"} {
		t.Run(s, func(t *testing.T) {
			ptr, err := strictjson.ParsePointer(s)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			want, wok := ptr.Lookup(doc)
			got, gok := p.Lookup(doc)
			if wok != gok || !strictjson.Equal(want, got) {
				t.Errorf("Lookup = %v %v, pointer reads %v %v", got, gok, want, wok)
			}
		})
	}
}

// TestAmbiguousAt: the array an ambiguous selector reads is named by its concrete pointer, each
// earlier selection written as the index it chose.
func TestAmbiguousAt(t *testing.T) {
	t.Parallel()
	doc, err := strictjson.Decode("doc", []byte(`{"runs": [{"id": "x", "outputs": []}, {"id": "a/b~", "outputs": [{"k": 1}, {"k": 1}]}]}`), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = MustParse(`/runs[id="a/b~"]/outputs[k=null]`).Read(doc)
	if err != nil {
		t.Fatalf("no element has a null k: %v", err)
	}
	p := MustParse(`/runs[id="a/b~"]/outputs[ "k" = "1" ]`)
	if _, ok, err := p.Read(doc); ok || err != nil {
		t.Fatalf("a string never matches a number: %v %v", ok, err)
	}
	doc.(map[string]any)["runs"].([]any)[1].(map[string]any)["outputs"] = []any{map[string]any{"k": "1"}, map[string]any{"k": "1"}}
	_, _, err = p.Read(doc)
	var a *AmbiguousError
	if !errors.As(err, &a) || a.At != "/runs/1/outputs" || !reflect.DeepEqual(a.Indices, []int{0, 1}) {
		t.Fatalf("Read = %v, want an ambiguity at /runs/1/outputs, indices 0 and 1", err)
	}
}
