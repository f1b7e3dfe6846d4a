package check

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// rendered is a report in the formats a merge must reproduce byte for byte.
func rendered(t *testing.T, r *result.Report) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, format := range []string{"json", "text"} {
		o, err := report.Outputters().Get(format, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := o.Output(&buf, r); err != nil {
			t.Fatal(err)
		}
		out[format] = buf.Bytes()
	}
	return out
}

// splitRecords writes the built-in control lane's records into two observation directories,
// repetition 1 in the first and the others in the second; change, when not nil, edits the lines
// of the second.
func splitRecords(t *testing.T, change func(string) string) (string, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "observations", "direct", "v1", "default.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var first, rest strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		switch {
		case line == "":
		case strings.Contains(line, `"repetition":1,`):
			first.WriteString(line)
		default:
			if change != nil {
				line = change(line)
			}
			rest.WriteString(line)
		}
	}
	a, b := t.TempDir(), t.TempDir()
	for dir, text := range map[string]string{a: first.String(), b: rest.String()} {
		if text == "" {
			t.Fatal("the split left a directory without records")
		}
		if err := os.WriteFile(filepath.Join(dir, "direct.jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

// TestCensusMergeIsTheWholeRun splits a check's inputs (by stage, by lane, by fixture, by
// repetition), writes each part's census (check --census-out), and requires the report on their
// union (check --census A --census B) to be the whole run's, byte for byte in JSON and text,
// with the same exit code: repetitions collapse, unstable bindings are found and the gate applied
// after the merge. One split puts the disagreeing repetitions of a binding in different parts.
func TestCensusMergeIsTheWholeRun(t *testing.T) {
	ctx := context.Background()
	in, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fixtures := contract.SortedKeys(in.Model.Fixtures)
	half := len(fixtures) / 2
	unstableA, unstableB := splitRecords(t, func(line string) string {
		if strings.Contains(line, `"fixture":"C01"`) && strings.Contains(line, `"stage":"D1"`) && strings.Contains(line, `"repetition":2,`) {
			return strings.Replace(line, "3 of 5 pallets", "4 of 5 pallets", 1)
		}
		return line
	})
	stableA, stableB := splitRecords(t, nil)
	tests := []struct {
		name         string
		whole        inputs.Options
		parts        []inputs.Options
		wantUnstable bool
	}{
		{name: "by stage", parts: []inputs.Options{
			{Scope: result.Scope{Stages: []string{"D1"}}},
			{Scope: result.Scope{Stages: []string{"A2", "M3", "H4"}}},
		}},
		{name: "by lane", parts: []inputs.Options{
			{Scope: result.Scope{Lanes: []string{"a*", "d*", "g*"}}},
			{Scope: result.Scope{Lanes: []string{"l*", "m*", "o*"}}},
		}},
		{name: "by fixture", parts: []inputs.Options{
			{Scope: result.Scope{Fixtures: fixtures[:half]}},
			{Scope: result.Scope{Fixtures: fixtures[half:]}},
		}},
		{name: "by repetition", whole: inputs.Options{Observations: []string{stableA, stableB}}, parts: []inputs.Options{
			{Observations: []string{stableA}},
			{Observations: []string{stableB}},
		}},
		{name: "unstable across parts", whole: inputs.Options{Observations: []string{unstableA, unstableB}}, parts: []inputs.Options{
			{Observations: []string{unstableA}},
			{Observations: []string{unstableB}},
		}, wantUnstable: true},
	}
	// The splits of the built-in data (zero whole options) share the whole run, made once: the
	// same run, reported the same, whichever split it is compared with.
	var builtinWhole *result.Report
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			whole := builtinWhole
			if whole == nil || !reflect.ValueOf(tc.whole).IsZero() {
				var err error
				if whole, err = Run(ctx, tc.whole); err != nil {
					t.Fatal(err)
				}
				if reflect.ValueOf(tc.whole).IsZero() {
					builtinWhole = whole
				}
			}
			var dirs []string
			for i, opts := range tc.parts {
				dir := filepath.Join(t.TempDir(), "census")
				if _, err := RunCensusOut(ctx, opts, dir); err != nil && !strings.Contains(err.Error(), "selected nothing") {
					t.Fatalf("part %d: %v", i, err)
				}
				dirs = append(dirs, dir)
			}
			merged, read, err := RunCensuses(ctx, inputs.Options{}, dirs, "")
			if err != nil {
				t.Fatal(err)
			}
			if !read.Complete() || len(read.Read) != len(dirs) {
				t.Fatalf("read %v, want %d complete censuses", read, len(dirs))
			}
			if merged.Len() != whole.Len() {
				t.Fatalf("merged census has %d bindings, the whole run %d", merged.Len(), whole.Len())
			}
			w, m := rendered(t, whole), rendered(t, merged)
			for format := range w {
				if !bytes.Equal(w[format], m[format]) {
					t.Errorf("%s: the merged report differs from the whole run's (%d and %d bytes)", format, len(m[format]), len(w[format]))
				}
			}
			if merged.ExitCode() != whole.ExitCode() {
				t.Errorf("exit %d, the whole run's %d", merged.ExitCode(), whole.ExitCode())
			}
			if got := merged.Summary.Unstable > 0; got != tc.wantUnstable {
				t.Errorf("unstable bindings: %d, want some: %v", merged.Summary.Unstable, tc.wantUnstable)
			}
			if tc.wantUnstable && merged.ExitCode() != result.ExitInstrument {
				t.Errorf("exit %d, want %d (the instrument failed)", merged.ExitCode(), result.ExitInstrument)
			}
			// The merge is a census too: written out and read back, it reports the same.
			out := filepath.Join(t.TempDir(), "merged")
			if _, _, err := RunCensuses(ctx, inputs.Options{}, dirs, out); err != nil {
				t.Fatal(err)
			}
			again, _, err := RunCensuses(ctx, inputs.Options{}, []string{out}, "")
			if err != nil {
				t.Fatal(err)
			}
			if a := rendered(t, again); !bytes.Equal(a["json"], w["json"]) {
				t.Error("the merged census written out and read back reports otherwise")
			}
		})
	}
}

