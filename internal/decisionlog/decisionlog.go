// Package decisionlog reads OPA decision logs of the contract set's bundle (`contractcheck
// bundle`) back into decisions the census can take (`contractcheck check --decision-logs`): the
// console plugin's output (one JSON object per line, OPA's own log lines interleaved), files of
// such lines, directories of such files, standard input, and the batches OPA's decision-log
// plugin uploads to a log service (a JSON array of events, gzip-compressed as OPA sends it, or
// not). Only events on the bundle's decision path (Path) are decisions; the events of other paths
// and the log lines that are not decision events are counted (Counts), never taken. A decision
// that is an error, not a verdict (OPA logged an error, or the result is the bundle's {"errors":
// …}), is handed on as such (Decision.Error), for the caller to count and report. An event on the
// decision path that cannot be taken otherwise (no result, a member missing or of the wrong type)
// is an error naming its file and line (or, in a batch, its place in the array).
//
// The reader reads the decision's result only, never its input: the result echoes everything the
// census needs (rego/decision.rego), so a mask policy may erase the carrier, the source, or the
// whole input. A task result gives its readout, and its diagnostics' values of the user's data,
// as JSON text or (unless the bundle quotes the user's data) as descriptions (values.go): no
// number OPA's upload could round; the reader takes them back exact.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package decisionlog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/progress"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Path is the decision's path as OPA logs it: the bundle's entry point data.contractcheck.decision.
const Path = "contractcheck/decision"

// StdinArg names standard input among the sources; StdinName is how messages name it.
const (
	StdinArg  = "-"
	StdinName = "<stdin>"
)

// Decision is one logged decision of the bundle, as its result gives it.
type Decision struct {
	// File and Line locate the event: the log file (as the run named it) and its line, or in a
	// batch (a JSON array) the event's place in the array, from 1.
	File string
	Line int
	// Batch says the file is a JSON array of events: Line is an index, not a line.
	Batch bool
	// ID is OPA's decision id.
	ID string
	// Error, when not "", says the decision is an error, not a verdict: what OPA logged as the
	// evaluation's error, or the result's "errors" (the bundle refused the input: a position the
	// contract set does not know, no carrier), as compact JSON. Such a decision has no result: only
	// File, Line, Batch, ID and, of the Position, the members the logged input names as strings
	// (none when a mask erased them), for the caller to place it in or out of a run's scope.
	Error   string
	Profile string
	result.Position
	Repetition int
	// SourceSha256 is the digest of the fixture's source the poster named ("" when it named none).
	SourceSha256 string
	// Record is where the poster read the carrier (nil when it did not say).
	Record *result.RecordRef
	// Results are the task results in the decision's order.
	Results []TaskResult
}

// EventError is an event the reader cannot take: where it is (File, Line, Batch as in a
// Decision), its decision id when it has one, and the member of the event at fault as a JSON
// pointer within the event ("/result/repetition"; "" for the event as a whole).
type EventError struct {
	File  string
	Line  int
	Batch bool
	// ID is the event's decision_id; Decision says the event is a decision of the bundle's path.
	ID       string
	Decision bool
	Member   string
	Msg      string
}

// Error says where and what: "file: event 3: decision \"id\": result.repetition is …".
func (e *EventError) Error() string {
	if e.Decision {
		return fmt.Sprintf("%s: decision %s: %s", at(e.File, e.Line, e.Batch), strconv.Quote(e.ID), e.Msg)
	}
	return fmt.Sprintf("%s: %s", at(e.File, e.Line, e.Batch), e.Msg)
}

// At is where the decision is, for a message: "file:line", or "file: event n" in a batch.
func (d *Decision) At() string {
	return at(d.File, d.Line, d.Batch)
}

