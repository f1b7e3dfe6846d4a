// Package censusdir keeps a census on disk as a directory of parts, so that a census is a value
// that outlives the run that made it and merges with others (docs/production.md, "Many
// collectors: merge their censuses"): `check --census-out DIR` writes one, `check --census DIR`
// (repeatable) reports on one or on the union of several.
//
// A census directory holds parts named <seq>.census.gz (seq eight digits, from 00000001), each a
// gzip'd JSON Lines file: a header line {"census": 1, "profile": P}, then one line a reading,
// {"reading": {...}} (a binding's repetition: its position, task, repetition, origin, outcome,
// error, record file and line, readout and diagnostics in their exact JSON), or
// {"visibility": {...}} (a record's channel-visibility reading). A part is written to a temporary
// name (".tmp-…", which a reader skips), fsync'd, closed, renamed to its name and the directory
// fsync'd: the name exists only for a whole part, so a reader at any time sees whole parts, never
// half of one. When the writer is done it writes "complete.json" the same way, naming how many
// parts and readings the census holds; a census without it is still being written.
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

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// Version is the census format's version, the header's "census".
const Version = 1

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
	profile  string
	seq      int
	part     *os.File     // the part being written, under its temporary name; nil between parts
	zw       *gzip.Writer // compressing into part
	lines    int          // readings and visibility lines in the part
	readings int          // readings written in all parts
	perPart  int          // the lines a part holds: partReadings
}

// Create starts a census of profile in dir, made if need be. A directory that already holds a
// census is refused: two runs would number their parts alike.
func Create(dir, profile string) (*Writer, error) {
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
	return &Writer{dir: dir, profile: profile, perPart: partReadings}, nil
}

// num is an integer as strictjson holds numbers.
func num(n int) any { return encjson.Number(strconv.Itoa(n)) }

// jsonNumber is a number as strictjson decodes it.
type jsonNumber = encjson.Number

