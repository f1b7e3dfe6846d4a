// Package censusdir keeps a census on disk as a directory of parts, so that a census is a value
// that outlives the run that made it and merges with others (docs/production.md, "Many
// collectors: merge their censuses"): `check --census-out DIR` writes one, `check --census DIR`
// (repeatable) reports on one or on the union of several.
//
// A census directory holds parts named <seq>.census.gz (seq eight digits, from 00000001), each a
// gzip'd JSON Lines file: a header line {"census": 2, "profile": P, "contractSet": D} (D the
// digest of the contract set that made the readings, inputs.Options.ContractSet: a reader refuses
// a census of another, and one of format 1, which named none), then one line a reading,
// {"reading": {...}} (a binding's repetition: its position, task, repetition, origin, outcome,
// error, record file and line, readout and diagnostics in their exact JSON, and its fingerprint:
// result.Fingerprint in hexadecimal, which a reader takes as written; a line without one is hashed
// when read), or
// {"visibility": {...}} (a record's channel-visibility reading). A part is written to a temporary
// name (".tmp-…", which a reader skips), fsync'd, closed, renamed to its name and the directory
// fsync'd: the name exists only for a whole part, so a reader at any time sees whole parts, never
// half of one. When the writer is done it writes "complete.json" the same way, naming how many
// parts and readings the census holds; a census without it is still being written.
//
// contractcheck collect --census DIR writes a census of decision logs: a part per batch it takes
// (Writer.AddBatch), whose header also names the batch ({"batch": {"seq": n, "received": T}}), and
// whose lines are the batch's readings and its decisions that are errors, not verdicts
// ({"decisionError": {...}}). Such a census never gets the marker (collect does not end a census):
// a report on it says the batches it covers (Info.Window) and what it lacks, as a report from the
// decision logs themselves does.
//
// check --census-out compacts censuses of decision logs (or writes one from decision-log files)
// into a compacted census of decision logs (compact.go): parts of up to partReadings lines whose
// headers name every collector's batches it covers ({"decisions": {"windows": [...]}}), marked
// complete as a check's census is. A directory holds parts of one kind only.
//
// A census is what its readings are, whatever part holds them: merging is adding every part's
// readings into one census (internal/census), which collapses repetitions, finds unstable
// bindings and applies the gate after the union, as one run over all the inputs does.
//
// The domain words (reading, readout, manifestation, the stages W0–H4) are defined in the
// glossary of the root package's doc (contractcheck.go).
package censusdir

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	encjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// Version is the census format's version, the header's "census". Format 1 had no contractSet in
// its header: such a census is refused (object.header).
const Version = 2

// Set is the contract set a census is of: the profile and the digest of what decides its
// readings (inputs.Options.ContractSet). Every part's header and the completion marker name both;
// a reader refuses a census of another.
type Set struct {
	Profile string
	Digest  string
}

// SetOf is the contract set the options load.
func SetOf(o inputs.Options) (Set, error) {
	d, err := o.ContractSet()
	if err != nil {
		return Set{}, err
	}
	return Set{Profile: o.Profile, Digest: d}, nil
}

// CompleteFile is the name of the marker the writer leaves when the census is whole.
const CompleteFile = "complete.json"

// partReadings is how many lines (readings and visibility readings) a part holds before the
// writer starts another: a reader sees a census grow by parts of this size.
const partReadings = 50_000

// tmpPrefix starts the name of a part being written: readers skip it.
const tmpPrefix = ".tmp-"

// readingOutcomes are the outcomes a repetition reads (unstable is the census's, never a reading's).
var readingOutcomes = []string{result.Pass, result.Unmet, result.ExecutionFailed, result.NotReached, result.NotApplicable,
	result.NotObservable, result.Ambiguous}

var partName = regexp.MustCompile(`^[0-9]{8}\.census\.gz$`)

// Writer writes a census directory part by part. It is not safe for concurrent use.
type Writer struct {
	dir      string
	set      Set
	seq      int
	part     *os.File     // the part being written, under its temporary name; nil between parts
	zw       *gzip.Writer // compressing into part
	lines    int          // readings and visibility lines in the part
	readings int          // readings written in all parts
	perPart  int          // the lines a part holds: partReadings
	batch    *Batch       // the batch the part being written holds (AddBatch), for its header
	// sources, when not nil, makes the census a compacted census of decision logs: every part's
	// header names the collectors' batches it covers (SetSources).
	sources []Source
}

// Batch names the batch of decision logs a part of a census of decision logs holds: collect's
// sequence number of it and the time it was received.
type Batch struct {
	Seq      uint64
	Received time.Time
}

