package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// TestCollectCensus: collect --census folds every batch it takes into a census directory, a part
// per batch, before it answers; the report on the census (check --census) is the report on the
// batches (check --decision-logs over --dir), byte for byte in JSON and text, whether the
// batches hold every expected binding (a verdict) or some (the same lacking list, no verdict),
// across a restart that finds a part a crash cut short, with a batch OPA posted again and a
// decision that is an error; a refused batch adds no part. The note says the batches' window.
func TestCollectCensus(t *testing.T) {
	ctx := context.Background()
	events := reportkit.DecisionEvents(t, directPaper)
	in := loaded(t, inputs.Options{})
	failed := reportkit.DecisionEvent("failed-1", map[string]any{"error": map[string]any{"code": "eval_error", "message": "timeout <script>\u2028"}})
	batches := chunks(events, 17)
	some := reportkit.DropEvery(events, 3, 1) // as OPA's buffer limit drops decisions
	for _, tc := range []struct {
		name    string
		batches [][]map[string]any
		resend  int // a batch posted again (OPA retrying an answer it lost), from 1; 0 none
		lacking bool
	}{
		{name: "every batch: a verdict", batches: batches, resend: 2},
		{name: "some batches: the lacking bindings", batches: chunks(some, 17), lacking: true},
		{name: "a decision that is an error", batches: append([][]map[string]any{{failed}}, batches...), lacking: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "batches")
			cdir := filepath.Join(t.TempDir(), "census")
			serve := func() (*Collector, *httptest.Server) {
				c, err := New(in, Options{Dir: dir, Census: cdir})
				if err != nil {
					t.Fatal(err)
				}
				return c, httptest.NewServer(c)
			}
			posts := tc.batches
			if tc.resend > 0 {
				posts = append(posts, tc.batches[tc.resend-1])
			}
			half := len(posts) / 2
			c, s := serve()
			for i, b := range posts {
				if i == half { // a restart, with a part a crash cut short left behind
					s.Close()
					c.Close()
					if err := os.WriteFile(filepath.Join(cdir, ".tmp-00000099.census.gz"), []byte("\x1f\x8b half"), 0o600); err != nil {
						t.Fatal(err)
					}
					c, s = serve()
				}
				status, doc := post(t, s.URL+DefaultPath, "", reportkit.GzipBatch(t, b), nil)
				if status != http.StatusOK {
					t.Fatalf("batch %d: HTTP %d %v", i+1, status, doc)
				}
				parts, err := censusdir.Parts(cdir)
				if err != nil {
					t.Fatal(err)
				}
				if len(parts) != i+1 { // the part is there when the answer is
					t.Fatalf("after batch %d is acknowledged the census holds %d parts", i+1, len(parts))
				}
			}
			defer s.Close()
			defer c.Close()
			if _, err := os.Stat(filepath.Join(cdir, ".tmp-00000099.census.gz")); !os.IsNotExist(err) {
				t.Errorf("the unfinished part is still there after the restart (%v)", err)
			}
			want, counts, werr := check.RunDecisionLogs(ctx, directPaper, check.DecisionLogs{Paths: []string{dir}})
			got, read, gerr := check.RunCensuses(ctx, directPaper, []string{cdir}, "")
			if werr != nil || gerr != nil {
				t.Fatalf("decision logs: %v; census: %v", werr, gerr)
			}
			if (got.Lacking != nil) != tc.lacking {
				t.Errorf("lacking %+v, want lacking %v", got.Lacking, tc.lacking)
			}
			if got.ExitCode() != want.ExitCode() {
				t.Errorf("exit %d, decision logs %d", got.ExitCode(), want.ExitCode())
			}
			for _, format := range []string{"json", "text"} {
				if g, w := reportkit.Render(t, got, format), reportkit.Render(t, want, format); g != w {
					t.Errorf("%s report on the census differs from the report on the batches: %s", format, reportkit.LineDiff(w, g))
				}
			}
			if !strings.Contains(read.String(), counts.Window.String()) || counts.Window.Batches != len(posts) {
				t.Errorf("the note %q does not say the window %q", read, counts.Window)
			}
			if tc.resend > 0 && (read.Duplicates == 0 || read.Duplicates != counts.Duplicates) {
				t.Errorf("%d duplicates counted, decision logs %d", read.Duplicates, counts.Duplicates)
			}
		})
	}
}

// TestCollectCensusRefused: a batch collect refuses adds no part to the census, and one whose
// census part cannot be written is not acknowledged (500: OPA posts it again).
func TestCollectCensusRefused(t *testing.T) {
	events := reportkit.DecisionEvents(t, inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Fixtures: []string{"C05"}}})
	in := loaded(t, inputs.Options{})
	for _, tc := range []struct {
		name   string
		edit   func(ev map[string]any)
		break_ func(cdir string)
		status int
	}{
		{name: "an unknown fixture", edit: func(ev map[string]any) { ev["result"].(map[string]any)["fixture"] = "NOPE-1" }, status: http.StatusUnprocessableEntity},
		{name: "an unknown lane", edit: func(ev map[string]any) { ev["result"].(map[string]any)["lane"] = "nolane" }, status: http.StatusUnprocessableEntity},
		{name: "the census cannot be written", break_: func(cdir string) {
			// The directory replaced by a file: a part cannot be created (a full disk, an I/O error).
			if err := os.Rename(cdir, cdir+".moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cdir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, status: http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cdir := filepath.Join(t.TempDir(), "census")
			c, err := New(in, Options{Dir: t.TempDir(), Census: cdir})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s := httptest.NewServer(c)
			defer s.Close()
			if status, doc := post(t, s.URL+DefaultPath, "", reportkit.GzipBatch(t, events), nil); status != http.StatusOK {
				t.Fatalf("the good batch: HTTP %d %v", status, doc)
			}
			bad := make([]map[string]any, len(events))
			for i, ev := range events {
				bad[i] = map[string]any{}
				for k, v := range ev {
					bad[i][k] = v
				}
				res := map[string]any{}
				for k, v := range ev["result"].(map[string]any) {
					res[k] = v
				}
				bad[i]["result"] = res
			}
			if tc.edit != nil {
				tc.edit(bad[len(bad)-1])
			}
			if tc.break_ != nil {
				tc.break_(cdir)
				cdir += ".moved"
			}
			if status, doc := post(t, s.URL+DefaultPath, "", reportkit.GzipBatch(t, bad), nil); status != tc.status {
				t.Fatalf("HTTP %d %v, want %d", status, doc, tc.status)
			}
			parts, err := censusdir.Parts(cdir)
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) != 1 {
				t.Errorf("the census holds %d parts after a refused batch, want the good one: %v", len(parts), parts)
			}
			entries, _ := os.ReadDir(cdir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".tmp-") {
					t.Errorf("a refused batch left %s in the census", e.Name())
				}
			}
			if got, want := c.Status().Accepted.Batches, int64(1); got != want {
				t.Errorf("%d batches accepted, want %d", got, want)
			}
		})
	}
}

