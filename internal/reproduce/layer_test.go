package reproduce

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// binding is a lane stage reproduce has a seam for, with the version the layer's records are
// captured at.
type binding struct{ lane, version, stage string }

// layerBindings are the bindings hostileLayer writes a record for: one per generated language.
var layerBindings = []binding{
	{"go-sdk", "v1.8.0", "D1"},
	{"mcp-python", "1.29.0", "D1"},
	{"langchain-mcp-adapters-js", "1.1.4", "A2"},
}

// layerTasks are the tasks a binding's reproduction is asked for: T1 reads the text, T2 a
// structuredContent key and value, T5 a result _meta key (a langchain-js A2 carrier puts _meta
// and structuredContent in one artifact list, so T5 is not asked of it).
var layerTasks = map[string][]string{
	"go-sdk":                    {"T1", "T2", "T5"},
	"mcp-python":                {"T1", "T2", "T5"},
	"langchain-mcp-adapters-js": {"T1", "T2"},
}

// jsonString is s as a JSON string that escapes only what JSON requires ('"', '\' and C0
// controls): every other character, U+2028, bidi controls and C1 controls included, is in the
// file as it is. Each byte of invalid UTF-8 becomes U+FFFD (a source must be valid JSON), as
// escape.CUE writes it in the catalogue doc and encoding/json reads it.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hostileSource is the W0 result that puts s in each place a string of a result can be: the
// text of a content block, a structuredContent key (of a number a float64 loses) and value,
// and a result _meta key.
func hostileSource(s string) []byte {
	q := jsonString(s)
	return []byte(`{"content":[{"type":"text","text":` + q + `}],"structuredContent":{` + q + `:9007199254740993,"value":` + q +
		`},"_meta":{` + q + `:"m","keep":"k"}}` + "\n")
}

// hostileCarrier is what a lane's carrier holds of hostileSource(s) after losing each of its
// places: the text and the value replaced, the number rounded, the _meta key dropped.
func hostileCarrier(lane, s string) string {
	q := jsonString(s)
	structured := `{` + q + `:9007199254740992,"value":"lost"}`
	if lane == "langchain-mcp-adapters-js" {
		return `{"type":"tool","content":"lost","artifact":[{"type":"mcp_structured_content","data":` + structured +
			`}],"status":"success","tool_call_id":"call_fixture_1","name":"fixture_tool","metadata":{},"additional_kwargs":{},"response_metadata":{}}`
	}
	return `{"content":[{"type":"text","text":"lost"}],"structuredContent":` + structured + `,"_meta":{"keep":"k"}}`
}

// hostileLayer writes a contract, fixture and observation layer under dir in which fixture
// ids[i] holds strings[i] in every place of hostileSource (its catalogue doc too) and each of
// layerBindings captured it with every place lost (in observations/<id>/); it returns the
// options that read it.
func hostileLayer(t testing.TB, dir string, ids, strings_ []string) inputs.Options {
	t.Helper()
	contracts := filepath.Join(dir, "contracts")
	fixtures := filepath.Join(dir, "fixtures")
	sources := filepath.Join(fixtures, "sources", "hostile")
	obs := filepath.Join(dir, "observations")
	for _, d := range []string{contracts, sources, obs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var cue strings.Builder
	cue.WriteString("package contracts\n\nfixtures: {\n")
	for i, id := range ids {
		s := strings_[i]
		// The catalogue doc holds s too (ISSUE.md quotes it).
		doc := escape.CUE(s)
		fmt.Fprintf(&cue, "\t%q: {suite: \"hostile\", family: \"structured-stress\", revision: \"2025-11-25\", tasks: [\"T1\", \"T2\", \"T5\"], targets: [], doc: %s}\n", id, doc)
		src := hostileSource(s)
		if err := os.WriteFile(filepath.Join(sources, id+".json"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(src)
		var records strings.Builder
		for _, b := range layerBindings {
			fmt.Fprintf(&records, `{"fixture":%q,"lane":%q,"laneVersion":%q,"configuration":"default","stage":%q,"repetition":1,"state":"captured","carrier":%s,"sourceSha256":%q,"origin":"captured"}`+"\n",
				id, b.lane, b.version, b.stage, hostileCarrier(b.lane, s), hex.EncodeToString(sum[:]))
		}
		// A directory of records per fixture: a build given only it reads only them.
		testkit.WriteFile(t, filepath.Join(obs, id, "records.jsonl"), records.String())
	}
	cue.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(contracts, "hostile.cue"), []byte(cue.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return inputs.Options{Contracts: []string{contracts}, Fixtures: []string{fixtures}, Observations: []string{obs}}
}

// isASCII reports whether b is all ASCII: generated source holds no other byte, whatever the
// data (escape.Go, escape.JavaScript and escape.Python write ASCII only).
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