// Create starts a census of the contract set in dir, made if need be. A directory that already holds a
// census is refused: two runs would number their parts alike.
func Create(dir string, set Set) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("census directory %s: %w", dir, err)
	}
	parts, err := Parts(dir)
	if err != nil {
		return nil, fmt.Errorf("census directory %s: %w", dir, err)
	}
	if len(parts) > 0 {
		return nil, fmt.Errorf("census directory %s already holds a census (%s): give an empty or new directory", dir, parts[0])
	}
	if _, err := os.Stat(filepath.Join(dir, CompleteFile)); err == nil {
		return nil, fmt.Errorf("census directory %s already holds a census (%s): give an empty or new directory", dir, CompleteFile)
	}
	return &Writer{dir: dir, set: set, perPart: partReadings}, nil
}

// Open opens the census of decision logs in dir to add to it (collect --census), made if need
// be: the temporary files of parts a crash cut short (never acknowledged) are removed, and
// numbering goes on after the highest part. A census its writer marked complete, or one of
// another profile, is refused: a census of decision logs is added to until its collector stops
// for good, never marked complete. The caller keeps a second writer out (collect's lock).
func Open(dir string, set Set) (*Writer, error) {
	if err := CanOpen(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("census directory %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("census directory %s: %w", dir, err)
	}
	w := &Writer{dir: dir, set: set, perPart: partReadings}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, tmpPrefix):
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("census directory %s: removing an unfinished part: %w", dir, err)
			}
		case partName.MatchString(name):
			seq, _ := strconv.Atoi(name[:8])
			w.seq = max(w.seq, seq)
		}
	}
	if w.seq > 0 {
		// The last part says the contract set the census is of: another is refused.
		file := filepath.Join(dir, fmt.Sprintf("%08d.census.gz", w.seq))
		f, _, hdr, err := openPart(file, set)
		if err != nil {
			return nil, err
		}
		f.Close()
		if hdr.Batch == nil {
			return nil, fmt.Errorf("census directory %s: %s is a part of %s, not of a census collect writes: give collect --census an empty or new directory, or one collect wrote", dir, file, hdr.kind())
		}
	}
	return w, nil
}

// CanOpen says, writing nothing, why Open would refuse dir before it reads a part: it is not a
// directory, or it holds a census its writer marked complete. A dir that does not exist is one
// Open makes.
func CanOpen(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("census directory %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("census directory %s: not a directory", dir)
	}
	if _, err := os.Lstat(filepath.Join(dir, CompleteFile)); err == nil {
		return fmt.Errorf("census directory %s holds a census its writer marked complete (%s): give collect --census an empty or new directory, or one collect wrote", dir, CompleteFile)
	}
	parts, err := Parts(dir)
	if err != nil {
		return fmt.Errorf("census directory %s: %w", dir, err)
	}
	if len(parts) == 0 {
		return nil
	}
	// A census check writes (of a check, or compacted) is refused while it is written, too.
	file := filepath.Join(dir, parts[len(parts)-1])
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("census part %s: %w", file, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("census part %s: not gzip: %w", file, err)
	}
	_, v, err := strictjson.NewLineReader(file, zr, limits).Next()
	if err != nil {
		return fmt.Errorf("census part %s: %w", file, err)
	}
	if m, ok := v.(map[string]any); !ok || m["batch"] == nil {
		kind := "a check (check --census-out)"
		if ok && m["decisions"] != nil {
			kind = "decision logs compacted by check --census-out"
		}
		return fmt.Errorf("census directory %s holds a census of %s (%s), not one collect writes: give collect --census an empty or new directory, or one collect wrote", dir, kind, file)
	}
	return nil
}

// AddBatch writes one batch of decision logs as a part of its own, durably (Flush): its
// readings and the decisions that are errors, not verdicts. The part exists whole, under its
// name, when AddBatch returns nil; on an error none does.
func (w *Writer) AddBatch(b Batch, readings []result.Reading, errs []result.DecisionError) error {
	e, err := EncodeBatch(readings, errs)
	if err != nil {
		return fmt.Errorf("census %s: %w", w.dir, err)
	}
	return w.AddEncoded(b, e)
}

// EncodedBatch is a batch's census lines, encoded (EncodeBatch) by a caller that writes batches
// from several goroutines through one Writer: the encoding needs no Writer, so it need not wait
// for one.
type EncodedBatch struct {
	lines    [][]byte
	readings int
}