// TestCensusWhileWritten reads a census as its writer leaves it part by part: a part being
// written (its temporary name) is never read, and a census without its completion marker is read
// as far as its whole parts go and gives no verdict (exit 2), in every format.
func TestCensusWhileWritten(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "census")
	if _, err := RunCensusOut(ctx, inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}}}, dir); err != nil {
		t.Fatal(err)
	}
	whole, read, err := RunCensuses(ctx, inputs.Options{}, []string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if whole.ExitCode() != result.ExitSatisfied {
		t.Fatalf("the complete census: exit %d, want 0 (%v)", whole.ExitCode(), read)
	}
	// As the writer is between parts: its marker not yet written, the next part half-written.
	if err := os.Remove(filepath.Join(dir, censusdir.CompleteFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".tmp-00000002.census.gz"), []byte("\x1f\x8b half"), 0o640); err != nil {
		t.Fatal(err)
	}
	live, read, err := RunCensuses(ctx, inputs.Options{}, []string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if read.Complete() || !strings.Contains(read.String(), "still being written") {
		t.Errorf("read %q, want a census still being written", read)
	}
	if live.Len() != whole.Len() {
		t.Errorf("the live census has %d bindings, its whole parts %d", live.Len(), whole.Len())
	}
	if live.Gate.Verdict != result.VerdictIncomplete || live.ExitCode() != result.ExitInputError {
		t.Errorf("verdict %s, exit %d; want incomplete, exit 2", live.Gate.Verdict, live.ExitCode())
	}
	if err := live.GateError(); err == nil || !strings.Contains(err.Error(), "still being written") {
		t.Errorf("gate error %v, want one that says the census is still being written", err)
	}
	for _, format := range report.Outputters().Names() {
		if !strings.Contains(strings.ToLower(reportkit.Render(t, live, format)), "incomplete") {
			t.Errorf("%s: the report does not say it is incomplete", format)
		}
	}
}

// TestCensusOfAnotherSet: a census's readings are taken as written (their fingerprints too), so a
// census made by another contract set, or for another profile, is refused rather than counted:
// a binding this contract set does not evaluate is an input error naming the part and the
// reading, and a part of another profile is refused by its header.
func TestCensusOfAnotherSet(t *testing.T) {
	ctx := context.Background()
	in, err := instrument.Load(ctx, directPaperScope)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "census")
	if _, err := RunCensusOut(ctx, directPaperScope, dir); err != nil {
		t.Fatal(err)
	}
	all, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var readings []result.Reading
	set, err := censusdir.SetOf(in.Options())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := censusdir.Read(dir, set, func(r result.Reading) error { readings = append(readings, r); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	first := readings[0]
	elsewhere := "" // a task of the contract set not evaluated on the first reading's fixture at its stage
	for _, id := range contract.SortedKeys(in.Model.Tasks) {
		if !in.Model.Tasks[id].AtStage(first.Stage) || !slices.Contains(in.Tasks(first.Fixture, first.Stage), id) {
			elsewhere = id
			break
		}
	}
	if elsewhere == "" {
		t.Fatal("every task is evaluated on the first reading's fixture at its stage: pick another reading")
	}
	otherProfile := ""
	for _, p := range contract.SortedKeys(in.Model.Profiles) {
		if p != in.Options().Profile {
			otherProfile = p
			break
		}
	}
	tests := []struct {
		name    string
		change  func(r *result.Reading)
		profile string // the census's, when not the run's
		all     bool   // read by a run of the whole matrix, not of directPaperScope
		want    string
		names   string // the file the message names, when not the part
	}{
		{name: "a fixture the set lacks", change: func(r *result.Reading) { r.Fixture = "C999" }, want: `fixture "C999" is not in this contract set`},
		{name: "a lane outside the run's scope", change: func(r *result.Reading) { r.Lane = "elsewhere" }, want: "1 readings outside the run's scope left out"},
		{name: "a lane the set lacks", change: func(r *result.Reading) { r.Lane = "elsewhere" }, all: true, want: `lane "elsewhere" is not in this contract set`},
		{name: "a stage the lane lacks", change: func(r *result.Reading) { r.Stage = "Z9" }, want: `lane ` + first.Lane + ` has no stage "Z9"`},
		{name: "a task the set lacks", change: func(r *result.Reading) { r.Task = "T999" }, want: `task "T999" is not evaluated on fixture ` + first.Fixture},
		{name: "a task not evaluated there", change: func(r *result.Reading) { r.Task = elsewhere }, want: `task "` + elsewhere + `" is not evaluated on fixture ` + first.Fixture},
		{name: "another profile", profile: otherProfile, want: "/profile: a census of profile " + strconv.Quote(otherProfile), names: censusdir.CompleteFile},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := filepath.Join(t.TempDir(), "other")
			set := set
			if tc.profile != "" {
				set.Profile = tc.profile
			}
			w, err := censusdir.Create(other, set)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range readings {
				if i == 0 && tc.change != nil {
					tc.change(&r)
				}
				if err := w.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			run := in
			if tc.all {
				run = all
			}
			_, read, err := FromCensuses(ctx, run, []string{other}, "")
			if strings.Contains(tc.want, "left out") { // not an error: counted
				if err != nil || !strings.Contains(read.String(), tc.want) {
					t.Fatalf("err %v, read %q: want no error and %q", err, read, tc.want)
				}
				return
			}
			if err == nil || result.ExitCode(err) != result.ExitInputError {
				t.Fatalf("err %v (exit %d), want an input error", err, result.ExitCode(err))
			}
			names := filepath.Join(other, "00000001.census.gz")
			if tc.names != "" {
				names = filepath.Join(other, tc.names)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), names) {
				t.Errorf("error %q, want it to say %q and name %s", err, tc.want, names)
			}
		})
	}
}

