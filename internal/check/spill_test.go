package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/bench"
	"github.com/contractcheck/contractcheck/internal/census"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// TestCensusRunsAreTheSameReport: a check whose census writes a run to its run file every few
// readings (the path of a run of millions of bindings: census.Options.RunSize) gives the report, in
// every format and with --details, that a check whose census keeps its readings in one run in
// memory gives, byte for byte: on the built-in check, and on a generated set with three
// repetitions a position (a binding's repetitions then lie in several runs).
func TestCensusRunsAreTheSameReport(t *testing.T) {
	ctx := context.Background()
	set, err := bench.Generate(t.TempDir(), bench.Options{Bindings: 2_000, Repetitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	builtinFiles, err := builtin.Options().RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	in, files := loadSet(t, set)
	tests := []struct {
		name  string
		in    *instrument.Instrument
		files []inputs.RecordFile
	}{
		{name: "the built-in check", in: builtin, files: builtinFiles},
		{name: "a generated set of three repetitions", in: in, files: files},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			outputs := func(every int) map[string][]byte {
				tc.in.ForgetVerdicts()
				r, err := runWith(ctx, tc.in, tc.files, 0, nil, census.Options{RunSize: every})
				if err != nil {
					t.Fatal(err)
				}
				return reportkit.EveryFormat(t, r)
			}
			want, got := outputs(0), outputs(97)
			if len(want) < 18 {
				t.Fatalf("%d outputs, want every format with and without details", len(want))
			}
			for k, w := range want {
				if !bytes.Equal(got[k], w) {
					t.Errorf("%s differs when the census writes runs of 97 readings (%d bytes, want %d)", k, len(got[k]), len(w))
				}
			}
		})
	}
}

// TestRepeatedRecordIsAnInputError: a record repeated in a set whose census writes runs (so its
// two readings lie in different runs) is found when the report is made: an input error (exit 2)
// naming both lines, whatever the run size.
func TestRepeatedRecordIsAnInputError(t *testing.T) {
	ctx := context.Background()
	set, err := bench.Generate(t.TempDir(), bench.Options{Bindings: 500})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(set.Observations, "bench.jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if err := os.WriteFile(file, append(data, append(first, '\n')...), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	for _, every := range []int{0, 1, 97} {
		t.Run(fmt.Sprintf("runs of %d", every), func(t *testing.T) {
			in, files := loadSet(t, set)
			_, err := runWith(ctx, in, files, 0, nil, census.Options{RunSize: every})
			want := fmt.Sprintf("bench.jsonl:%d: ", lines)
			if result.ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "recorded twice (first at ") || !strings.Contains(err.Error(), "bench.jsonl:1)") {
				t.Fatalf("exit %d: %v, want exit 2 naming %s and line 1", result.ExitCode(err), err, want)
			}
		})
	}
}