// EncodeBatch encodes a batch's readings and decisions that are errors as census lines.
func EncodeBatch(readings []result.Reading, errs []result.DecisionError) (EncodedBatch, error) {
	e := EncodedBatch{lines: make([][]byte, 0, len(readings)+len(errs)), readings: len(readings)}
	for _, r := range readings {
		line, err := readingLine(r)
		if err != nil {
			return e, err
		}
		b, err := strictjson.Marshal(map[string]any{"reading": line})
		if err != nil {
			return e, err
		}
		e.lines = append(e.lines, b)
	}
	for _, d := range errs {
		b, err := strictjson.Marshal(map[string]any{"decisionError": map[string]any{"at": d.At, "decision": d.Decision, "error": d.Error}})
		if err != nil {
			return e, err
		}
		e.lines = append(e.lines, b)
	}
	return e, nil
}

// AddEncoded writes an encoded batch as AddBatch writes one.
func (w *Writer) AddEncoded(b Batch, e EncodedBatch) error {
	if err := w.Flush(); err != nil {
		return err
	}
	w.batch = &b
	defer func() { w.batch = nil }()
	for _, l := range e.lines {
		if err := w.writeLine(l); err != nil {
			w.Discard()
			return err
		}
	}
	if w.part == nil { // an empty batch: a part of its header alone, so the window counts it
		if err := w.open(); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	w.readings += e.readings
	return nil
}

// num is an integer as strictjson holds numbers.
func num(n int) any { return encjson.Number(strconv.Itoa(n)) }

// jsonNumber is a number as strictjson decodes it.
type jsonNumber = encjson.Number

// Add writes one reading (its readout and diagnostics exactly as the policy gave them).
func (w *Writer) Add(r result.Reading) error {
	line, err := readingLine(r)
	if err != nil {
		return err
	}
	w.readings++
	return w.line(map[string]any{"reading": line})
}

// readingLine is the object of a reading's census line. It holds the reading's fingerprint
// (result.Fingerprint, in hexadecimal), computed when the reading has none, so that a reader
// takes it as written instead of encoding the readout and diagnostics again to hash them: that
// was a sixth of a merge's CPU (docs/design.md, "Merging censuses").
func readingLine(r result.Reading) (map[string]any, error) {
	fp := r.Fingerprint
	if fp == ([sha256.Size]byte{}) {
		var err error
		if fp, err = result.Fingerprint(r.Outcome, r.Readout, r.Diagnostics); err != nil {
			return nil, fmt.Errorf("fingerprint %s %s: %w", r.Fixture, r.Task, err)
		}
	}
	m := map[string]any{
		"fixture": r.Fixture, "lane": r.Lane, "version": r.LaneVersion, "configuration": r.Configuration,
		"stage": r.Stage, "task": r.Task, "repetition": num(r.Repetition), "origin": r.Origin,
		"outcome": r.Outcome, "file": r.File, "line": num(r.Line), "fingerprint": hex.EncodeToString(fp[:]),
	}
	if r.Error != "" {
		m["error"] = r.Error
	}
	if r.Readout != nil {
		m["readout"] = r.Readout
	}
	if r.Diagnostics != nil {
		ds := make([]any, len(r.Diagnostics))
		for i, d := range r.Diagnostics {
			ds[i] = d
		}
		m["diagnostics"] = ds
	}
	return m, nil
}

// AddVisibility writes one visibility reading; nil is none.
func (w *Writer) AddVisibility(v *visibility.Reading) error {
	if v == nil {
		return nil
	}
	m := map[string]any{
		"lane": v.Group.Lane, "version": v.Group.Version, "configuration": v.Group.Configuration, "stage": v.Group.Stage,
		"fixture": v.Fixture, "repetition": num(v.Repetition), "state": v.State, "record": v.Record,
	}
	if v.Channels != nil {
		ch := make(map[string]any, len(v.Channels))
		for k, s := range v.Channels {
			ch[k] = s
		}
		m["channels"] = ch
	}
	return w.line(map[string]any{"visibility": m})
}

// tmpName is the temporary name of part seq.
func (w *Writer) tmpName(seq int) string {
	return filepath.Join(w.dir, tmpPrefix+fmt.Sprintf("%08d.census.gz", seq))
}

func (w *Writer) line(v any) error {
	b, err := strictjson.Marshal(v)
	if err != nil {
		return fmt.Errorf("census %s: %w", w.dir, err)
	}
	return w.writeLine(b)
}

// writeLine writes an encoded line to the part being written (started if none is).
func (w *Writer) writeLine(b []byte) error {
	if w.part == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	if _, err := w.zw.Write(append(b, '\n')); err != nil {
		return w.abort(err)
	}
	w.lines++
	if w.lines >= w.perPart && w.batch == nil { // a batch is one part, whatever its size
		return w.Flush()
	}
	return nil
}

// open starts a part: it is compressed straight into its file under a temporary name, which a
// reader skips (the writer holds a gzip window, not the part), beginning with its header.
func (w *Writer) open() error {
	f, err := os.OpenFile(w.tmpName(w.seq+1), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return fmt.Errorf("census %s: %w", w.dir, err)
	}
	w.part, w.zw = f, gzip.NewWriter(f)
	hdr := map[string]any{"census": num(Version), "profile": w.set.Profile, "contractSet": w.set.Digest}
	if w.batch != nil {
		hdr["batch"] = map[string]any{"seq": encjson.Number(strconv.FormatUint(w.batch.Seq, 10)),
			"received": w.batch.Received.UTC().Format(time.RFC3339Nano)}
	}
	if w.sources != nil {
		hdr["decisions"] = map[string]any{"windows": sourcesJSON(w.sources)}
	}
	h, _ := strictjson.Marshal(hdr)
	if _, err := w.zw.Write(append(h, '\n')); err != nil {
		return w.abort(err)
	}
	return nil
}

// abort gives the part being written up: its temporary file is removed.
func (w *Writer) abort(err error) error {
	w.part.Close()
	os.Remove(w.part.Name())
	w.part, w.zw, w.lines = nil, nil, 0
	return fmt.Errorf("census %s: %w", w.dir, err)
}

// Flush ends the part being written (nothing when none is), durably: its gzip stream closed,
// the file fsync'd and closed, renamed to its name and the directory fsync'd, so that a reader
// sees it whole from the moment its name exists.
func (w *Writer) Flush() error {
	if w.part == nil {
		return nil
	}
	if err := w.zw.Close(); err != nil {
		return w.abort(err)
	}
	if err := w.part.Sync(); err != nil {
		return w.abort(err)
	}
	tmp := w.part.Name()
	if err := w.part.Close(); err != nil {
		w.part = nil
		os.Remove(tmp)
		return fmt.Errorf("census %s: %w", w.dir, err)
	}
	w.part, w.zw = nil, nil
	w.seq++
	name := fmt.Sprintf("%08d.census.gz", w.seq)
	if err := os.Rename(tmp, filepath.Join(w.dir, name)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("census %s: writing %s: %w", w.dir, name, err)
	}
	w.lines = 0
	return syncDir(w.dir)
}

// Discard gives the part being written up (its temporary file removed) and leaves the census
// without its completion marker: for a run that failed.
func (w *Writer) Discard() {
	if w.part != nil {
		_ = w.abort(nil)
	}
}

// Close writes the last part and the marker that says the census is whole. A compacted census of
// decision logs gets a part even when it holds no line: its header says what it is and the
// batches it covers.
func (w *Writer) Close() error {
	if w.sources != nil && w.seq == 0 && w.part == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	b, _ := strictjson.Marshal(map[string]any{"census": num(Version), "profile": w.set.Profile, "contractSet": w.set.Digest, "parts": num(w.seq), "readings": num(w.readings)})
	return writeDurably(w.dir, CompleteFile, append(b, '\n'))
}

// writeDurably writes data to dir/name: to a temporary name, fsync'd, closed, renamed, and the
// directory fsync'd (as contractcheck collect writes its batches).
func writeDurably(dir, name string, data []byte) error {
	err := safeio.WriteDurably(dir, tmpPrefix+name, name, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if se := (*safeio.SyncDirError)(nil); errors.As(err, &se) {
		return fmt.Errorf("census %s: syncing: %w", dir, se.Err)
	}
	if err != nil {
		return fmt.Errorf("census %s: writing %s: %w", dir, name, err)
	}
	return nil
}

// syncDir fsyncs a directory, so that a rename in it is durable.
func syncDir(dir string) error {
	if err := safeio.SyncDir(dir); err != nil {
		return fmt.Errorf("census %s: syncing: %w", dir, err)
	}
	return nil
}

// Parts lists the whole parts of a census directory in sequence order (base names); a part being
// written (a temporary name) is not one.
func Parts(dir string) ([]string, error) {
	return safeio.Names(dir, func(e os.DirEntry) bool { return partName.MatchString(e.Name()) && e.Type().IsRegular() })
}

// Info is what reading a census directory found.
type Info struct {
	Dir      string
	Parts    int
	Readings int
	// Complete says the writer left its marker: every part it wrote is there.
	Complete bool
	// Decisions says the census is of decision logs (collect --census): its parts are batches,
	// and Window says which; DecisionErrors counts its decisions that are errors, not verdicts.
	Decisions      bool
	Window         decisionlog.Window
	DecisionErrors int
	// Compacted says the census of decision logs is one check --census-out wrote (its parts'
	// headers name the batches it covers: Sources), not collect's.
	Compacted bool
	Sources   Sources
}

// String says it for a note beside the report.
func (i Info) String() string {
	state := "complete"
	switch {
	case i.Compacted:
		state = "a compacted census of decision logs, " + i.Sources.String()
		if !i.Complete {
			state = "a compacted census of decision logs still being written (no " + CompleteFile + "): the parts written so far, " + i.Sources.String()
		}
		if i.DecisionErrors > 0 {
			state += fmt.Sprintf("; %d decisions that are errors, not verdicts", i.DecisionErrors)
		}
	case i.Decisions:
		state = "a census of decision logs, " + i.Window.String() + " (collect adds a part per batch it takes)"
		if i.DecisionErrors > 0 {
			state += fmt.Sprintf("; %d decisions that are errors, not verdicts", i.DecisionErrors)
		}
	case !i.Complete:
		state = "still being written (no " + CompleteFile + "): the parts written so far"
	}
	parts := "parts"
	if i.Parts == 1 {
		parts = "part"
	}
	return fmt.Sprintf("%s: %d readings in %d %s, %s", i.Dir, i.Readings, i.Parts, parts, state)
}

// limits bound one line of a part: a record line's own bound, since a reading holds one
// record's readout and diagnostics.
var limits = strictjson.Limits{MaxBytes: 64 << 20}

// Read reads every whole part of a census directory in sequence order, handing each reading to
// reading and each visibility reading to vis. A part written for another profile, a line that is
// not a census line, and a marker that names parts the directory lacks are errors naming the file
// and line. A census of decision logs is read by ReadWith.
func Read(dir string, set Set, reading func(result.Reading) error, vis func(*visibility.Reading) error) (Info, error) {
	return ReadWith(dir, set, Handlers{Reading: reading, Visibility: vis})
}

// Handlers take what ReadWith reads.
type Handlers struct {
	// Part, when set, is told of each part before its lines: what its header says.
	Part func(part string, hdr Header) error
	// Reading takes each reading, Visibility each visibility reading.
	Reading    func(result.Reading) error
	Visibility func(*visibility.Reading) error
	// DecisionError takes each decision that is an error, not a verdict (a census of decision
	// logs); when nil, such a line is an error.
	DecisionError func(result.DecisionError) error
}

// ReadWith is Read with a handler for every kind of line, and the parts' batches. A directory
// whose parts are some of decision logs and some of a check is refused: its expected bindings
// would be of neither.
func ReadWith(dir string, set Set, h Handlers) (Info, error) {
	info := Info{Dir: dir}
	st, err := os.Stat(dir)
	if err != nil {
		return info, fmt.Errorf("census %s: %w", dir, err)
	}
	if !st.IsDir() {
		return info, fmt.Errorf("census %s: not a directory (a census is the directory check --census-out writes)", dir)
	}
	// The marker is read first: a part named by it was renamed into place before it was written.
	complete, err := readComplete(dir, set)
	if err != nil {
		return info, err
	}
	parts, err := Parts(dir)
	if err != nil {
		return info, fmt.Errorf("census %s: %w", dir, err)
	}
	var first Header
	for i, name := range parts {
		file := filepath.Join(dir, name)
		n, hdr, errs, err := readPart(file, set, &h)
		if err != nil {
			return info, err
		}
		if i == 0 {
			first = hdr
		}
		if hdr.kind() != first.kind() {
			return info, fmt.Errorf("census part %s: a part of %s, after parts of %s: a census is of one kind (a check's, collect's, or compacted decision logs), not several",
				file, hdr.kind(), first.kind())
		}
		info.Decisions = hdr.Decisions()
		if hdr.Batch != nil {
			noteBatch(&info.Window, *hdr.Batch)
		}
		if hdr.Sources != nil {
			info.Compacted = true
			if info.Sources == nil {
				info.Sources = Sources{}
			}
			info.Sources.Merge(hdr.Sources)
		}
		info.Parts++
		info.Readings += n
		info.DecisionErrors += errs
	}
	if complete != nil {
		if complete.parts != info.Parts || complete.readings != info.Readings {
			return info, fmt.Errorf("%s: the census is complete with %d parts and %d readings, the directory holds %d and %d",
				filepath.Join(dir, CompleteFile), complete.parts, complete.readings, info.Parts, info.Readings)
		}
		info.Complete = true
	}
	if info.Parts == 0 && complete == nil {
		return info, fmt.Errorf("census %s: no census part (<seq>.census.gz) in it", dir)
	}
	return info, nil
}

// noteBatch widens w by a batch.
func noteBatch(w *decisionlog.Window, b Batch) {
	if w.Batches == 0 || b.Seq < w.FirstSeq {
		w.FirstSeq = b.Seq
	}
	if w.Batches == 0 || b.Seq > w.LastSeq {
		w.LastSeq = b.Seq
	}
	if w.Batches == 0 || b.Received.Before(w.First) {
		w.First = b.Received
	}
	if w.Batches == 0 || b.Received.After(w.Last) {
		w.Last = b.Received
	}
	w.Batches++
}

type marker struct{ parts, readings int }

func readComplete(dir string, set Set) (*marker, error) {
	file := filepath.Join(dir, CompleteFile)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("census %s: %w", dir, err)
	}
	v, err := strictjson.Decode(file, data, limits)
	if err != nil {
		return nil, err
	}
	o := object{file: file, line: 1, v: v}
	m, err := o.fields("", "census", "profile", "contractSet", "parts", "readings")
	if err != nil {
		return nil, err
	}
	if err := o.header(m, set); err != nil {
		return nil, err
	}
	parts, err := o.int(m, "/parts")
	if err != nil {
		return nil, err
	}
	readings, err := o.int(m, "/readings")
	if err != nil {
		return nil, err
	}
	return &marker{parts, readings}, nil
}

// item is one decoded line of a part: a reading, or a visibility reading.
type item struct {
	reading result.Reading
	vis     *visibility.Reading
	derr    *result.DecisionError
}

// batch is a run of a part's lines, decoded by a worker: its items in order, and the error of
// the line after them when one failed.
type batch struct {
	lines []strictjson.Line
	items []item
	err   error
	done  chan struct{}
}

// batchLines is how many lines a worker decodes at a time.
const batchLines = 256

// Header is what a part's header says besides the profile: the batch a part of collect's census
// holds, or the windows of a compacted census of decision logs; neither for a part of a check's
// census.
type Header struct {
	// Batch is the batch a part of collect's census holds; nil otherwise.
	Batch *Batch
	// Sources, not nil for a part of a compacted census of decision logs, are the batches the
	// whole census covers.
	Sources Sources
}

// Decisions says the part is of a census of decision logs, collect's or compacted.
func (h Header) Decisions() bool { return h.Batch != nil || h.Sources != nil }

// kind says what census the part is of, for a message.
func (h Header) kind() string {
	switch {
	case h.Batch != nil:
		return "decision logs (collect --census)"
	case h.Sources != nil:
		return "decision logs compacted (check --census-out)"
	}
	return "a check (check --census-out)"
}

// openPart opens a part and reads its header: the line reader on its lines after it, the file
// to close, and what the header says.
func openPart(file string, set Set) (*os.File, *strictjson.LineReader, Header, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, Header{}, fmt.Errorf("census part %s: %w", file, err)
	}
	lr, hdr, err := partHeader(f, file, set)
	if err != nil {
		f.Close()
		return nil, nil, Header{}, err
	}
	return f, lr, hdr, nil
}

