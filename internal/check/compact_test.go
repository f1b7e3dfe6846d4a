package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// directPaperScope is the built-in control lane on suite paper: a set of decisions small enough
// to split into many batches.
var directPaperScope = inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Suites: []string{"paper"}}}

// collector is one collector's output as collect writes it: its batch files in dir and the census
// of them in census, a part per batch, each reading placed as check --decision-logs over dir
// places it (what collect's fold does: internal/collect).
type collector struct{ dir, census string }

// fleet writes batches round-robin to n collectors, batch i received at base+i seconds.
func fleet(t testing.TB, in *instrument.Instrument, n int, batches [][]map[string]any) []collector {
	t.Helper()
	root := t.TempDir()
	cs := make([]collector, n)
	ws := make([]*censusdir.Writer, n)
	for i := range cs {
		cs[i] = collector{filepath.Join(root, "batches"+string(rune('1'+i))), filepath.Join(root, "live"+string(rune('1'+i)))}
		if err := os.MkdirAll(cs[i].dir, 0o755); err != nil {
			t.Fatal(err)
		}
		w, err := censusdir.Open(cs[i].census, mustSet(t, in.Options()))
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
	}
	base := time.Date(2026, 12, 6, 7, 5, 45, 123456789, time.UTC)
	for i, b := range batches {
		c, seq := i%n, uint64(i/n+1)
		received := base.Add(time.Duration(i) * time.Second)
		file := filepath.Join(cs[c].dir, decisionlog.BatchFileName(seq, received))
		if err := os.WriteFile(file, reportkit.GzipBatch(t, b), 0o644); err != nil {
			t.Fatal(err)
		}
		var rs []result.Reading
		var errs []result.DecisionError
		if _, err := decisionlog.Read(context.Background(), []string{file}, nil, func(d *decisionlog.Decision) error {
			if d.Error != "" {
				errs = append(errs, result.DecisionError{At: d.At(), Decision: d.ID, Error: d.Error})
				return nil
			}
			got, err := DecisionReadings(in, d)
			rs = append(rs, got...)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if err := ws[c].AddBatch(censusdir.Batch{Seq: seq, Received: received}, rs, errs); err != nil {
			t.Fatal(err)
		}
	}
	return cs
}

// chunked cuts events into batches of n.
func chunked(events []map[string]any, n int) [][]map[string]any {
	var out [][]map[string]any
	for len(events) > n {
		out = append(out, events[:n])
		events = events[n:]
	}
	return append(out, events)
}

// TestCompactDecisionCensuses: the censuses of a fleet's collectors compacted into one (check
// --census live1 --census live2 --census-out day), and the census written from their batch files
// (check --decision-logs b1 --decision-logs b2 --census-out X), are read (check --census) to the
// report of check --decision-logs over every batch and of check --census over the live censuses,
// byte for byte in every format, with and without --details, and the same exit code; compacting
// again with a census it already holds changes nothing; the note keeps each collector's window.
func TestCompactDecisionCensuses(t *testing.T) {
	ctx := context.Background()
	in, err := instrument.Load(ctx, directPaperScope)
	if err != nil {
		t.Fatal(err)
	}
	events := reportkit.DecisionEvents(t, directPaperScope)
	failed := reportkit.DecisionEvent("failed-1", map[string]any{"error": map[string]any{"code": "eval_error", "message": "timeout <script>\u2028"}})
	some := reportkit.DropEvery(events, 3, 1) // as OPA's buffer limit drops decisions
	for _, tc := range []struct {
		name       string
		batches    [][]map[string]any
		collectors int
		scope      inputs.Options
		lacking    bool
	}{
		{name: "two collectors, every decision: a verdict", batches: chunked(events, 17), collectors: 2, scope: directPaperScope},
		{name: "three collectors, some decisions and an error (collector 1's)", batches: append([][]map[string]any{{failed}}, chunked(some, 11)...), collectors: 3, scope: directPaperScope, lacking: true},
		{name: "narrowed by the run's scope", batches: chunked(events, 17), collectors: 2,
			scope: inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Suites: []string{"paper"}, Fixtures: []string{"C0*"}}}, lacking: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fleet(t, in, tc.collectors, tc.batches)
			var dirs, lives []string
			for _, c := range cs {
				dirs, lives = append(dirs, c.dir), append(lives, c.census)
			}
			want, counts, err := RunDecisionLogs(ctx, tc.scope, DecisionLogs{Paths: dirs})
			if err != nil {
				t.Fatal(err)
			}
			if (want.Lacking != nil) != tc.lacking {
				t.Fatalf("lacking %+v, want lacking %v", want.Lacking, tc.lacking)
			}
			out := t.TempDir()
			day := filepath.Join(out, "day")
			fromLogs := filepath.Join(out, "from-logs")
			again := filepath.Join(out, "again")
			ways := []struct {
				name string
				run  func() (*result.Report, error)
			}{
				{"check --census live…", func() (*result.Report, error) {
					r, _, err := RunCensuses(ctx, tc.scope, lives, "")
					return r, err
				}},
				{"check --census live… --census-out day (its report)", func() (*result.Report, error) {
					r, _, err := RunCensuses(ctx, tc.scope, lives, day)
					return r, err
				}},
				{"check --census day", func() (*result.Report, error) {
					r, _, err := RunCensuses(ctx, tc.scope, []string{day}, "")
					return r, err
				}},
				{"check --decision-logs b… --census-out from-logs (its report)", func() (*result.Report, error) {
					r, _, err := RunDecisionLogsOut(ctx, tc.scope, DecisionLogs{Paths: dirs}, fromLogs)
					return r, err
				}},
				{"check --census from-logs", func() (*result.Report, error) {
					r, _, err := RunCensuses(ctx, tc.scope, []string{fromLogs}, "")
					return r, err
				}},
				{"check --census day --census live1 --census-out again, then --census again", func() (*result.Report, error) {
					if _, _, err := RunCensuses(ctx, tc.scope, []string{day, lives[0]}, again); err != nil {
						return nil, err
					}
					r, _, err := RunCensuses(ctx, tc.scope, []string{again}, "")
					return r, err
				}},
			}
			wantOut := reportkit.EveryFormat(t, want)
			for _, w := range ways {
				got, err := w.run()
				if err != nil {
					t.Fatalf("%s: %v", w.name, err)
				}
				if got.ExitCode() != want.ExitCode() {
					t.Errorf("%s: exit %d, decision logs %d", w.name, got.ExitCode(), want.ExitCode())
				}
				for k, g := range reportkit.EveryFormat(t, got) {
					if string(g) != string(wantOut[k]) {
						t.Errorf("%s: %s differs from check --decision-logs': %s", w.name, k, reportkit.LineDiff(string(g), string(wantOut[k])))
					}
				}
			}
			// The windows: each collector's batches, whichever way the census was written.
			for _, dir := range []string{day, again, fromLogs} {
				info, err := censusdir.ReadWith(dir, mustSet(t, in.Options()), censusdir.Handlers{Reading: func(result.Reading) error { return nil },
					Visibility: nil, DecisionError: func(result.DecisionError) error { return nil }})
				if err != nil {
					t.Fatal(err)
				}
				if !info.Complete || !info.Compacted || len(info.Sources) != tc.collectors {
					t.Fatalf("%s: %+v, want a complete compacted census of %d collectors", dir, info, tc.collectors)
				}
				total := uint64(0)
				for i, s := range info.Sources {
					total += s.Batches()
					if name := filepath.Base(s.Name); name != filepath.Base(lives[i]) && name != filepath.Base(dirs[i]) {
						t.Errorf("%s: window %d is of %s, want collector %d's", dir, i, s.Name, i+1)
					}
					if s.Seqs[0][0] != 1 {
						t.Errorf("%s: %s", dir, s)
					}
				}
				if int(total) != len(tc.batches) || int(total) != counts.Window.Batches {
					t.Errorf("%s: windows %s hold %d batches, %d were collected", dir, info.Sources, total, len(tc.batches))
				}
				if !strings.Contains(info.String(), "a compacted census of decision logs, "+info.Sources.String()) {
					t.Errorf("the note %q does not say the windows", info)
				}
			}
			// Read before its marker exists (the compaction still running): no verdict.
			partial := filepath.Join(out, "partial")
			if err := os.Mkdir(partial, 0o755); err != nil {
				t.Fatal(err)
			}
			parts, err := censusdir.Parts(day)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				data, err := os.ReadFile(filepath.Join(day, p))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(partial, p), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, read, err := RunCensuses(ctx, tc.scope, []string{partial}, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.Gate.Verdict != result.VerdictIncomplete || r.ExitCode() != result.ExitInputError || !strings.Contains(read.String(), "still being written") {
				t.Errorf("a compacted census without its marker: verdict %s, exit %d, note %q; want no verdict, exit 2, still being written", r.Gate.Verdict, r.ExitCode(), read)
			}
			// collect adds to no compacted census.
			if err := censusdir.CanOpen(day); err == nil || !strings.Contains(err.Error(), day) {
				t.Errorf("collect may open the compacted census %s (%v)", day, err)
			}
		})
	}
}

