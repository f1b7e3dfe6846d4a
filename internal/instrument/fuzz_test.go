package instrument

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

var fuzzInstrument struct {
	once sync.Once
	in   *Instrument
	err  error
}

// FuzzRecord reads any bytes as a file of observation records and evaluates every record that
// validates, as check does: no panic, every refusal names the file and the record's line, and a
// valid record evaluates without error under the built-in contracts and policies. Seeds:
// testdata/fuzz/FuzzRecord and records of every built-in lane.
func FuzzRecord(f *testing.F) {
	fuzzInstrument.once.Do(func() { fuzzInstrument.in, fuzzInstrument.err = Load(context.Background(), inputs.Options{}) })
	if fuzzInstrument.err != nil {
		f.Fatal(fuzzInstrument.err)
	}
	in := fuzzInstrument.in
	// The first record of each built-in records file.
	_ = fs.WalkDir(contractcheck.Builtin, "fixtures/observations", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			if data, err := fs.ReadFile(contractcheck.Builtin, p); err == nil {
				line, _, _ := strings.Cut(string(data), "\n")
				f.Add([]byte(line + "\n"))
			}
		}
		return nil
	})
	f.Add([]byte("{}\n\n[1]\n{\"fixture\":\"C01\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := strictjson.NewLineReader("fuzz.jsonl", strings.NewReader(string(data)), strictjson.DefaultLimits)
		for {
			line, doc, err := lr.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
					t.Fatalf("read error without the file: %v", err)
				}
				continue
			}
			rec, err := in.ParseRecord("fuzz.jsonl", line, doc)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
					t.Fatalf("line %d: refusal without the file: %v", line, err)
				}
				continue
			}
			if _, err := in.Evaluate(context.Background(), rec); err != nil {
				t.Fatalf("line %d: a valid record fails to evaluate: %v", line, err)
			}
		}
	})
}