func partHeader(f *os.File, file string, set Set) (*strictjson.LineReader, Header, error) {
	var hdr Header
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, hdr, fmt.Errorf("census part %s: not gzip: %w", file, err)
	}
	lr := strictjson.NewLineReader(file, zr, limits)
	line, v, err := lr.Next()
	if err == io.EOF {
		return nil, hdr, fmt.Errorf("census part %s: empty (no header line)", file)
	}
	if err != nil {
		return nil, hdr, fmt.Errorf("census part %s: %w", file, err)
	}
	o := object{file: file, line: line, v: v}
	m, err := o.fields("", "census", "profile", "contractSet", "batch", "decisions")
	if err != nil {
		return nil, hdr, err
	}
	if err := o.header(m, set); err != nil {
		return nil, hdr, err
	}
	_, isBatch := m["batch"]
	_, compacted := m["decisions"]
	switch {
	case isBatch && compacted:
		return nil, hdr, o.errorf("/decisions", "a part holds one batch (batch) or is compacted (decisions), not both")
	case compacted:
		if hdr.Sources, err = o.sources(); err != nil {
			return nil, hdr, err
		}
		return lr, hdr, nil
	case !isBatch:
		return lr, hdr, nil
	}
	bm, err := o.fields("/batch", "seq", "received")
	if err != nil {
		return nil, hdr, err
	}
	seq, err := o.int(bm, "/batch/seq")
	if err != nil {
		return nil, hdr, err
	}
	s, err := o.str(bm, "/batch", "received", false)
	if err != nil {
		return nil, hdr, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, hdr, o.errorf("/batch/received", "not a time (RFC 3339): %q", s)
	}
	hdr.Batch = &Batch{Seq: uint64(seq), Received: t}
	return lr, hdr, nil
}

