package instrument

import (
	"context"
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// warmCarriers starts compiling, on a goroutine of its own, the carrier schemas the run is about
// to need, and returns at once: those of every stage in scope of each lane a record file begins
// with (captures are written a lane at a time). Built-in carrier schemas otherwise compile when a
// record first needs one, and the workers wait: the control lane's alone reads three MCP
// revisions, about 60 ms, a fifth of a 10k-record run that the warm-up overlaps with the rest of
// Load. It only reads: a file it cannot read or a first line it cannot decode is left to the run
// to report, a schema that fails to compile is reported by the record that uses it, and standard
// input is not looked at (the run reads it once). It closes done when it is done.
func warmCarriers(v *schema.Validator, m *contract.Model, opts inputs.Options, done chan<- struct{}) {
	files := opts
	files.Observations = slices.DeleteFunc(slices.Clone(opts.Observations), func(p string) bool { return p == inputs.StdinArg })
	if len(opts.Observations) > 0 && len(files.Observations) == 0 {
		close(done)
		return // standard input only
	}
	go func() {
		defer close(done)
		list, err := files.RecordFiles()
		if err != nil {
			return
		}
		var paths []string
		seen := map[string]bool{}
		for _, f := range list {
			lane := firstLane(f)
			l, ok := m.Lanes[lane]
			if !ok || seen[lane] || !contract.LaneNamed(opts.Scope, lane) {
				continue
			}
			seen[lane] = true
			for _, st := range contract.SortedKeys(l.Stages) {
				c := l.Stages[st].Carrier
				// The control lane's carriers are validated as their fixture's source (validateCarrier):
				// its schema file is never compiled.
				if c != "" && c != schema.SourceCarrier && !slices.Contains(paths, c) && within(opts.Scope.Stages, st) {
					paths = append(paths, c)
				}
			}
		}
		for _, p := range paths {
			_ = v.CompileCarrier(p) // an error is the using record's to report
		}
	}()
}

// firstLane is the lane the first record of a file names, "" when it cannot be read.
func firstLane(f inputs.RecordFile) string {
	lane := ""
	_ = f.Envelopes(context.Background(), func(l inputs.RecordLine) bool { // the carrier is not read
		if m, ok := l.Doc.(map[string]any); ok {
			lane, _ = m["lane"].(string)
		}
		return false
	})
	return lane
}