// mustSet is the contract set opts load, as a census names it.
func mustSet(t testing.TB, opts inputs.Options) censusdir.Set {
	t.Helper()
	set, err := censusdir.SetOf(opts)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestCensusOfAnotherPolicy: two contract sets with the same bindings but other policies are told
// apart by the census header's digest of the contract set. A census made with user layers that
// are the built-in set with a rule added to T1 (every T1 reading unmet), under --no-builtin (a
// layer cannot extend a built-in package), evaluates exactly the built-in set's bindings, so only
// the digest can refuse it: checked against the built-in set it is an input error naming the
// census and both digests, not merged.
func TestCensusOfAnotherPolicy(t *testing.T) {
	ctx := context.Background()
	stricter := directPaperScope
	stricter.NoBuiltin = true
	root := t.TempDir()
	for _, kind := range []string{"contracts", "policies", "fixtures", "schemas/carriers"} {
		sub, err := fs.Sub(contractcheck.Builtin, kind)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(root, filepath.FromSlash(kind)), sub); err != nil {
			t.Fatal(err)
		}
	}
	stricter.Contracts = []string{filepath.Join(root, "contracts")}
	stricter.Policies = []string{filepath.Join(root, "policies")}
	stricter.Fixtures = []string{filepath.Join(root, "fixtures")}
	stricter.Schemas = []string{filepath.Join(root, "schemas")}
	t1 := filepath.Join(root, "policies", "tasks", "t1.rego")
	src, err := os.ReadFile(t1)
	if err != nil {
		t.Fatal(err)
	}
	rule := "\n# METADATA\n# title: diagnostics\n# description: A stricter T1, one diagnostic on every reading.\ndiagnostics contains {\"atom\": \"block.count\", \"path\": \"\", \"kind\": \"missing\"}\n"
	if err := os.WriteFile(t1, append(src, rule...), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "census")
	changed, err := RunCensusOut(ctx, stricter, dir)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Run(ctx, directPaperScope)
	if err != nil {
		t.Fatal(err)
	}
	// The layer changes outcomes, not bindings: what the digest alone must tell apart.
	if changed.Results.Len() != plain.Results.Len() || changed.Summary.Unmet <= plain.Summary.Unmet {
		t.Fatalf("the layer gives %d bindings %+v, the built-in set %d %+v: want the same bindings, more unmet",
			changed.Results.Len(), changed.Summary, plain.Results.Len(), plain.Summary)
	}
	builtin, err := instrument.Load(ctx, directPaperScope)
	if err != nil {
		t.Fatal(err)
	}
	with, err := instrument.Load(ctx, stricter)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := mustSet(t, builtin.Options()), mustSet(t, with.Options())
	if ours.Digest == theirs.Digest {
		t.Fatalf("both contract sets digest to %s", ours.Digest)
	}
	_, _, err = FromCensuses(ctx, builtin, []string{dir}, "")
	if err == nil || result.ExitCode(err) != result.ExitInputError {
		t.Fatalf("err %v (exit %d), want an input error", err, result.ExitCode(err))
	}
	for _, want := range []string{filepath.Join(dir, censusdir.CompleteFile), "/contractSet", theirs.Digest, ours.Digest} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want it to say %q", err, want)
		}
	}
	// The same census, read with the layers it was made with, merges.
	if _, _, err := FromCensuses(ctx, with, []string{dir}, ""); err != nil {
		t.Fatalf("read with its own contract set: %v", err)
	}
}