// readPart reads one part: one goroutine reads its lines, as many as there are processors decode
// them (and compute each reading's fingerprint, which the census would compute), and the items
// are handed on in the order of the lines. It returns the readings read, the part's header and
// its decisions that are errors.
func readPart(file string, set Set, h *Handlers) (int, Header, int, error) {
	f, lr, hdr, err := openPart(file, set)
	if err != nil {
		return 0, hdr, 0, err
	}
	defer f.Close()
	if h.Part != nil {
		if err := h.Part(file, hdr); err != nil {
			return 0, hdr, 0, err
		}
	}
	n, errs, err := readLines(file, lr, hdr.Decisions(), h)
	return n, hdr, errs, err
}

// readLines reads a part's lines after its header.
func readLines(file string, lr *strictjson.LineReader, decisions bool, h *Handlers) (int, int, error) {
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *batch, 2*workers)
	order := make(chan *batch, 2*workers)
	stop := make(chan struct{})
	defer close(stop)
	var readErr error
	go func() { // the reader: batches of lines, to the workers and, in order, to the consumer
		defer close(work)
		defer close(order)
		for {
			b := &batch{done: make(chan struct{})}
			for len(b.lines) < batchLines {
				l, err := lr.NextLine()
				if err == io.EOF {
					break
				}
				if err != nil {
					readErr = fmt.Errorf("census part %s: %w", file, err)
					break
				}
				b.lines = append(b.lines, l)
			}
			full := len(b.lines) == batchLines // read before a worker takes the batch
			if len(b.lines) == 0 {
				return
			}
			select {
			case work <- b:
			case <-stop:
				return
			}
			select {
			case order <- b:
			case <-stop:
				return
			}
			if readErr != nil || !full {
				return
			}
		}
	}()
	for range workers {
		go func() {
			dec := strictjson.NewLineDecoder(limits)
			for b := range work {
				b.items, b.err = decodeBatch(dec, file, b.lines, decisions && h.DecisionError != nil)
				b.lines = nil
				close(b.done)
			}
		}()
	}
	n, errs := 0, 0
	for b := range order {
		<-b.done
		for _, it := range b.items {
			switch {
			case it.vis != nil:
				if err := h.Visibility(it.vis); err != nil {
					return n, errs, err
				}
			case it.derr != nil:
				errs++
				if err := h.DecisionError(*it.derr); err != nil {
					return n, errs, err
				}
			default:
				if err := h.Reading(it.reading); err != nil {
					return n, errs, err
				}
				n++
			}
		}
		if b.err != nil {
			return n, errs, b.err
		}
	}
	return n, errs, readErr
}

