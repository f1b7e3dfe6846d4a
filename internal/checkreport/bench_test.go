package checkreport

import (
	"context"
	"io"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/report"
)

// BenchmarkReplay is a re-run of the unchanged built-in check answered from the cache: the key
// (the inputs hashed) and one copy of the stored bytes. BenchmarkRender is what rendering a
// stored report would cost on top of decoding it: the format alone, from the report in memory.
// Together they are the measure of keeping formatted bytes (see the package doc).
func BenchmarkReplay(b *testing.B) {
	b.Setenv("CONTRACTCHECK_CACHE", b.TempDir())
	for _, format := range []string{"json", "text"} {
		b.Run(format, func(b *testing.B) {
			req := Request{Check: check.Request{Options: inputs.Options{}}, Format: format}
			sink := func(write func(io.Writer) error) error { return write(io.Discard) }
			if _, err := Execute(context.Background(), req, sink); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				o, err := Execute(context.Background(), req, sink)
				if err != nil || !o.Replayed {
					b.Fatalf("outcome %+v, error %v: want a replay", o, err)
				}
			}
		})
	}
}

// BenchmarkRender renders the built-in check's report (see BenchmarkReplay).
func BenchmarkRender(b *testing.B) {
	r, err := check.Run(context.Background(), inputs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"json", "text"} {
		b.Run(format, func(b *testing.B) {
			out, err := report.Outputters().Get(format, report.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := out.Output(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
