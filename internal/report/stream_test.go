package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// junitWhole is the JUnit document made whole and encoded at once, as JUnit.Output wrote it before
// it streamed: the reference its bytes are held to.
func junitWhole(w io.Writer, r *result.Report) error {
	violated := map[string]*result.Violation{}
	for i := range r.Gate.Violations {
		v := &r.Gate.Violations[i]
		violated[v.RequirementName+"\x00"+bindingID(v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage, v.Task)] = v
	}
	doc, suites := junitRequirementSuites(r)
	unrequired := junitSuite{Name: "unrequired findings: not gated by profile " + r.Profile}
	for _, res := range r.Each() {
		for k, name := range res.RequiredBy {
			if contains(res.RequiredBy[:k], name) {
				continue
			}
			for _, j := range suites[name] {
				q := r.Gate.Requirements[j]
				c := junitTestcase(res)
				if v := violated[q.Name+"\x00"+bindingID(res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)]; v != nil {
					c.Failure = &junitMessage{Message: failureMessage(res), Type: res.Outcome, Text: failureText(res, q.Doc)}
				}
				doc.Suites[j].Cases = append(doc.Suites[j].Cases, c)
			}
		}
		if res.Required || noFinding(res.Outcome) {
			continue
		}
		c := junitTestcase(res)
		c.Skipped = &junitMessage{Message: failureMessage(res) + " (not required by profile " + r.Profile + ")", Text: failureText(res, "")}
		unrequired.Cases = append(unrequired.Cases, c)
	}
	doc.Suites = append(doc.Suites, unrequired)
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Tests = len(s.Cases)
		for _, c := range s.Cases {
			if c.Failure != nil {
				s.Failures++
			}
			if c.Skipped != nil {
				s.Skipped++
			}
		}
	}
	doc.total()
	enc, err := junitEncoder(w)
	if err != nil {
		return err
	}
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// gated is a report whose gate has two requirements with the same name (a layer's and the
// built-in's), one that selects nothing, a violation, bindings listed twice by a requirement,
// unrequired findings, and names that need escaping in XML.
func gated() *result.Report {
	r := sample()
	results := r.Results.(result.ResultList)
	results[0].Required, results[0].RequiredBy = true, []string{"profiles.strict.require[0]", "profiles.strict.require[0]"}
	results[4].RequiredBy = []string{"profiles.strict.require[0]"}
	results[1].Fixture = `C05 <"&'>`
	r.Gate.Requirements = append(r.Gate.Requirements,
		result.RequirementResult{Clause: result.Clause{Name: "profiles.strict.require[1]", Doc: "nothing <here>"}, Unmatched: "no binding of this run matches lanes [\"x\"]"},
		result.RequirementResult{Clause: result.Clause{Name: "profiles.strict.require[0]", Doc: "the same name again"}, Selected: 2})
	return r
}

// TestJUnitStreamsTheDocument: the JUnit format, written a testcase at a time, gives the bytes of
// the whole document encoded at once, for reports with and without requirements, violations,
// unmatched requirements and unrequired findings.
func TestJUnitStreamsTheDocument(t *testing.T) {
	tests := []struct {
		name string
		r    *result.Report
	}{
		{name: "sample", r: sample()},
		{name: "gated", r: gated()},
		{name: "no results, no requirements", r: &result.Report{Profile: "empty", Results: result.ResultList{}}},
		{name: "many bindings", r: &result.Report{Profile: "bench", Results: synthetic(3000), Gate: syntheticGate()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got, want bytes.Buffer
			if err := (JUnit{}).Output(&got, tc.r); err != nil {
				t.Fatal(err)
			}
			if err := junitWhole(&want, tc.r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("streamed JUnit differs from the whole document:\n%s\nwant:\n%s", got.String(), want.String())
			}
		})
	}
}

// syntheticResults are n bindings made when read, as the census makes them: a report of any size
// whose results hold no memory.
type syntheticResults int

func synthetic(n int) result.Results { return syntheticResults(n) }

func (s syntheticResults) Len() int { return int(s) }

func (s syntheticResults) At(i int) result.Result {
	res := result.Result{Fixture: fmt.Sprintf("C%02d", i%40), Suite: "paper", Family: "structured", Lane: "bench",
		LaneVersion: fmt.Sprintf("v%d", i/160), Configuration: "default", Stage: []string{"D1", "A2", "M3", "H4"}[i/40%4],
		Task: "T2", Role: "primary", Compartment: "structured", Outcome: result.Pass, Origin: "captured", Repetitions: 1,
		Records: []result.RecordRef{{File: "obs/bench.jsonl", Line: i/2 + 1, Repetition: 1}}}
	if i%3 != 2 {
		res.Required, res.RequiredBy = true, []string{"profiles.bench.require[0]"}
	}
	if i%7 == 0 {
		res.Outcome = result.Unmet
		res.Diagnostics = []result.Diagnostic{{"atom": "structured.value", "path": "/n", "kind": "altered",
			"expected": json.Number("1"), "observed": json.Number(fmt.Sprint(i))}}
	}
	return res
}

// syntheticGate is the gate of synthetic results: one requirement, and a violation for the first
// required unmet binding.
func syntheticGate() result.Gate {
	return result.Gate{Verdict: result.VerdictUnmet, Requirements: []result.RequirementResult{{Clause: result.Clause{Name: "profiles.bench.require[0]", Doc: "bench passes"}}},
		Violations: []result.Violation{{Position: result.Position{Fixture: "C00", Lane: "bench", LaneVersion: "v0", Configuration: "default", Stage: "D1"}, Task: "T2",
			Outcome: result.Unmet, RequirementName: "profiles.bench.require[0]"}}}
}