// object reads the fields of a census line, its errors naming file, line and JSON pointer.
type object struct {
	file string
	line int
	v    any
}

func (o object) errorf(ptr, format string, args ...any) error {
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Errorf("%s:%d: %s: %s", o.file, o.line, ptr, fmt.Sprintf(format, args...))
}

// The fields of a census line, of its decisionError, reading and visibility objects.
var (
	lineFields          = []string{"reading", "visibility", "decisionError"} // the third in a census of decision logs only
	decisionErrorFields = []string{"at", "decision", "error"}
	visibilityFields    = []string{"lane", "version", "configuration", "stage", "fixture", "repetition", "state", "channels", "record"}
)

// fields is the object at ptr, holding no key but those allowed.
func (o object) fields(ptr string, allowed ...string) (map[string]any, error) {
	v := o.v
	if ptr != "" {
		var err error
		if v, err = o.at(ptr); err != nil {
			return nil, err
		}
	}
	return o.fieldsOf(ptr, v, allowed)
}

// fieldsOf is fields of v, the value at ptr, found by the caller (a line's members are read once,
// not looked up again by their pointer).
func (o object) fieldsOf(ptr string, v any, allowed []string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, o.errorf(ptr, "want an object, got %s", strictjson.TypeName(v))
	}
	for k := range m {
		if !slices.Contains(allowed, k) {
			return nil, o.errorf(ptr+"/"+strictjson.EscapeToken(k), "not a field of a census line (fields: %v)", allowed)
		}
	}
	return m, nil
}

