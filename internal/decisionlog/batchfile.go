package decisionlog

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// The batches `contractcheck collect` writes (internal/collect): each batch OPA's decision-log
// plugin uploaded and collect acknowledged, as posted (gzip-compressed), in a file of its own
// named by its sequence number and the time collect received it, so that sorting the names
// sorts the batches by arrival and a report can say which batches it covers (Window).

// batchTime is how a batch file's name spells the time it was received (UTC).
const batchTime = "20060102T150405.000000000Z"

// batchName is a batch file's name: 20 digits of sequence, "-", the time received, ".json.gz".
var batchName = regexp.MustCompile(`^([0-9]{20})-([0-9]{8}T[0-9]{6}\.[0-9]{9}Z)\.json\.gz$`)

// BatchFileName is the name of the batch of sequence number seq (from 1) received at t.
func BatchFileName(seq uint64, t time.Time) string {
	return fmt.Sprintf("%020d-%s.json.gz", seq, t.UTC().Format(batchTime))
}

// ParseBatchFileName reads a name BatchFileName wrote (the base name of a path): its sequence
// number and the time it was received; ok is false for any other name.
func ParseBatchFileName(name string) (seq uint64, received time.Time, ok bool) {
	m := batchName.FindStringSubmatch(name)
	if m == nil {
		return 0, time.Time{}, false
	}
	seq, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, time.Time{}, false
	}
	received, err = time.Parse(batchTime, m[2])
	if err != nil {
		return 0, time.Time{}, false
	}
	return seq, received, true
}

// BatchFile is one batch file of collect's a read took: the directory it was in, its sequence
// number and the time it was received (its name says them).
type BatchFile struct {
	Dir      string
	Seq      uint64
	Received time.Time
}

// Window is what a read covers of the batches collect wrote: how many, their first and last
// sequence numbers and the times the first and last were received. Batches is 0 when the read
// held none.
type Window struct {
	Batches           int
	FirstSeq, LastSeq uint64
	First, Last       time.Time
}

// String says the window for a note beside a report.
func (w Window) String() string {
	if w.Batches == 0 {
		return ""
	}
	return fmt.Sprintf("%d batches collected, sequence %d to %d, received %s to %s", w.Batches, w.FirstSeq, w.LastSeq,
		w.First.UTC().Format(time.RFC3339), w.Last.UTC().Format(time.RFC3339))
}

// noteBatchFile widens c's window by the batch file name, when collect wrote it.
func noteBatchFile(name string, c *Counts) {
	seq, t, ok := ParseBatchFileName(filepath.Base(name))
	if !ok {
		return
	}
	c.Batches = append(c.Batches, BatchFile{Dir: filepath.Dir(name), Seq: seq, Received: t})
	w := &c.Window
	if w.Batches == 0 || seq < w.FirstSeq {
		w.FirstSeq = seq
	}
	if w.Batches == 0 || seq > w.LastSeq {
		w.LastSeq = seq
	}
	if w.Batches == 0 || t.Before(w.First) {
		w.First = t
	}
	if w.Batches == 0 || t.After(w.Last) {
		w.Last = t
	}
	w.Batches++
}
