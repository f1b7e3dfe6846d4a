package instrument

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestStreamBatchEdges: the reader hands lines to workers in batches of streamBatch; whichever
// batch the first bad line falls in (its first line, its last, the next batch's first), the error
// reported is that line's at any number of workers, with a second bad line later in the file, and
// a line too long to read (the reader's own error) comes after the records before it, a bad one
// among them included.
func TestStreamBatchEdges(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "observations", "direct", "v1", "default.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	in := loadInstrument(t, strict)
	skip := func(*Record, []result.Reading) error { return nil }
	good := strings.SplitAfter(string(data), "\n")[:5*streamBatch]
	for _, bad := range []int{1, streamBatch - 1, streamBatch, streamBatch + 1, 2 * streamBatch, 3*streamBatch + 1} {
		for _, kind := range []struct{ name, line, want string }{
			{name: "bad record", line: `{"fixture":"C01"}` + "\n", want: "obs.jsonl:%d: "},
			{name: "line too long", line: `"` + strings.Repeat("x", int(16<<20)) + `"` + "\n", want: "obs.jsonl:%d:1: line %[1]d is"},
		} {
			lines := append([]string(nil), good...)
			lines[bad-1] = kind.line
			if kind.name == "bad record" {
				// a line too long right after: the reader's error must wait for the batch before it
				lines[bad] = `"` + strings.Repeat("x", int(16<<20)) + `"` + "\n"
			}
			lines[len(lines)-2] = `{"fixture":"C02"}` + "\n" // a later bad line never wins
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "obs.jsonl"), []byte(strings.Join(lines, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := Options{Observations: []string{dir}}.RecordFiles()
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 2, 3, 8} {
				_, err := Stream(context.Background(), in, files, workers, in.Evaluate, skip)
				want := fmt.Sprintf(kind.want, bad)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s at line %d, workers %d: %v, want an error at %q", kind.name, bad, workers, err, want)
				}
			}
		}
	}
}