// Add writes one reading (its readout and diagnostics exactly as the policy gave them).
func (w *Writer) Add(r result.Reading) error {
	m := map[string]any{
		"fixture": r.Fixture, "lane": r.Lane, "version": r.LaneVersion, "configuration": r.Configuration,
		"stage": r.Stage, "task": r.Task, "repetition": num(r.Repetition), "origin": r.Origin,
		"outcome": r.Outcome, "file": r.File, "line": num(r.Line),
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
	w.readings++
	return w.line(map[string]any{"reading": m})
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
	if w.part == nil {
		// A part is compressed straight into its file under a temporary name, which a reader
		// skips: the writer holds a gzip window, not the part.
		f, err := os.OpenFile(w.tmpName(w.seq+1), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
		if err != nil {
			return fmt.Errorf("census %s: %w", w.dir, err)
		}
		w.part, w.zw = f, gzip.NewWriter(f)
		h, _ := strictjson.Marshal(map[string]any{"census": num(Version), "profile": w.profile})
		if _, err := w.zw.Write(append(h, '\n')); err != nil {
			return w.abort(err)
		}
	}
	if _, err := w.zw.Write(append(b, '\n')); err != nil {
		return w.abort(err)
	}
	w.lines++
	if w.lines >= w.perPart {
		return w.Flush()
	}
	return nil
}

// abort gives the part being written up: its temporary file is removed.
func (w *Writer) abort(err error) error {
	w.part.Close()
	os.Remove(w.part.Name())
	w.part, w.zw = nil, nil
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

// Close writes the last part and the marker that says the census is whole.
func (w *Writer) Close() error {
	if err := w.Flush(); err != nil {
		return err
	}
	b, _ := strictjson.Marshal(map[string]any{"census": num(Version), "profile": w.profile, "parts": num(w.seq), "readings": num(w.readings)})
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
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if partName.MatchString(e.Name()) && e.Type().IsRegular() {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out, nil
}

// Info is what reading a census directory found.
type Info struct {
	Dir      string
	Parts    int
	Readings int
	// Complete says the writer left its marker: every part it wrote is there.
	Complete bool
}

// String says it for a note beside the report.
func (i Info) String() string {
	state := "complete"
	if !i.Complete {
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
// and line.
func Read(dir, profile string, reading func(result.Reading) error, vis func(*visibility.Reading) error) (Info, error) {
	info := Info{Dir: dir}
	st, err := os.Stat(dir)
	if err != nil {
		return info, fmt.Errorf("census %s: %w", dir, err)
	}
	if !st.IsDir() {
		return info, fmt.Errorf("census %s: not a directory (a census is the directory check --census-out writes)", dir)
	}
	// The marker is read first: a part named by it was renamed into place before it was written.
	complete, err := readComplete(dir, profile)
	if err != nil {
		return info, err
	}
	parts, err := Parts(dir)
	if err != nil {
		return info, fmt.Errorf("census %s: %w", dir, err)
	}
	for _, name := range parts {
		n, err := readPart(filepath.Join(dir, name), profile, reading, vis)
		if err != nil {
			return info, err
		}
		info.Parts++
		info.Readings += n
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

type marker struct{ parts, readings int }

func readComplete(dir, profile string) (*marker, error) {
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
	m, err := o.fields("", "census", "profile", "parts", "readings")
	if err != nil {
		return nil, err
	}
	if err := o.header(m, profile); err != nil {
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

// readPart reads one part: one goroutine reads its lines, as many as there are processors decode
// them (and compute each reading's fingerprint, which the census would compute), and the items
// are handed on in the order of the lines.
func readPart(file, profile string, reading func(result.Reading) error, vis func(*visibility.Reading) error) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, fmt.Errorf("census part %s: %w", file, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("census part %s: not gzip: %w", file, err)
	}
	lr := strictjson.NewLineReader(file, zr, limits)
	line, v, err := lr.Next()
	if err == io.EOF {
		return 0, fmt.Errorf("census part %s: empty (no header line)", file)
	}
	if err != nil {
		return 0, fmt.Errorf("census part %s: %w", file, err)
	}
	o := object{file: file, line: line, v: v}
	m, err := o.fields("", "census", "profile")
	if err != nil {
		return 0, err
	}
	if err := o.header(m, profile); err != nil {
		return 0, err
	}

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
				b.items, b.err = decodeBatch(dec, file, b.lines)
				b.lines = nil
				close(b.done)
			}
		}()
	}
	n := 0
	for b := range order {
		<-b.done
		for _, it := range b.items {
			if it.vis != nil {
				if err := vis(it.vis); err != nil {
					return n, err
				}
				continue
			}
			if err := reading(it.reading); err != nil {
				return n, err
			}
			n++
		}
		if b.err != nil {
			return n, b.err
		}
	}
	return n, readErr
}

// decodeBatch decodes lines until one fails.
func decodeBatch(dec *strictjson.LineDecoder, file string, lines []strictjson.Line) ([]item, error) {
	out := make([]item, 0, len(lines))
	for _, l := range lines {
		v, err := dec.Decode(l)
		if err != nil {
			return out, err
		}
		o := object{file: file, line: l.Number, v: v}
		m, err := o.fields("", "reading", "visibility")
		if err != nil {
			return out, err
		}
		switch {
		case len(m) != 1:
			return out, o.errorf("", "a census line holds one of reading or visibility")
		case m["reading"] != nil:
			r, err := o.reading(m["reading"])
			if err != nil {
				return out, err
			}
			if r.Fingerprint, err = result.Fingerprint(r.Outcome, r.Readout, r.Diagnostics); err != nil {
				return out, o.errorf("/reading", "%v", err)
			}
			out = append(out, item{reading: r})
		default:
			vr, err := o.visibility(m["visibility"])
			if err != nil {
				return out, err
			}
			out = append(out, item{vis: vr})
		}
	}
	return out, nil
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

// fields is the object at ptr, holding no key but those allowed.
func (o object) fields(ptr string, allowed ...string) (map[string]any, error) {
	v := o.v
	if ptr != "" {
		var err error
		if v, err = o.at(ptr); err != nil {
			return nil, err
		}
	}
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

// at is the value at a pointer of one or two tokens.
func (o object) at(ptr string) (any, error) {
	p, err := strictjson.ParsePointer(ptr)
	if err != nil {
		return nil, o.errorf(ptr, "%v", err)
	}
	v := o.v
	for _, tok := range p {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, o.errorf(ptr, "want an object")
		}
		v = m[tok]
	}
	return v, nil
}

func (o object) header(m map[string]any, profile string) error {
	if n, ok := m["census"].(jsonNumber); !ok || string(n) != strconv.Itoa(Version) {
		return o.errorf("/census", "not a census of format %d (got %v)", Version, m["census"])
	}
	p, ok := m["profile"].(string)
	if !ok {
		return o.errorf("/profile", "want a string")
	}
	if p != profile {
		return o.errorf("/profile", "a census of profile %q; this check is of profile %q (give --profile %s)", p, profile, p)
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

func (o object) reading(v any) (result.Reading, error) {
	var r result.Reading
	m, err := o.fields("/reading", "fixture", "lane", "version", "configuration", "stage", "task", "repetition", "origin",
		"outcome", "error", "file", "line", "readout", "diagnostics")
	if err != nil {
		return r, err
	}
	for _, f := range []struct {
		key      string
		to       *string
		optional bool
	}{
		{"fixture", &r.Fixture, false}, {"lane", &r.Lane, false}, {"version", &r.LaneVersion, false},
		{"configuration", &r.Configuration, false}, {"stage", &r.Stage, false}, {"task", &r.Task, false},
		{"origin", &r.Origin, false}, {"outcome", &r.Outcome, false}, {"error", &r.Error, true}, {"file", &r.File, false},
	} {
		if *f.to, err = o.str(m, "/reading", f.key, f.optional); err != nil {
			return r, err
		}
	}
	if r.Repetition, err = o.int(m, "/reading/repetition"); err != nil {
		return r, err
	}
	if r.Line, err = o.int(m, "/reading/line"); err != nil {
		return r, err
	}
	if !slices.Contains(readingOutcomes, r.Outcome) {
		return r, o.errorf("/reading/outcome", "not an outcome: %q", r.Outcome)
	}
	if x, ok := m["readout"]; ok {
		if r.Readout, ok = x.(map[string]any); !ok {
			return r, o.errorf("/reading/readout", "want an object, got %s", strictjson.TypeName(x))
		}
	}
	if x, ok := m["diagnostics"]; ok {
		list, ok := x.([]any)
		if !ok {
			return r, o.errorf("/reading/diagnostics", "want an array, got %s", strictjson.TypeName(x))
		}
		r.Diagnostics = make([]result.Diagnostic, len(list))
		for i, d := range list {
			if r.Diagnostics[i], ok = d.(map[string]any); !ok {
				return r, o.errorf(fmt.Sprintf("/reading/diagnostics/%d", i), "want an object, got %s", strictjson.TypeName(d))
			}
		}
	}
	return r, nil
}

func (o object) visibility(v any) (*visibility.Reading, error) {
	m, err := o.fields("/visibility", "lane", "version", "configuration", "stage", "fixture", "repetition", "state", "channels", "record")
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
