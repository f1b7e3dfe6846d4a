package project

import (
	"fmt"
	"io/fs"
	"testing"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/testkit"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// builtinProjectors compiles every compartment of every lane stage of the built-in model, and
// the canonical source binding, once for the tests that read them: the projectors by
// "lane.stage.compartment", and "source".
var builtinProjectors = testkit.Once(func() (map[string]*Projector, error) {
	m, err := contract.Load([]layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts")})
	if err != nil {
		return nil, err
	}
	schemas, err := fs.Sub(contractcheck.Builtin, "schemas")
	if err != nil {
		return nil, err
	}
	v, err := schema.New(schemas)
	if err != nil {
		return nil, err
	}
	ps := map[string]*Projector{}
	if ps["source"], err = Compile("source", m.Revisions["2025-11-25"].Source); err != nil {
		return nil, err
	}
	for _, lane := range contract.SortedKeys(m.Lanes) {
		for _, st := range contract.SortedKeys(m.Lanes[lane].Stages) {
			for name, c := range m.Lanes[lane].Stages[st].Compartments {
				key := fmt.Sprintf("%s.%s.%s", lane, st, name)
				if ps[key], err = CompileWith(key, c, Options{Accepts: v.Accepts}); err != nil {
					return nil, err
				}
			}
		}
	}
	return ps, nil
})

// FuzzProject runs every compartment of the built-in model on any JSON carrier: no projector
// panics, and every view is JSON the policies can read (it encodes canonically and decodes to an
// equal tree). Seeds: testdata/fuzz/FuzzProject (carriers of every lane, and broken shapes).
func FuzzProject(f *testing.F) {
	ps := builtinProjectors(f)
	if len(ps) < 20 {
		f.Fatalf("only %d projectors in the built-in model", len(ps))
	}
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a"}],"structuredContent":{"n":1},"isError":false,"_meta":{"k":null}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}`,
		`{"content":[{"type":"image","data":"not base64!","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///x","blob":"AAE="}}]}`,
		`{"output":"{\"a\":1}","parts":[{"functionResponse":{"response":{"content":[{"type":"text"}]}}}]}`,
		`[]`, `null`, `{"content":{"type":"text"}}`, `{"content":[null,1,"x",[]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		carrier, err := strictjson.Decode("carrier.json", data, strictjson.DefaultLimits)
		if err != nil {
			return
		}
		for key, p := range ps {
			view := p.Project(carrier)
			b, err := strictjson.Marshal(view)
			if err != nil {
				t.Fatalf("%s: the view does not encode: %v", key, err)
			}
			back, err := strictjson.Decode("view.json", b, strictjson.DefaultLimits)
			if err != nil || !strictjson.Equal(back, map[string]any(view)) {
				t.Fatalf("%s: the view %s does not read back (%v)", key, b, err)
			}
		}
	})
}
