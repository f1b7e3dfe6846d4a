package schema

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// TestRecordFastPathAgreesWithTheSchema holds the Go check of the record envelope to the record
// schema, both ways, over the record corpus, every built-in observation record, and variants of
// them with one member changed or removed: the fast path never accepts a record the schema
// rejects, and accepts every record the schema accepts (else it would be no faster).
func TestRecordFastPathAgreesWithTheSchema(t *testing.T) {
	v := newValidator(t)
	// docs are held to the schema both ways; vary are those each variant is made of: every
	// record of the corpus, and of the built-in records one of each kind (recordKind), since they
	// differ past their kind only in values every one of them holds to the schema as it is.
	var docs, vary []any
	kinds := map[string]bool{}
	add := func(name string, data []byte, corpus bool) {
		doc, err := strictjson.Decode(name, data, strictjson.DefaultLimits)
		if err != nil {
			return
		}
		docs = append(docs, doc)
		if k := recordKind(doc); corpus || !kinds[k] {
			kinds[k] = true
			vary = append(vary, doc)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "record", "*"))
	obs, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "observations", "*", "*", "*.jsonl"))
	for _, f := range append(files, obs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(f, ".jsonl") {
			add(f, data, true)
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			add(f, sc.Bytes(), false)
		}
	}
	variants := []func(map[string]any){
		func(m map[string]any) { delete(m, "fixture") },
		func(m map[string]any) { m["fixture"] = "" },
		func(m map[string]any) { m["lane"] = "Bad_Lane" },
		func(m map[string]any) { m["lane"] = "-x" },
		func(m map[string]any) { m["configuration"] = 7 },
		func(m map[string]any) { m["stage"] = "W0" },
		func(m map[string]any) { m["repetition"] = strictjsonNumber("0") },
		func(m map[string]any) { m["repetition"] = strictjsonNumber("2.0") },
		func(m map[string]any) { m["repetition"] = strictjsonNumber("1.5") },
		func(m map[string]any) { m["repetition"] = strictjsonNumber("1e1") },
		func(m map[string]any) { m["repetition"] = strictjsonNumber("-1") },
		func(m map[string]any) { m["repetition"] = "1" },
		func(m map[string]any) { m["state"] = "captured" },
		func(m map[string]any) { m["state"] = "execution_failed" },
		func(m map[string]any) { m["state"] = "not_reached" },
		func(m map[string]any) { m["state"] = "ambiguous" },
		func(m map[string]any) { m["error"] = "" },
		func(m map[string]any) { m["error"] = "boom" },
		func(m map[string]any) { delete(m, "carrier") },
		func(m map[string]any) { m["carrier"] = nil },
		func(m map[string]any) { m["sourceSha256"] = strings.Repeat("A", 64) },
		func(m map[string]any) { m["sourceSha256"] = strings.Repeat("a", 63) },
		func(m map[string]any) { m["origin"] = "reconstructed" },
		func(m map[string]any) { m["origin"] = "invented" },
		func(m map[string]any) { m["basis"] = []any{} },
		func(m map[string]any) {
			m["basis"] = []any{map[string]any{"rule": "r", "file": "f", "function": "g", "version": "1"}}
		},
		func(m map[string]any) {
			m["basis"] = []any{map[string]any{"rule": "r", "file": "f", "function": "g", "version": ""}}
		},
		func(m map[string]any) { m["notes"] = "a note" },
		func(m map[string]any) { m["notes"] = 1 },
		func(m map[string]any) { m["extra"] = true },
	}
	for _, d := range vary {
		m, ok := d.(map[string]any)
		if !ok {
			continue
		}
		for _, change := range variants {
			c := make(map[string]any, len(m))
			for k, x := range m {
				c[k] = x
			}
			change(c)
			docs = append(docs, c)
		}
	}
	record, err := v.record.get(v, RecordSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for i, d := range docs {
		fast := recordConforms(d)
		schemaOK := record.Validate(d) == nil
		if fast != schemaOK {
			t.Errorf("record %d: fast path %v, schema %v: %v", i, fast, schemaOK, d)
		}
		if fast {
			accepted++
		}
	}
	if accepted < 1000 {
		t.Errorf("only %d of %d records accepted: the corpus is too small to hold the fast path to the schema", accepted, len(docs))
	}
}

func strictjsonNumber(s string) any {
	doc, err := strictjson.Decode("n", []byte(s), strictjson.DefaultLimits)
	if err != nil {
		panic(err)
	}
	return doc
}

// recordKind is what of a record the record schema's conditions read beside each member's own
// value: which members it has, its state, its origin and its stage; and whether the fast path
// accepts it. Two built-in records of one kind differ only in values (a fixture, a lane, a hash, a
// carrier) each is held to the schema by, as it is.
func recordKind(doc any) string {
	m, ok := doc.(map[string]any)
	if !ok {
		return fmt.Sprintf("%T", doc)
	}
	k := slices.Sorted(maps.Keys(m))
	for _, member := range []string{"state", "origin", "stage"} {
		k = append(k, fmt.Sprint(m[member]))
	}
	k = append(k, fmt.Sprint(recordConforms(doc)))
	return strings.Join(k, "\x00")
}
