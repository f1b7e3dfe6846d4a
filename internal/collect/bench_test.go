package collect

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// cpuTime is the process's CPU time so far (user and system).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCollectIngest measures collect's ingest rate in process (ServeHTTP, no network): the
// decisions a bundle built with --quote-data logs for every built-in captured record, in gzip
// batches of batchEvents events (about OPA's default upload_size_limit_bytes of 32 KiB each),
// each decompressed, decoded, validated against the contract set and written durably (fsync of
// the file and of the directory) before it is answered: the rate, and the CPU time a decision
// costs (cpu-µs/decision: 10⁶ over it is the rate one core sustains when the disk keeps up). One uploader at a time (serial), and as
// many as GOMAXPROCS (parallel). It reports decisions/s and the bytes on disk per decision.
//
//	go test ./internal/collect -run XXX -bench CollectIngest
func BenchmarkCollectIngest(b *testing.B) {
	const batchEvents = 640
	events := reportkit.DecisionEvents(b, inputs.Options{})
	var bodies [][]byte
	var sizes []int
	var total int
	for _, c := range chunks(events, batchEvents) {
		body := reportkit.GzipBatch(b, c)
		bodies = append(bodies, body)
		sizes = append(sizes, len(c))
		total += len(body)
	}
	b.Logf("%d decisions in %d batches, %d bytes gzip'd on average", len(events), len(bodies), total/len(bodies))
	in := loaded(b, inputs.Options{})
	for _, mode := range []string{"serial", "parallel", "serial+census", "parallel+census"} {
		b.Run(mode, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "batches")
			opts := Options{Dir: dir}
			if strings.HasSuffix(mode, "+census") { // collect --census: each batch folded too
				opts.Census = filepath.Join(b.TempDir(), "census")
			}
			c, err := New(in, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			var next, decisions atomic.Int64
			post := func() {
				i := int(next.Add(1)-1) % len(bodies)
				req := httptest.NewRequest(http.MethodPost, DefaultPath, bytes.NewReader(bodies[i]))
				req.Header.Set("Content-Encoding", "gzip")
				rec := httptest.NewRecorder()
				c.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Errorf("HTTP %d %s", rec.Code, rec.Body)
				}
				decisions.Add(int64(sizes[i]))
			}
			cpu0 := cpuTime(b)
			b.ResetTimer()
			if strings.HasPrefix(mode, "serial") {
				for b.Loop() {
					post()
				}
			} else {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						post()
					}
				})
			}
			b.StopTimer()
			b.ReportMetric(float64(decisions.Load())/b.Elapsed().Seconds(), "decisions/s")
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(decisions.Load()), "cpu-µs/decision")
			size := func(dir string) float64 {
				var disk int64
				entries, err := os.ReadDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range entries {
					if info, err := e.Info(); err == nil {
						disk += info.Size()
					}
				}
				return float64(disk) / float64(decisions.Load())
			}
			b.ReportMetric(size(dir), "disk-B/decision")
			if opts.Census != "" {
				b.ReportMetric(size(opts.Census), "census-B/decision")
			}
		})
	}
}
