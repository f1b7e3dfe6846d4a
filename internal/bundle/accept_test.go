package bundle

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown/cache"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// acceptance evaluates the bundle's provider-acceptance Rego (rego/accept.rego) in process, with
// the OPA release the server tests run (go.mod), and check's validator on the same schemas.
type acceptance struct {
	pq rego.PreparedEvalQuery
	// values is the inter-query value cache a stock OPA server keeps (unbounded unless its
	// configuration bounds it) and gives every evaluation: json.match_schema keeps each schema it
	// has compiled there, where without it every decision compiles the schema again.
	values  cache.InterQueryValueCache
	schemas map[string]any
	goSide  map[string]func(any) error
}

func newAcceptance(t *testing.T) *acceptance {
	t.Helper()
	ctx := context.Background()
	compiler := compileRego(t, "rego/accept.rego", "rego/pointer.rego")
	pq, err := rego.New(rego.Compiler(compiler), rego.StrictBuiltinErrors(true),
		rego.Query("r := [x | x := data.contractcheck.bundle.accept.rejection(input.schema, input.item)]")).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := inputs.BuiltinValidator()
	if err != nil {
		t.Fatal(err)
	}
	config, err := cache.ParseCachingConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &acceptance{pq: pq, values: cache.NewInterQueryValueCache(ctx, config), schemas: map[string]any{}, goSide: map[string]func(any) error{}}
	entries, err := contractcheck.Builtin.ReadDir("schemas/providers")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".schema.json") {
			continue
		}
		name := "providers/" + e.Name()
		raw, err := contractcheck.Builtin.ReadFile("schemas/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if a.schemas[name], err = strictjson.Decode(name, raw, strictjson.DefaultLimits); err != nil {
			t.Fatal(err)
		}
		if err := checkProviderSchema(a.schemas[name]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a.goSide[name], err = v.Accepts(name); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.schemas) < 4 {
		t.Fatalf("%d provider schemas, want the pinned ones", len(a.schemas))
	}
	return a
}

// judge gives both sides' error for an item ("" when the schema accepts it).
func (a *acceptance) judge(t *testing.T, schema string, item any) (bundle, check string) {
	t.Helper()
	input, err := ast.InterfaceToValue(map[string]any{"schema": a.schemas[schema], "item": item})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := a.pq.Eval(context.Background(), rego.EvalParsedInput(input), rego.EvalInterQueryBuiltinValueCache(a.values))
	if err != nil || len(rs) != 1 {
		t.Fatalf("%s on %v: %v", schema, item, err)
	}
	if r := rs[0].Bindings["r"].([]any); len(r) == 1 {
		bundle = r[0].(string)
	}
	if err := a.goSide[schema](item); err != nil {
		check = err.Error()
	}
	return bundle, check
}

// parseRefused reports a difference the bundle documents (docs/opa.md): a URI only Go's url.Parse
// refuses is refused by both, but json.match_schema does not say why, so the bundle's error names
// url.Parse without its reason.
func parseRefused(bundle, check string) bool {
	prefix, found := strings.CutSuffix(bundle, ": url.Parse refuses it")
	return found && strings.Contains(prefix, `not a valid "uri": parse "`) && strings.HasPrefix(check, prefix+": ")
}