// TestCollectCensusOpen: a census collect cannot add to is refused when collect starts, naming it.
func TestCollectCensusOpen(t *testing.T) {
	in := loaded(t, inputs.Options{})
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, cdir string)
		want  string
	}{
		{name: "a complete census", setup: func(t *testing.T, cdir string) {
			w, err := censusdir.Create(cdir, censusdir.Set{Profile: "strict", Digest: mustDigest(t, in)})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}, want: "marked complete"},
		{name: "a census of another profile", setup: func(t *testing.T, cdir string) {
			w, err := censusdir.Open(cdir, censusdir.Set{Profile: "optional-null", Digest: mustDigest(t, in)})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.AddBatch(censusdir.Batch{Seq: 1}, nil, nil); err != nil {
				t.Fatal(err)
			}
		}, want: `a census of profile "optional-null"`},
		{name: "a census of another contract set", setup: func(t *testing.T, cdir string) {
			w, err := censusdir.Open(cdir, censusdir.Set{Profile: "strict", Digest: strings.Repeat("0d", 32)})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.AddBatch(censusdir.Batch{Seq: 1}, nil, nil); err != nil {
				t.Fatal(err)
			}
		}, want: "/contractSet: a census of contract set " + strings.Repeat("0d", 32) + "; the one loaded is " + mustDigest(t, in)},
		{name: "a file, not a directory", setup: func(t *testing.T, cdir string) {
			if err := os.WriteFile(cdir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, want: "census directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cdir := filepath.Join(t.TempDir(), "census")
			tc.setup(t, cdir)
			c, err := New(in, Options{Dir: t.TempDir(), Census: cdir})
			if err == nil {
				c.Close()
				t.Fatal("collect started")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), cdir) {
				t.Errorf("error %q, want it to say %q and name %s", err, tc.want, cdir)
			}
		})
	}
}

// TestCollectCensusMerge: collect's censuses merge with each other (two collectors, the batches
// split between them: the report on the union is the report on all the batches), and not with a
// census of a check: each refusal names the census; compacted by --census-out, its report is theirs.
func TestCollectCensusMerge(t *testing.T) {
	ctx := context.Background()
	events := reportkit.DecisionEvents(t, directPaper)
	in := loaded(t, inputs.Options{})
	batches := chunks(events, 17)
	var dirs, cdirs []string
	for i := range 2 { // two collectors, each a half of the batches
		dir, cdir := filepath.Join(t.TempDir(), "batches"), filepath.Join(t.TempDir(), "census")
		c, err := New(in, Options{Dir: dir, Census: cdir})
		if err != nil {
			t.Fatal(err)
		}
		s := httptest.NewServer(c)
		for j := i; j < len(batches); j += 2 {
			if status, doc := post(t, s.URL+DefaultPath, "", reportkit.GzipBatch(t, batches[j]), nil); status != http.StatusOK {
				t.Fatalf("HTTP %d %v", status, doc)
			}
		}
		s.Close()
		c.Close()
		dirs, cdirs = append(dirs, dir), append(cdirs, cdir)
	}
	checked := filepath.Join(t.TempDir(), "checked")
	if _, err := check.RunCensusOut(ctx, directPaper, checked); err != nil {
		t.Fatal(err)
	}
	want, _, err := check.RunDecisionLogs(ctx, directPaper, check.DecisionLogs{Paths: dirs})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		censuses []string
		out      string
		wantErr  string
	}{
		{name: "two collectors", censuses: cdirs},
		{name: "with a check's census", censuses: []string{cdirs[0], checked}, wantErr: "is a census of decision logs, " + checked + " is not"},
		{name: "a check's census first", censuses: []string{checked, cdirs[0]}, wantErr: "is a census of a check, " + cdirs[0] + " is not"},
		{name: "into --census-out", censuses: cdirs, out: filepath.Join(t.TempDir(), "out")}, // compacted (internal/check TestCompactDecisionCensuses)
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := check.RunCensuses(ctx, directPaper, tc.censuses, tc.out)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || result.ExitCode(err) != result.ExitInputError {
					t.Fatalf("error %v (exit %d), want exit 2 saying %q", err, result.ExitCode(err), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			reportkit.SameAsCheck(t, "two collectors' censuses", got, want, "json", "text")
		})
	}
}

// mustDigest is the digest of the contract set in loads (inputs.Options.ContractSet).
func mustDigest(t *testing.T, in *instrument.Instrument) string {
	t.Helper()
	d, err := in.Options().ContractSet()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