// at is the value at a pointer of a few tokens.
func (o object) at(ptr string) (any, error) {
	p, err := strictjson.ParsePointer(ptr)
	if err != nil {
		return nil, o.errorf(ptr, "%v", err)
	}
	v := o.v
	for _, tok := range p {
		if l, ok := v.([]any); ok { // an array's element (a compacted census's windows)
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(l) {
				return nil, o.errorf(ptr, "no such element")
			}
			v = l[i]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, o.errorf(ptr, "want an object")
		}
		v = m[tok]
	}
	return v, nil
}

func (o object) header(m map[string]any, set Set) error {
	if n, ok := m["census"].(jsonNumber); ok && string(n) == "1" {
		return o.errorf("/census", "a census of format 1, written by an older contractcheck: it does not name its contract set, so it cannot be told from a census of another; make it again with this contractcheck (check --census-out, or check --decision-logs over collect's batches with --census-out)")
	}
	if n, ok := m["census"].(jsonNumber); !ok || string(n) != strconv.Itoa(Version) {
		return o.errorf("/census", "not a census of format %d (got %v)", Version, m["census"])
	}
	p, ok := m["profile"].(string)
	if !ok {
		return o.errorf("/profile", "want a string")
	}
	if p != set.Profile {
		return o.errorf("/profile", "a census of profile %q; this check is of profile %q (give --profile %s)", p, set.Profile, p)
	}
	d, ok := m["contractSet"].(string)
	if !ok {
		return o.errorf("/contractSet", "want a string (the digest of the census's contract set), got %s", strictjson.TypeName(m["contractSet"]))
	}
	if d != set.Digest {
		return o.errorf("/contractSet", "a census of contract set %s; the one loaded is %s: give the contracts, policies, schemas and fixtures it was made with", d, set.Digest)
	}
	return nil
}