// TestProviderAcceptanceAgrees holds the bundle's provider acceptance (rego/accept.rego) to
// check's validator (internal/schema, Validator.Accepts) on every pinned provider schema: the same
// items accepted, the same error word for word for each refused one. Both exist because check
// validates with its own JSON Schema validator in process, while a stock OPA has only
// json.match_schema, whose "uri" format and wording differ (docs/opa.md). The schemas are data
// both read: the pinned files under schemas/providers/, named by the model's block mappings
// (accepts), which the bundle carries as data.contractcheck.contracts.providers. Beside this
// test, TestProviderAcceptanceURIs compares the "uri" format on 2500 URIs and TestProjectorAgrees
// every carried item of the catalogue.
func TestProviderAcceptanceAgrees(t *testing.T) {
	a := newAcceptance(t)
	image := "providers/openai-responses-input-image.schema.json"
	file := "providers/openai-responses-input-file.schema.json"
	text := "providers/openai-responses-input-text.schema.json"
	chat := "providers/openai-chat-image-url.schema.json"
	obj := func(s string) any {
		v, err := strictjson.Decode("item", []byte(s), strictjson.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name, schema, item string
		accepted           bool
	}{
		{"a data URL", image, `{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}`, true},
		{"raw base64 where a URL belongs", image, `{"type":"input_image","image_url":"iVBORw0KGgo="}`, false},
		{"a file id and no URL", image, `{"type":"input_image","file_id":"file-123","detail":"high"}`, true},
		{"nulls", image, `{"type":"input_image","image_url":null,"file_id":null,"detail":null,"prompt_cache_breakpoint":null}`, true},
		{"a detail not in the enum", image, `{"type":"input_image","detail":"bogus"}`, false},
		{"a detail of the wrong type", image, `{"type":"input_image","detail":5}`, false},
		{"an empty breakpoint", image, `{"type":"input_image","prompt_cache_breakpoint":{}}`, false},
		{"a breakpoint with a wrong mode", image, `{"type":"input_image","prompt_cache_breakpoint":{"mode":"implicit"}}`, false},
		{"the wrong type", image, `{"type":"input_file"}`, false},
		{"no type", image, `{"image_url":"https://example.com/a.png"}`, false},
		{"not an object", image, `"https://example.com/a.png"`, false},
		{"a number", image, `5`, false},
		{"null", image, `null`, false},
		{"several failures", image, `{"type":"x","image_url":"a b","detail":"y","file_id":3,"prompt_cache_breakpoint":[]}`, false},
		{"file data", file, `{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0=","filename":"a.pdf"}`, true},
		{"a file URL that is not a URI", file, `{"type":"input_file","file_url":"//host/a.pdf"}`, false},
		{"a file detail", file, `{"type":"input_file","detail":"original"}`, false},
		{"text", text, `{"type":"input_text","text":"hello"}`, true},
		{"text missing", text, `{"type":"input_text"}`, false},
		{"text and type missing", text, `{}`, false},
		{"text of the wrong type", text, `{"type":"input_text","text":["a"]}`, false},
		{"a chat image", chat, `{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}}`, true},
		{"a chat image without url", chat, `{"type":"image_url","image_url":{"detail":"low"}}`, false},
		{"a chat image with raw base64", chat, `{"type":"image_url","image_url":{"url":"iVBORw0KGgo="}}`, false},
		{"a chat image with a bad breakpoint", chat, `{"type":"image_url","image_url":{"url":"a:b"},"prompt_cache_breakpoint":{"mode":1}}`, false},
		{"a quote in a key", text, `{"type":"input_text","text":"a","it's":"\"x\""}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bundle, check := a.judge(t, tc.schema, obj(tc.item))
			if (check == "") != tc.accepted {
				t.Fatalf("check's validator gives %q: the case is wrong", check)
			}
			if bundle != check {
				t.Errorf("the bundle gives %q\n\tcheck gives %q", bundle, check)
			}
		})
	}
}

// uriPieces make the URIs TestProviderAcceptanceURIs tries: what the checker's uri format and Go's
// url.Parse each look at.
var uriPieces = []string{
	"http", "https", "a", "x+y", "1", "-", ":", "//", "/", "?", "#", "@", "[", "]", "%", "%4", "%41",
	"%zz", "%25", "::1", "1.2.3.4", ":80", ":x", "é", " ", "\\", "~", "'", "\"", "data:", "image/png",
	";base64,", "QUJD", "user:pw@", "[::1]", "[v1.x]", "\x01", "\u2028", "日本",
}

// TestProviderAcceptanceURIs holds the bundle's "uri" assertion to check's on URIs made of the
// pieces either side treats specially, as the image_url of an input_image: the same verdict on
// every one, and the same error but for those only url.Parse refuses (docs/opa.md).
func TestProviderAcceptanceURIs(t *testing.T) {
	a := newAcceptance(t)
	image := "providers/openai-responses-input-image.schema.json"
	rng := rand.New(rand.NewPCG(15, 16))
	seen := map[string]bool{}
	var uris []string
	for _, s := range []string{"https://example.com/a.png", "mailto:a@b", "a:", "a:b#c#d", "foo://1:2:3/", "http://1:2:3/",
		"http://[::1]:80/x", "http://[1.2.3.4]/", "http://a:b/", "a://x[y]", "a:/x[y]", "urn:a%2", "h://u@[::1]@x/"} {
		seen[s] = true
		uris = append(uris, s)
	}
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for len(uris) < 1000 {
		// scheme://userinfo@host:port/path?query#fragment, each part well-formed or not.
		s := pick("http", "https", "foo", "a+b", "1a") + ":" + pick("//", "//", "/", "") +
			pick("", "", "u@", "u:p@", "u[@", "%41@", "a@b@") +
			pick("example.com", "1.2.3.4", "[::1]", "[fe80::1%25en0]", "[1.2.3.4]", "[::1", "x[y]", "a:b:c", "[v7.x]", "", "ex%41mple", "h%zz", "[::ffff:1.2.3.4]") +
			pick("", "", ":80", ":", ":x", ":8a", "]") +
			pick("", "/", "/a/b", "/a b", "/%7e", "/é", "/[x]") + pick("", "?q=1", "?a#b", "?%") + pick("", "#f", "#f#g")
		if !seen[s] {
			seen[s] = true
			uris = append(uris, s)
		}
	}
	for len(uris) < 2500 {
		var b strings.Builder
		for range 1 + rng.IntN(7) {
			b.WriteString(uriPieces[rng.IntN(len(uriPieces))])
		}
		if s := b.String(); !seen[s] {
			seen[s] = true
			uris = append(uris, s)
		}
	}
	accepted, refused, parsed, parse := 0, 0, 0, map[string]int{}
	for _, s := range uris {
		bundle, check := a.judge(t, image, map[string]any{"type": "input_image", "image_url": s})
		switch {
		case (bundle == "") != (check == ""):
			t.Errorf("%q: the bundle gives %q, check %q", s, bundle, check)
		case bundle == check:
			if check == "" {
				accepted++
			} else {
				refused++
			}
		case parseRefused(bundle, check):
			parsed++
			parse[check[len(strings.TrimSuffix(bundle, ": url.Parse refuses it"))+2:]]++
		default:
			q, _ := json.Marshal(s)
			t.Errorf("%s: the bundle gives %q\n\tcheck gives %q", q, bundle, check)
		}
	}
	t.Logf("%d URIs: %d accepted by both, %d refused with the same error, %d refused by url.Parse (error without its reason)", len(uris), accepted, refused, parsed)
	t.Logf("url.Parse's reasons: %v", parse)
	if accepted < 50 || refused < 500 || parsed < 20 {
		t.Errorf("the URIs do not exercise both sides: %d accepted, %d refused, %d by url.Parse", accepted, refused, parsed)
	}
}

// TestCheckProviderSchema checks what the bundle's provider-acceptance validator refuses to read.
func TestCheckProviderSchema(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"the pinned shape", `{"$schema":"x","type":"object","required":["type"],"properties":{"type":{"type":"string","enum":["a"],"x-stainless-const":true},"u":{"anyOf":[{"type":"string","format":"uri","maxLength":9},{"$ref":"#/$defs/N","description":"d"}]}},"$defs":{"N":{"type":"null"}}}`, ""},
		{"a keyword it does not read", `{"properties":{"a":{"pattern":"^x"}}}`, `/properties/a: keyword "pattern"`},
		{"another format", `{"format":"date-time"}`, `/format: format date-time`},
		{"a boolean subschema", `{"properties":{"a":true}}`, "/properties/a: a subschema is an object here, not boolean"},
		{"a remote reference", `{"$ref":"https://example.com/s.json"}`, "/$ref: reference"},
		{"a reference to a property", `{"properties":{"a":{"type":"string"}},"anyOf":[{"$ref":"#/properties/a"}]}`, "/anyOf/0/$ref: reference"},
		{"a reference beside validation", `{"$ref":"#/$defs/A","type":"string","$defs":{"A":{}}}`, "(document): a reference beside validation keywords"},
		{"a cycle", `{"$ref":"#/$defs/A","$defs":{"A":{"properties":{"a":{"$ref":"#/$defs/A"}}}}}`, "a reference cycle"},
		{"nested definitions", `{"$defs":{"A":{"$defs":{}}}}`, ""},
		{"nested definitions used", `{"$ref":"#/$defs/A","$defs":{"A":{"$defs":{}}}}`, "/$defs/A/$defs: $defs only at the schema's root"},
		{"a bad type", `{"type":"float"}`, "/type: type is one type name"},
		{"not an object", `[]`, "a provider schema is an object"},
		{"too deep", `{"properties":{"a":` + strings.Repeat(`{"anyOf":[`, 16) + `{}` + strings.Repeat(`]}`, 16) + `}}`, "subschemas deep; the bundle's validator follows at most 16"},
		{"as deep as it reads", `{"properties":{"a":` + strings.Repeat(`{"anyOf":[`, 14) + `{}` + strings.Repeat(`]}`, 14) + `}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := strictjson.Decode("schema", []byte(tc.schema), strictjson.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			err = checkProviderSchema(doc)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}