// heapWatcher is a writer that discards what it is written and measures the live heap every
// every bytes: the most a report held while it was written.
type heapWatcher struct {
	every, since int
	peak         int64
}

func (h *heapWatcher) Write(p []byte) (int, error) {
	h.since += len(p)
	if h.since >= h.every {
		h.since = 0
		h.sample()
	}
	return len(p), nil
}

func (h *heapWatcher) sample() {
	h.peak = max(h.peak, testkit.LiveHeap())
}

// TestWritersDoNotHoldTheBindings: writing a report of n bindings made when read (as the census's
// are) holds a few bytes a binding at most, for the formats that write bindings as they come (the
// JUnit document held every testcase before it was encoded: hundreds of bytes a binding). The live
// heap is measured after a collection every 256 KiB written, less the heap before.
func TestWritersDoNotHoldTheBindings(t *testing.T) {
	const n = 100_000
	r := &result.Report{Profile: "bench", NullPolicy: "strict", Results: synthetic(n), Gate: syntheticGate(),
		Localizations: result.LocalizationList{}, Upgrades: []result.Upgrade{}}
	for _, format := range []string{"json", "junit"} {
		t.Run(format, func(t *testing.T) {
			out, err := outputters.Get(format, Options{})
			if err != nil {
				t.Fatal(err)
			}
			h := &heapWatcher{every: 256 << 10}
			h.sample()
			base := h.peak
			if err := out.Output(h, r); err != nil {
				t.Fatal(err)
			}
			if held := h.peak - base; held > 8*n+4<<20 {
				t.Errorf("writing %d bindings held %d KiB, %d bytes a binding", n, held>>10, held/n)
			}
		})
	}
}

// TestJSONDoesNotHoldTheVisibility: the JSON format writes the visibility readout a group at a
// time: writing a readout of thousands of groups (a million-binding run has some 7 MB of it)
// holds a small part of its encoding, not the whole list's compact and indented bytes. The live
// heap is measured as TestWritersDoNotHoldTheBindings measures it.
func TestJSONDoesNotHoldTheVisibility(t *testing.T) {
	r := &result.Report{Profile: "bench", NullPolicy: "strict", Results: result.ResultList{}, Gate: syntheticGate(),
		Localizations: result.LocalizationList{}, Upgrades: []result.Upgrade{}, VisibilityPolicy: "contractcheck.visibility"}
	var vs result.VisibilityList
	for g := range 4000 {
		v := result.Visibility{Lane: "bench", Version: fmt.Sprintf("v%d", g), Configuration: "default", Stage: "M3", Category: "both"}
		for f := range 8 {
			v.Fixtures = append(v.Fixtures, result.VisibilityFixture{Fixture: fmt.Sprintf("V%02d", f), State: "captured", Shape: "both",
				Channels: map[string]string{"content": "exact", "structured": "exact", "isError": "exact"}, Record: fmt.Sprintf("obs/bench/v%d.jsonl:%d", g, f+1)})
		}
		vs = append(vs, v)
	}
	r.Visibility = vs
	var whole bytes.Buffer
	if err := WriteJSON(&whole, r.Visibility); err != nil {
		t.Fatal(err)
	}
	h := &heapWatcher{every: 64 << 10}
	h.sample()
	base := h.peak
	if err := (JSON{}).Output(h, r); err != nil {
		t.Fatal(err)
	}
	h.sample()
	if held := h.peak - base; held > int64(whole.Len())/4 {
		t.Errorf("writing %d KiB of visibility held %d KiB", whole.Len()>>10, held>>10)
	}
}

// TestFormatsStopWithTheRun: once the memory watchdog has stopped the run, every format's Output
// writes nothing and returns the *guard.LimitError naming the budget; stopped while it writes, it
// stops writing and returns it.
func TestFormatsStopWithTheRun(t *testing.T) {
	_, stop := guard.Watch(context.Background())
	defer stop()
	big := &result.Report{Profile: "bench", NullPolicy: "strict", Results: synthetic(20_000), Gate: syntheticGate(),
		Localizations: result.LocalizationList{}, Upgrades: []result.Upgrade{}}
	t.Run("stopped while json writes", func(t *testing.T) {
		out, err := outputters.Get("json", Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := &tripper{after: 64 << 10}
		err = out.Output(w, big)
		var le *guard.LimitError
		if !errors.As(err, &le) {
			t.Fatalf("Output = %v, want the *guard.LimitError", err)
		}
		if w.written > w.after+1<<20 {
			t.Errorf("%d bytes written, %d after the run was stopped", w.written, w.written-w.after)
		}
	})
	if guard.Err() == nil {
		t.Fatal("the run was not stopped")
	}
	for _, format := range outputters.Names() {
		t.Run(format, func(t *testing.T) {
			out, err := outputters.Get(format, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			err = out.Output(&buf, sample())
			var le *guard.LimitError
			if !errors.As(err, &le) || le.Limit[:len("the memory budget of")] != "the memory budget of" {
				t.Errorf("Output = %v, want a *guard.LimitError naming the budget", err)
			}
			if buf.Len() > 0 {
				t.Errorf("wrote %d bytes after the run was stopped", buf.Len())
			}
		})
	}
}

// tripper stops the run (guard.Trip) once after bytes have been written to it.
type tripper struct{ after, written int }

func (w *tripper) Write(p []byte) (int, error) {
	w.written += len(p)
	if w.written >= w.after && guard.Err() == nil {
		guard.Trip()
	}
	return len(p), nil
}