func (o object) str(m map[string]any, ptr, key string, optional bool) (string, error) {
	v, ok := m[key]
	if !ok && optional {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", o.errorf(ptr+"/"+key, "want a string, got %s", strictjson.TypeName(v))
	}
	return s, nil
}

func (o object) int(m map[string]any, ptr string) (int, error) {
	key := ptr[len(ptr)-len(lastToken(ptr)):]
	n, ok := m[key].(jsonNumber)
	if !ok {
		return 0, o.errorf(ptr, "want a whole number, got %s", strictjson.TypeName(m[key]))
	}
	i, err := strconv.Atoi(string(n))
	if err != nil || i < 0 {
		return 0, o.errorf(ptr, "want a whole number, got %s", n)
	}
	return i, nil
}

func lastToken(ptr string) string {
	for i := len(ptr) - 1; i >= 0; i-- {
		if ptr[i] == '/' {
			return ptr[i+1:]
		}
	}
	return ptr
}

func (o object) visibility(v any) (*visibility.Reading, error) {
	m, err := o.fieldsOf("/visibility", v, visibilityFields)
	if err != nil {
		return nil, err
	}
	r := &visibility.Reading{}
	for _, f := range []struct {
		key string
		to  *string
	}{
		{"lane", &r.Group.Lane}, {"version", &r.Group.Version}, {"configuration", &r.Group.Configuration}, {"stage", &r.Group.Stage},
		{"fixture", &r.Fixture}, {"state", &r.State}, {"record", &r.Record},
	} {
		if *f.to, err = o.str(m, "/visibility", f.key, false); err != nil {
			return nil, err
		}
	}
	if r.Repetition, err = o.int(m, "/visibility/repetition"); err != nil {
		return nil, err
	}
	x, has := m["channels"]
	if !has {
		return r, nil
	}
	ch, ok := x.(map[string]any)
	if !ok {
		return nil, o.errorf("/visibility/channels", "want an object, got %s", strictjson.TypeName(m["channels"]))
	}
	r.Channels = make(map[string]string, len(ch))
	for k, x := range ch {
		s, ok := x.(string)
		if !ok {
			return nil, o.errorf("/visibility/channels/"+strictjson.EscapeToken(k), "want a string, got %s", strictjson.TypeName(x))
		}
		r.Channels[k] = s
	}
	return r, nil
}