func at(file string, line int, batch bool) string {
	if batch {
		return fmt.Sprintf("%s: event %d", file, line)
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// TaskResult is one task's result in a decision.
type TaskResult struct {
	Task    string
	Outcome string
	// Diagnostics are the policy's, each value of the user's data (expected, observed) read back:
	// the value a bundle built with --quote-data quoted, else its description (Describe).
	Diagnostics []result.Diagnostic
	// Readout is the readout its JSON text holds.
	Readout map[string]any
	// Error is the decision's explanation of an instrument_failed outcome.
	Error string
}

// Counts says what the reader read besides the decisions it handed on.
type Counts struct {
	// Files is how many files (standard input included) were read.
	Files int
	// Decisions counts the events on the decision path.
	Decisions int
	// OtherPaths counts decision events of other paths (other policies the OPA serves), by path.
	OtherPaths map[string]int
	// OtherLines counts the lines that are not decision events (OPA's own log lines).
	OtherLines int
	// OutOfScope and Duplicates are the caller's: the decisions outside the run's scope, and the
	// task results logged again with the same verdict (counted once).
	OutOfScope, Duplicates int
	// Window is what the read covers of the batches collect wrote (their file names say it).
	Window Window
	// Batches are the batch files of collect's the read took, in the order read: per directory,
	// a collector's window (a compacted census keeps one per collector).
	Batches []BatchFile
}

// String says what was read, for a note beside a report.
func (c Counts) String() string {
	s := fmt.Sprintf("%d decisions of %s in %d files", c.Decisions, Path, c.Files)
	if n := c.otherPaths(); n > 0 {
		var paths []string
		for _, p := range slices.Sorted(maps.Keys(c.OtherPaths)) {
			paths = append(paths, fmt.Sprintf("%s %d", strconv.Quote(p), c.OtherPaths[p]))
		}
		s += fmt.Sprintf("; %d decisions of other paths not taken (%s)", n, strings.Join(paths, ", "))
	}
	if c.OutOfScope > 0 {
		s += fmt.Sprintf("; %d outside the run's scope", c.OutOfScope)
	}
	if c.Duplicates > 0 {
		s += fmt.Sprintf("; %d task results logged again, counted once", c.Duplicates)
	}
	if c.OtherLines > 0 {
		s += fmt.Sprintf("; %d log lines that are not decision events", c.OtherLines)
	}
	if c.Window.Batches > 0 {
		s += "; " + c.Window.String()
	}
	return s
}

func (c Counts) otherPaths() int {
	n := 0
	for _, v := range c.OtherPaths {
		n += v
	}
	return n
}

// Read reads the decision logs of paths in order (a directory's files sorted by name, its
// subdirectories walked; "-" standard input, read from stdin) and hands each decision of the
// bundle's path to emit; it stops at the first error, its own or emit's.
func Read(ctx context.Context, paths []string, stdin io.Reader, emit func(*Decision) error) (Counts, error) {
	c := Counts{OtherPaths: map[string]int{}}
	if n := len(slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p != StdinArg })); n > 1 {
		return c, fmt.Errorf("--decision-logs %s is given twice: standard input is read once", StdinArg)
	}
	// Every path is listed before any is read, so that progress (when a meter watches: the
	// context's progress.Counter) knows the bytes to read from the start.
	meter := progress.From(ctx)
	if meter != nil {
		next := emit
		emit = func(d *Decision) error {
			meter.Done(1)
			return next(d)
		}
	}
	files := make([][]string, len(paths))
	for i, p := range paths {
		if p == StdinArg {
			meter.AddTotalBytes(-1) // of unknown size
			continue
		}
		names, err := list(p)
		if err != nil {
			return c, err
		}
		files[i] = names
		for _, f := range names {
			size := int64(-1)
			if st, err := os.Stat(f); err == nil {
				size = st.Size()
			}
			meter.AddTotalBytes(size)
		}
	}
	for i, p := range paths {
		if p == StdinArg {
			if stdin == nil {
				return c, fmt.Errorf("--decision-logs %s: standard input is not available to this command", StdinArg)
			}
			if err := readStream(ctx, StdinName, stdin, &c, emit); err != nil {
				return c, err
			}
			continue
		}
		for _, f := range files[i] {
			if err := readFile(ctx, f, &c, emit); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// counted is a reader that counts the bytes read through it on a progress.Counter.
type counted struct {
	r     io.Reader
	meter *progress.Counter
}

func (c counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.meter.AddBytes(int64(n))
	return n, err
}

// list is the file p, or the regular files below the directory p sorted by path (names
// beginning with "." left out, as editors and rotation leave them).
func list(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("--decision-logs: %w", safeio.PathCause(err))
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var out []string
	err = filepath.WalkDir(p, func(q string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if q != p && strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.Type().IsRegular() {
			out = append(out, q)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--decision-logs %s: %w", p, safeio.PathCause(err))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--decision-logs %s: the directory holds no file", p)
	}
	slices.Sort(out)
	return out, nil
}

func readFile(ctx context.Context, name string, c *Counts, emit func(*Decision) error) error {
	f, err := safeio.OpenPath(name, 0)
	if err != nil {
		return fmt.Errorf("--decision-logs: %w", safeio.PathCause(err))
	}
	defer f.Close()
	return readStream(ctx, name, f, c, emit)
}

// maxLine is the longest line (or batch, decompressed) the reader takes: strict JSON's limit.
var maxLine = strictjson.DefaultLimits.MaxBytes

// readStream reads one log: gzip-compressed or not, a JSON array of events (a batch) or lines.
func readStream(ctx context.Context, name string, r io.Reader, c *Counts, emit func(*Decision) error) error {
	c.Files++
	if meter := progress.From(ctx); meter != nil {
		r = counted{r, meter}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%s: gzip: %w", name, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	for {
		b, err := br.Peek(1)
		if err != nil || (b[0] != ' ' && b[0] != '\t' && b[0] != '\r' && b[0] != '\n') {
			break
		}
		br.ReadByte()
	}
	if b, err := br.Peek(1); err == nil && b[0] == '[' {
		return readBatch(ctx, name, br, c, emit)
	}
	return readLines(ctx, name, br, c, emit)
}

// readBatch reads a JSON array of events, as OPA uploads them to a log service, event by event
// (strictjson.ArrayReader, as collect reads an upload): its memory is one event's tree, never the
// whole batch's. After an event that fails, the rest is still read, so that a batch that is also
// not JSON or over maxLine is refused for that, as when it was decoded whole first.
func readBatch(ctx context.Context, name string, r io.Reader, c *Counts, emit func(*Decision) error) error {
	ar := strictjson.NewArrayReader(name, r, strictjson.Limits{MaxBytes: maxLine})
	noteBatchFile(name, c)
	var eventErr error
	for {
		i, ev, err := ar.Next()
		if errors.Is(err, io.EOF) {
			return eventErr
		}
		if err != nil {
			return err
		}
		if eventErr == nil {
			eventErr = ReadEvent(ctx, name, i, ev, c, emit)
		}
	}
}

// ReadEvent reads one event of a batch (a JSON array of events as OPA's decision-log plugin
// uploads it), the one at index i (from 0), decoded by strictjson, as Read reads each event of a
// batch file: a decision of the bundle's path is handed to emit. The error is its own (an
// *EventError, naming the event and the member at fault) or emit's. c adds up what the events
// held (a zero Counts is ready; Files is left alone). collect reads a batch event by event with
// it (strictjson.ArrayReader), never holding the batch's whole tree.
func ReadEvent(ctx context.Context, name string, i int, ev any, c *Counts, emit func(*Decision) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.OtherPaths == nil {
		c.OtherPaths = map[string]int{}
	}
	obj, ok := ev.(map[string]any)
	if !ok {
		return &EventError{File: name, Line: i + 1, Batch: true, Msg: "not a decision-log event (a JSON object)"}
	}
	d, err := event(name, i+1, true, obj, c)
	if err != nil || d == nil {
		return err
	}
	return emit(d)
}

// readLines reads a log of one JSON object per line (OPA's console output, or a file of it).
func readLines(ctx context.Context, name string, br *bufio.Reader, c *Counts, emit func(*Decision) error) error {
	line := 0
	var buf []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf = buf[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if int64(len(buf)+len(chunk)) > maxLine {
				return fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, maxLine)
			}
			buf = append(buf, chunk...)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: %w", name, line+1, err)
		}
		if len(buf) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		line++
		if text := bytes.TrimSpace(buf); len(text) > 0 {
			d, derr := lineEvent(name, line, text, c)
			if derr != nil {
				return derr
			}
			if d != nil {
				if err := emit(d); err != nil {
					return err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// lineEvent reads one line: a decision event, or another log line (counted). A line that is not
// JSON is OPA's text log unless it names a decision: a damaged event is an error, never dropped.
func lineEvent(name string, line int, text []byte, c *Counts) (*Decision, error) {
	doc, err := strictjson.Decode(name, text, strictjson.DefaultLimits)
	obj, isObject := doc.(map[string]any)
	if err != nil || !isObject {
		if bytes.Contains(text, []byte("decision_id")) {
			if err == nil {
				err = errors.New("not a JSON object")
			}
			return nil, fmt.Errorf("%s:%d: a damaged decision-log event: %v", name, line, shortErr(err))
		}
		c.OtherLines++
		return nil, nil
	}
	return event(name, line, false, obj, c)
}

// shortErr is a decode error without the file name strictjson puts first (the caller says where).
func shortErr(err error) string {
	var se *strictjson.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("column %d: %s", se.Col, se.Msg)
	}
	return err.Error()
}

// event reads one decision-log event object: nil for a log line that is not a decision event, or a
// decision of another path (both counted).
func event(name string, line int, batch bool, ev map[string]any, c *Counts) (*Decision, error) {
	id, isDecision := ev["decision_id"].(string)
	if !isDecision {
		if _, has := ev["decision_id"]; has {
			return nil, &EventError{File: name, Line: line, Batch: batch, Member: "/decision_id", Msg: "decision_id is not a string"}
		}
		c.OtherLines++
		return nil, nil
	}
	path, _ := ev["path"].(string)
	if strings.Trim(path, "/") != Path {
		c.OtherPaths[path]++
		return nil, nil
	}
	c.Decisions++
	fail := func(member, format string, args ...any) (*Decision, error) {
		return nil, &EventError{File: name, Line: line, Batch: batch, ID: id, Decision: true, Member: member, Msg: fmt.Sprintf(format, args...)}
	}
	if e, has := ev["error"]; has && e != nil {
		return errorDecision(name, line, batch, id, "OPA logged an error: "+compact(e), ev), nil
	}
	res, has := ev["result"]
	if !has {
		if erased, _ := ev["erased"].([]any); slices.ContainsFunc(erased, func(p any) bool { s, _ := p.(string); return s == "/result" || strings.HasPrefix(s, "/result/") }) {
			return fail("/result", "the result was erased by a mask policy: mask only the input (/input/carrier) to read decisions back")
		}
		return fail("/result", "no result (the decision was undefined: is the bundle active?)")
	}
	if erased, _ := ev["erased"].([]any); slices.ContainsFunc(erased, func(p any) bool { s, _ := p.(string); return strings.HasPrefix(s, "/result") }) {
		return fail("/erased", "the mask policy erased part of the result (%s): the decision cannot be read back", compact(erased))
	}
	r, ok := res.(map[string]any)
	if !ok {
		return fail("/result", "result is %s, not a decision object", kind(res))
	}
	if errs, has := r["errors"]; has {
		return errorDecision(name, line, batch, id, "the bundle refused the input: "+compact(errs), ev), nil
	}
	d := &Decision{File: name, Line: line, Batch: batch, ID: id}
	str := func(key string, dst *string) error {
		v, ok := r[key].(string)
		if !ok {
			return fmt.Errorf("result.%s is %s, want a string", key, kind(r[key]))
		}
		*dst = v
		return nil
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"profile", &d.Profile}, {"fixture", &d.Fixture}, {"lane", &d.Lane}, {"laneVersion", &d.LaneVersion},
		{"configuration", &d.Configuration}, {"stage", &d.Stage}} {
		if err := str(f.key, f.dst); err != nil {
			return fail("/result/"+f.key, "%v", err)
		}
	}
	n, err := positive(r["repetition"])
	if err != nil {
		return fail("/result/repetition", "result.repetition %v (a bundle older than this reader's logs no repetition: build it again with contractcheck bundle)", err)
	}
	d.Repetition = n
	if _, has := r["sourceSha256"]; has {
		if err := str("sourceSha256", &d.SourceSha256); err != nil {
			return fail("/result/sourceSha256", "%v", err)
		}
	}
	if v, has := r["record"]; has {
		m, ok := v.(map[string]any)
		file, fok := m["file"].(string)
		l, lerr := positive(m["line"])
		if !ok || !fok || lerr != nil || len(m) != 2 {
			return fail("/result/record", "result.record is %s, want {\"file\": string, \"line\": integer ≥ 1}", compact(v))
		}
		d.Record = &result.RecordRef{File: file, Line: l, Repetition: d.Repetition}
	}
	list, ok := r["results"].([]any)
	if !ok {
		return fail("/result/results", "result.results is %s, want an array", kind(r["results"]))
	}
	for i, x := range list {
		tr, err := taskResult(x)
		if err != nil {
			return fail(fmt.Sprintf("/result/results/%d", i), "result.results[%d]: %v", i, err)
		}
		d.Results = append(d.Results, tr)
	}
	return d, nil
}

// errorDecision is a decision that is an error, with the position members its logged input names
// as strings (an error has no result to echo them).
func errorDecision(name string, line int, batch bool, id, msg string, ev map[string]any) *Decision {
	d := &Decision{File: name, Line: line, Batch: batch, ID: id, Error: msg}
	in, _ := ev["input"].(map[string]any)
	for _, f := range []struct {
		key string
		dst *string
	}{{"fixture", &d.Fixture}, {"lane", &d.Lane}, {"laneVersion", &d.LaneVersion}, {"configuration", &d.Configuration}, {"stage", &d.Stage}} {
		*f.dst, _ = in[f.key].(string)
	}
	return d
}

// taskResult reads one task's result.
func taskResult(x any) (TaskResult, error) {
	m, ok := x.(map[string]any)
	if !ok {
		return TaskResult{}, fmt.Errorf("%s, want an object", kind(x))
	}
	var tr TaskResult
	if tr.Task, ok = m["task"].(string); !ok {
		return tr, fmt.Errorf("task is %s, want a string", kind(m["task"]))
	}
	if tr.Outcome, ok = m["outcome"].(string); !ok {
		return tr, fmt.Errorf("outcome is %s, want a string", kind(m["outcome"]))
	}
	switch tr.Outcome {
	case result.Pass, result.Unmet:
	case "instrument_failed":
		tr.Error, _ = m["error"].(string)
		return tr, nil
	default:
		return tr, fmt.Errorf("outcome %s is not pass, unmet or instrument_failed", strconv.Quote(tr.Outcome))
	}
	ds, ok := m["diagnostics"].([]any)
	if !ok {
		return tr, fmt.Errorf("diagnostics is %s, want an array", kind(m["diagnostics"]))
	}
	for i, d := range ds {
		dm, ok := d.(map[string]any)
		if !ok {
			return tr, fmt.Errorf("diagnostics[%d] is %s, want an object", i, kind(d))
		}
		// The values of the user's data are logged values (values.go): read back.
		for k, v := range dm {
			if plainMembers[k] {
				continue
			}
			x, err := readValue(v)
			if err != nil {
				return tr, fmt.Errorf("diagnostics[%d].%s %v", i, k, err)
			}
			dm[k] = x
		}
		tr.Diagnostics = append(tr.Diagnostics, dm)
	}
	if (tr.Outcome == result.Pass) != (len(ds) == 0) {
		return tr, fmt.Errorf("outcome %s with %d diagnostics (pass is exactly no diagnostics)", tr.Outcome, len(ds))
	}
	r, ok := m["readout"].(map[string]any)
	if _, quoted := r["json"]; !ok || !quoted {
		return tr, fmt.Errorf("readout is %s, want {\"json\": the readout's JSON text} %s", kind(m["readout"]), olderBundle)
	}
	x, err := readValue(r)
	if err != nil {
		return tr, fmt.Errorf("readout %v", err)
	}
	if tr.Readout, ok = x.(map[string]any); !ok {
		return tr, fmt.Errorf("readout holds %s, want an object", kind(x))
	}
	return tr, nil
}

// positive reads an integer ≥ 1.
func positive(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("is %s, want an integer ≥ 1", kind(v))
	}
	i, err := strconv.Atoi(n.String())
	if err != nil || i < 1 {
		return 0, fmt.Errorf("is %s, want an integer ≥ 1", n)
	}
	return i, nil
}

// kind names a JSON value's type for a message.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "absent or null"
	case string, json.Number, bool, []any, map[string]any:
		name := strictjson.TypeName(v)
		if strings.ContainsRune("aeiou", rune(name[0])) {
			return "an " + name
		}
		return "a " + name
	}
	return fmt.Sprintf("%T", v)
}

// compact is a JSON value as strict JSON text, cut at 200 bytes, for a message.
func compact(v any) string {
	b, err := strictjson.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
