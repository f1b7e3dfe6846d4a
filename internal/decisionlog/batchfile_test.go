package decisionlog

import (
	"testing"
	"time"
)

// TestBatchFileName: a batch file's name says its sequence and the time it was received, reads
// back as written, sorts as the sequence does, and no other name reads as one.
func TestBatchFileName(t *testing.T) {
	at := time.Date(2026, 12, 6, 7, 5, 45, 123456789, time.FixedZone("CET", 3600))
	name := BatchFileName(42, at)
	if name != "00000000000000000042-20261206T060545.123456789Z.json.gz" {
		t.Errorf("name %s", name)
	}
	seq, got, ok := ParseBatchFileName(name)
	if !ok || seq != 42 || !got.Equal(at) {
		t.Errorf("read back %d %v %v", seq, got, ok)
	}
	if a, b := BatchFileName(9, at), BatchFileName(10, at.Add(-time.Hour)); a >= b {
		t.Errorf("%s sorts after %s", a, b)
	}
	for _, tc := range []struct{ name, file string }{
		{"a console log", "opa.log"},
		{"a temporary write", ".collect-" + name},
		{"too few digits", "42-20261206T060545.123456789Z.json.gz"},
		{"not gzip", "00000000000000000042-20261206T060545.123456789Z.json"},
		{"no such time", "00000000000000000042-20261399T060545.123456789Z.json.gz"},
		{"past uint64", "99999999999999999999-20261206T060545.123456789Z.json.gz"},
	} {
		if _, _, ok := ParseBatchFileName(tc.file); ok {
			t.Errorf("%s: %s reads as a batch file", tc.name, tc.file)
		}
	}
}

// TestWindow: the window of the batch files read is their count, the lowest and highest
// sequence and the earliest and latest time, whatever the order read; other files leave it.
func TestWindow(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	var c Counts
	for _, f := range []string{"dir/" + BatchFileName(3, t0.Add(2*time.Second)), "dir/opa.log", "dir/" + BatchFileName(1, t0), "dir/" + BatchFileName(2, t0.Add(time.Second))} {
		noteBatchFile(f, &c)
	}
	w := c.Window
	if w.Batches != 3 || w.FirstSeq != 1 || w.LastSeq != 3 || !w.First.Equal(t0) || !w.Last.Equal(t0.Add(2*time.Second)) {
		t.Errorf("window %+v", w)
	}
	if got, want := w.String(), "3 batches collected, sequence 1 to 3, received 2026-12-06T07:00:00Z to 2026-12-06T07:00:02Z"; got != want {
		t.Errorf("window says %q, want %q", got, want)
	}
	if (Counts{}).Window.String() != "" {
		t.Error("an empty window says something")
	}
}
