package probe

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// pendingRun is a run to make: the fixtures of one repetition (one, or in batch mode all those
// not yet called).
type pendingRun struct {
	rep      int
	fixtures []fixture
}

// runAll makes the runs, repetition by repetition, and returns their records and the provider
// APIs the command spoke, counting in res. In batch mode, a run that ended with some fixtures
// called and some not (a framework's step cap) is resumed in a fresh process with those left.
// With MaxFailures, after that many consecutive runs failed the same way before the MCP server
// served any fixture, or ran past the time limit alike, the rest are not run: each of their
// fixture repetitions is execution_failed, saying why.
func (o *Options) runAll(ctx context.Context, srv *hub, fixtures []fixture, lane laneDef, res *Result) ([]record, map[fakeprovider.API]bool, error) {
	var queue []pendingRun
	for rep := 1; rep <= o.Repetitions; rep++ {
		if o.Batch {
			queue = append(queue, pendingRun{rep, fixtures})
			continue
		}
		for _, f := range fixtures {
			queue = append(queue, pendingRun{rep, []fixture{f}})
		}
	}
	var records []record
	apis := map[fakeprovider.API]bool{}
	planned, started := len(queue), time.Now()
	streak, last := 0, ""
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		p := queue[0]
		queue = queue[1:]
		progress := runProgress(res.Runs+1, planned, time.Since(started))
		line := func(int) string { return progress }
		if o.Batch {
			line = func(i int) string { return fmt.Sprintf("fixture %d/%d of %s", i+1, len(p.fixtures), progress) }
		}
		out := o.runOnce(ctx, srv, p.fixtures, p.rep, lane, line)
		res.Runs++
		if o.Batch && len(out.uncalled) > 0 && len(out.uncalled) < len(p.fixtures) && ctx.Err() == nil {
			// The records of the fixtures left are the resumed run's.
			left := map[string]bool{}
			for _, f := range out.uncalled {
				left[f.id] = true
			}
			kept := out.records[:0]
			for _, r := range out.records {
				if !left[r.Fixture] {
					kept = append(kept, r)
				}
			}
			out.records = kept
			queue = append([]pendingRun{{p.rep, out.uncalled}}, queue...)
			planned++
			if !o.Quiet {
				fmt.Fprintf(o.Log, "probe: repetition %d: the command ended with %d of %d fixtures not called (a step cap?): resuming them in a fresh process\n", p.rep, len(out.uncalled), len(p.fixtures))
			}
		}
		for _, r := range out.records {
			if r.Stage == "H4" {
				if r.State == "captured" {
					res.Captured++
				} else {
					res.Failed++
				}
			}
		}
		for _, a := range out.apis {
			apis[a] = true
		}
		records = append(records, out.records...)

		// A failure before any fixture was served cannot be the fixture's doing (an SDK that
		// rejects an invalid result fails alike on a row of such fixtures, and rightly so), so
		// runs that failed alike then say the command is broken; so do runs that hung alike,
		// served or not, each costing the whole --run-timeout.
		sig := ""
		if !out.served || out.timedOut {
			sig = failureSignature(out.records, p.fixtures)
		}
		switch {
		case sig == "":
			streak, last = 0, ""
		case sig == last:
			streak++
		default:
			streak, last = 1, sig
		}
		if o.MaxFailures == 0 || streak < o.MaxFailures || len(queue) == 0 {
			continue
		}
		n := 0
		for _, q := range queue {
			n += len(q.fixtures)
		}
		why := fmt.Sprintf("not run: probe stopped after %d consecutive runs failed the same way (--max-failures %d): %s", streak, o.MaxFailures, last)
		fmt.Fprintf(o.Log, "probe: stopped after %d consecutive runs failed the same way (--max-failures %d; 0 never stops): %s; the %d fixture repetitions left are execution_failed, not run\n",
			streak, o.MaxFailures, escape.Terminal(last), n)
		for _, q := range queue {
			for _, f := range q.fixtures {
				recs, err := recordsFor(o, lane, f, q.rep, nil, nil, errors.New(why))
				if err != nil {
					return nil, nil, fmt.Errorf("probe: the records of a run not run: %w", err)
				}
				records = append(records, recs...)
				res.Failed++
				res.NotRun++
			}
		}
		break
	}
	return records, apis, nil
}

// runURL is a run's URL path prefix on the hub (/r/<token>), which an agent's output may quote.
var runURL = regexp.MustCompile(`/r/[0-9a-f]{16}`)

// failureSignature is how a run failed, for telling two failures alike: the first failure of its
// records, without the command's output tail (timestamps, pids) and with the run's fixture ids
// and URL token made generic; "" when no record of the run failed.
func failureSignature(records []record, fixtures []fixture) string {
	for _, r := range records {
		if r.State != "execution_failed" {
			continue
		}
		msg, _, _ := strings.Cut(r.Error, "; the command's output ended with: ")
		msg = runURL.ReplaceAllString(msg, "/r/…")
		for _, f := range fixtures {
			msg = strings.ReplaceAll(msg, f.id, "<fixture>")
		}
		return msg
	}
	return ""
}