// TestCompactRefused: a --census-out that is an input or lies inside one, and a merge of a
// compacted census of decision logs with a census of a check, are input errors (exit 2) naming
// the path; nothing is written.
func TestCompactRefused(t *testing.T) {
	ctx := context.Background()
	in, err := instrument.Load(ctx, directPaperScope)
	if err != nil {
		t.Fatal(err)
	}
	cs := fleet(t, in, 1, chunked(reportkit.DecisionEvents(t, directPaperScope), 40))
	live, batches := cs[0].census, cs[0].dir
	compacted := filepath.Join(t.TempDir(), "day")
	if _, _, err := RunCensuses(ctx, directPaperScope, []string{live}, compacted); err != nil {
		t.Fatal(err)
	}
	checkCensus := filepath.Join(t.TempDir(), "check")
	if _, err := RunCensusOut(ctx, directPaperScope, checkCensus); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(live, link); err != nil {
		t.Fatal(err)
	}
	rootLink := filepath.Join(t.TempDir(), "root")
	if err := os.Symlink(filepath.Dir(live), rootLink); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		run       func(out string) error
		out, want string
		names     string // the path the message names, when not out
	}{
		{name: "--census-out is the --census input", out: live, want: "an input of this run: refused",
			run: func(out string) error {
				_, _, err := RunCensuses(ctx, directPaperScope, []string{live}, out)
				return err
			}},
		{name: "--census-out inside the --census input", out: filepath.Join(live, "day"), want: "--census-out " + filepath.Join(live, "day") + " is inside",
			run: func(out string) error {
				_, _, err := RunCensuses(ctx, directPaperScope, []string{live}, out)
				return err
			}},
		{name: "--census-out inside the input through a link", out: filepath.Join(link, "day"), want: "is inside",
			run: func(out string) error {
				_, _, err := RunCensuses(ctx, directPaperScope, []string{live}, out)
				return err
			}},
		{name: "--census-out inside --decision-logs", out: filepath.Join(batches, "census"), want: "is inside",
			run: func(out string) error {
				_, _, err := RunDecisionLogsOut(ctx, directPaperScope, DecisionLogs{Paths: []string{batches}}, out)
				return err
			}},
		// Written around an input, a census would hold it: its parts beside the input's.
		{name: "--census-out holds the --census input", out: filepath.Dir(live), want: "holds " + live,
			run: func(out string) error {
				_, _, err := RunCensuses(ctx, directPaperScope, []string{live}, out)
				return err
			}},
		{name: "--census-out holds the --census input through a link", out: rootLink, want: "holds " + live,
			run: func(out string) error {
				_, _, err := RunCensuses(ctx, directPaperScope, []string{live}, out)
				return err
			}},
		{name: "--census-out holds --decision-logs", out: filepath.Dir(batches), want: "holds " + batches,
			run: func(out string) error {
				_, _, err := RunDecisionLogsOut(ctx, directPaperScope, DecisionLogs{Paths: []string{batches}}, out)
				return err
			}},
		{name: "a compacted census and a check's", out: filepath.Join(t.TempDir(), "mixed"), want: "are not merged", names: checkCensus,
			run: func(out string) error {
				_, _, err := RunCensuses(ctx, directPaperScope, []string{compacted, checkCensus}, out)
				return err
			}},
		{name: "a check's census and a compacted one, reported", want: "are not merged", names: compacted,
			run: func(string) error {
				_, _, err := RunCensuses(ctx, directPaperScope, []string{checkCensus, compacted}, "")
				return err
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(tc.out)
			if err == nil || result.ExitCode(err) != result.ExitInputError {
				t.Fatalf("err %v (exit %d), want an input error", err, result.ExitCode(err))
			}
			name := tc.out
			if tc.names != "" {
				name = tc.names
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), name) {
				t.Errorf("error %q, want it to say %q and name %s", err, tc.want, name)
			}
			if tc.out != "" && tc.out != live {
				if _, err := os.Stat(filepath.Join(tc.out, censusdir.CompleteFile)); !os.IsNotExist(err) {
					t.Errorf("%s was marked complete (%v)", tc.out, err)
				}
			}
		})
	}
}
