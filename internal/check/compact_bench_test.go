package check

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// BenchmarkCompactedCensus measures what compacting a fleet's censuses saves a report: the
// decisions of every built-in captured record, in batches of 4 events (collect's part per batch,
// as OPA's small chunks give them) spread over two collectors, reported on from the collectors'
// censuses (live: a part per batch) and from their compaction (compacted), and what the
// compaction itself costs (compact: check --census live1 --census live2 --census-out day).
//
//	go test ./internal/check -run XXX -bench CompactedCensus -benchtime 5x
func BenchmarkCompactedCensus(b *testing.B) {
	ctx := context.Background()
	opts := inputs.Options{}
	in, err := instrument.Load(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	events := reportkit.DecisionEvents(b, opts)
	cs := fleet(b, in, 2, chunked(events, 4))
	lives := []string{cs[0].census, cs[1].census}
	day := filepath.Join(b.TempDir(), "day")
	if _, _, err := RunCensuses(ctx, opts, lives, day); err != nil {
		b.Fatal(err)
	}
	count := func(dirs ...string) int {
		n := 0
		for _, d := range dirs {
			parts, err := censusdir.Parts(d)
			if err != nil {
				b.Fatal(err)
			}
			n += len(parts)
		}
		return n
	}
	for _, c := range []struct {
		name  string
		dirs  []string
		out   bool
		parts int
	}{
		{name: "live", dirs: lives, parts: count(lives...)},
		{name: "compacted", dirs: []string{day}, parts: count(day)},
		{name: "compact", dirs: lives, out: true, parts: count(lives...)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				out := ""
				if c.out {
					out = filepath.Join(b.TempDir(), "day")
				}
				if _, _, err := RunCensuses(ctx, opts, c.dirs, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.parts), "parts")
			b.ReportMetric(float64(len(events)), "decisions")
		})
	}
}
