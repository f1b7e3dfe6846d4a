// Package collect receives the decision logs a fleet of stock OPAs serving the contract set's
// bundle uploads (`contractcheck collect`): an HTTP service that speaks the upload API of OPA's
// decision-log plugin (decision_logs.service) as OPA v1.22 sends it — a POST of a gzip-compressed
// JSON array of events to the service's URL and the plugin's resource (default /logs), with the
// service's bearer token — validates every event of a batch as `check --decision-logs` reads it
// (internal/decisionlog, the contract set's positions, tasks and profile: check.ValidateDecision),
// and writes each valid batch, as posted, durably to a directory before it answers 2xx: a
// write-ahead log of batches that `check --decision-logs DIR` reads at any time, while collect runs.
//
// A batch is taken whole or refused whole, never half: one event that is not gzip, not JSON, of
// the wrong shape or on a fixture the contract set does not know refuses the batch with a 4xx
// status and a JSON body naming the event and the member at fault. OPA v1.22's plugin retries
// every upload that is not answered 2xx (it requeues the chunk and backs off up to
// max_delay_seconds), so a refused batch stays in that OPA's buffer and is posted again: a
// refusal that collect's own configuration causes (a --fixtures layer it was not given, another
// contract set, the body limit) is mended by restarting collect with the right flags, and the
// retried batch is then taken, nothing dropped. Failures of collect itself (the disk) are 5xx,
// retried the same way. docs/production.md ("A fleet of OPAs: collect") has the details.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package collect

import (
	"bytes"
	"compress/gzip"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// DefaultPath is the path OPA's decision-log plugin posts to when decision_logs.resource is not
// set (OPA v1.22 v1/plugins/logs/plugin.go, defaultResourcePath).
const DefaultPath = "/logs"

// StatusPath answers GET with the counters (Status) as JSON.
const StatusPath = "/status"

// MaxBody is the largest request body taken (gzip-compressed bytes), and MaxBatch the largest
// batch once decompressed: the decision-log reader's limit on a batch (strictjson's default), so
// that every batch collect takes, check --decision-logs reads. OPA cuts its uploads at
// decision_logs.reporting.upload_size_limit_bytes compressed bytes (default 32 KiB); a JSON
// event compresses about tenfold in a batch, so keep that limit at or below 1 MiB.
var (
	MaxBody  int64 = 16 << 20
	MaxBatch       = strictjson.DefaultLimits.MaxBytes
)

// Reasons a request is refused, as Status counts them and an error body names them.
const (
	ReasonUnauthorized   = "unauthorized"    // 401: no or a wrong bearer token
	ReasonMethod         = "method"          // 405: not a POST to the upload path (or a GET of the status)
	ReasonNotFound       = "not_found"       // 404: another path
	ReasonNotGzip        = "not_gzip"        // 415 without Content-Encoding: gzip; 400 a body that is not gzip
	ReasonTooLarge       = "too_large"       // 413: over MaxBody compressed or MaxBatch decompressed
	ReasonBody           = "body"            // 400: the body could not be read whole (the client went away)
	ReasonNotJSON        = "not_json"        // 400: not strict JSON, or not an array of events
	ReasonShape          = "shape"           // 422: an event the reader cannot take or that does not fit the contract set
	ReasonUnknownFixture = "unknown_fixture" // 422: a verdict on a fixture the contract set does not know
	ReasonStorage        = "storage"         // 500: the batch could not be written durably (OPA retries)
)

// reasons lists every reason, for Status.
var reasons = []string{ReasonUnauthorized, ReasonMethod, ReasonNotFound, ReasonNotGzip, ReasonTooLarge, ReasonBody, ReasonNotJSON, ReasonShape, ReasonUnknownFixture, ReasonStorage}

// Options configure a Collector.
type Options struct {
	// Dir is the directory the batches are written to (created if missing).
	Dir string
	// Census, when set, is a census directory (internal/censusdir) every batch taken is folded
	// into as well, a part per batch, durably before the answer: check --census reports on it at
	// any time (created if missing; a census collect wrote before is added to).
	Census string
	// Path is the upload path (DefaultPath when ""): the service URL's path and
	// decision_logs.resource, as OPA joins them.
	Path string
	// Token, when set, is the bearer token every request must carry (OPA's
	// services.<name>.credentials.bearer.token, or the content of its token_path).
	Token string
	// Now is the clock batch files are named by (time.Now when nil).
	Now func() time.Time
	// Log, when set, is told of every refusal, one line each (collect's standard error).
	Log io.Writer
	// MaxBody and MaxBatch bound a request's body (compressed) and its batch (decompressed):
	// the package's MaxBody and MaxBatch when 0.
	MaxBody, MaxBatch int64

	// midWrite, when set (tests), is called with the temporary file's path when half a batch is
	// written; checked, when set (tests), with each event's index once it is read and checked.
	midWrite func(tmp string)
	checked  func(event int)
}

// Collector is the upload service: an http.Handler.
type Collector struct {
	in    *instrument.Instrument
	opts  Options
	seq   atomic.Uint64
	slots chan struct{} // bounds the uploads decoded at once

	batches, decisions, events atomic.Int64
	mu                         sync.Mutex
	refused                    map[string]int64

	// census is the census the batches are folded into (Options.Census), nil when none; censusMu
	// orders its parts.
	census   *censusdir.Writer
	censusMu sync.Mutex

	// lock holds the directory's lock file, locked (flock) while the collector lives: two
	// collectors numbering batches in one directory would write over each other's.
	lock, censusLock *os.File
}

// lockName is the directory's lock file (a name the decision-log reader never reads).
const lockName = ".collect.lock"

// tmpPrefix begins the name a batch is written under before it is renamed: a name beginning with
// "." is one the decision-log reader never reads.
const tmpPrefix = ".collect-"

// New opens opts.Dir for the batches of the contract set in (instrument.Load with the bundle's
// input flags): the directory is created if missing, the temporary files of writes a crash cut
// short (never acknowledged) are removed, and numbering goes on after the highest batch there.
func New(in *instrument.Instrument, opts Options) (*Collector, error) {
	if opts.Path == "" {
		opts.Path = DefaultPath
	}
	if !strings.HasPrefix(opts.Path, "/") {
		return nil, fmt.Errorf("collect: the upload path %q does not begin with /", opts.Path)
	}
	if opts.Path == StatusPath {
		return nil, fmt.Errorf("collect: the upload path %q is the status path", opts.Path)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = MaxBody
	}
	if opts.MaxBatch <= 0 || opts.MaxBatch > MaxBatch {
		opts.MaxBatch = MaxBatch
	}
	if opts.Dir == "" {
		return nil, errors.New("collect: --dir is required")
	}
	if opts.Census != "" {
		if err := censusdir.CanOpen(opts.Census); err != nil { // before anything is written
			return nil, fmt.Errorf("collect --census: %w", err)
		}
	}
	if err := os.MkdirAll(opts.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("collect: --dir: %w", err)
	}
	entries, err := os.ReadDir(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("collect: --dir: %w", err)
	}
	c := &Collector{in: in, opts: opts, refused: map[string]int64{}, slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0))}
	if c.lock, err = lockDir(opts.Dir, "--dir"); err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			if err := os.Remove(filepath.Join(opts.Dir, name)); err != nil {
				c.Close()
				return nil, fmt.Errorf("collect: removing an unfinished write: %w", err)
			}
			continue
		}
		if seq, _, ok := decisionlog.ParseBatchFileName(name); ok && seq > c.seq.Load() {
			c.seq.Store(seq)
		}
	}
	if opts.Census != "" {
		// One collector writes to a census, as to a directory: it holds the census's lock too.
		if err := os.MkdirAll(opts.Census, 0o750); err != nil {
			c.Close()
			return nil, fmt.Errorf("collect --census: %w", err)
		}
		if c.censusLock, err = lockDir(opts.Census, "--census"); err != nil {
			c.Close()
			return nil, err
		}
		set, err := censusdir.SetOf(in.Options())
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("collect --census: %w", err)
		}
		if c.census, err = censusdir.Open(opts.Census, set); err != nil {
			c.Close()
			return nil, fmt.Errorf("collect --census: %w", err)
		}
	}
	return c, nil
}

// lockDir locks dir's lock file (flock) for this collector, or says another collect holds it.
func lockDir(dir, flag string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("collect: %s: %w", flag, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("collect: %s %s: another collect writes to it (%s is locked: %v): give each collector a directory of its own", flag, dir, lockName, err)
	}
	return f, nil
}

// Close releases the directory (and the census) for another collector: call it once no upload
// is in flight.
func (c *Collector) Close() error {
	var err error
	for _, l := range []**os.File{&c.lock, &c.censusLock} {
		if *l != nil {
			err = errors.Join(err, (*l).Close()) // closing the file releases its flock
			*l = nil
		}
	}
	return err
}

// Status is what GET /status answers, and what collect says when it stops.
type Status struct {
	// Dir is the batches' directory; LastBatch the sequence number of the last batch written
	// (before this run's too).
	Dir       string `json:"dir"`
	LastBatch uint64 `json:"lastBatch"`
	// Accepted counts the batches taken since collect started, the decisions of the bundle's
	// path they hold, and their other events (other paths, not decisions).
	Accepted struct {
		Batches   int64 `json:"batches"`
		Decisions int64 `json:"decisions"`
		Other     int64 `json:"otherEvents"`
	} `json:"accepted"`
	// Refused counts the requests refused since collect started, by reason (every reason, 0
	// included).
	Refused map[string]int64 `json:"refused"`
}

// Status is the counters now.
func (c *Collector) Status() Status {
	var s Status
	s.Dir, s.LastBatch = c.opts.Dir, c.seq.Load()
	s.Accepted.Batches, s.Accepted.Decisions, s.Accepted.Other = c.batches.Load(), c.decisions.Load(), c.events.Load()
	s.Refused = map[string]int64{}
	c.mu.Lock()
	for _, r := range reasons {
		s.Refused[r] = c.refused[r]
	}
	c.mu.Unlock()
	return s
}

// String says the counters in one line, for standard error.
func (s Status) String() string {
	var parts []string
	var total int64
	for _, r := range reasons {
		if n := s.Refused[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, n))
			total += n
		}
	}
	refused := "none refused"
	if total > 0 {
		refused = fmt.Sprintf("%d refused (%s)", total, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("accepted %d batches (%d decisions, %d other events); %s; last batch %d in %s",
		s.Accepted.Batches, s.Accepted.Decisions, s.Accepted.Other, refused, s.LastBatch, s.Dir)
}

// Refusal is the JSON body of a refused request: the reason, what is wrong, and for an event the
// batch's event (its place in the array, from 1), its decision id, the member at fault (a JSON
// pointer within the event) and the JSON pointer of that member in the batch ("/2/result/lane"
// for event 3's; "/2" for a syntax error inside event 3).
type Refusal struct {
	Reason   string `json:"reason"`
	Error    string `json:"error"`
	Event    int    `json:"event,omitempty"`
	Decision string `json:"decision_id,omitempty"`
	Member   string `json:"member,omitempty"`
	Pointer  string `json:"pointer,omitempty"`
}

// Accepted is the JSON body of a batch taken: its sequence number and file, and what it held.
type Accepted struct {
	Batch     uint64 `json:"batch"`
	File      string `json:"file,omitempty"`
	Decisions int    `json:"decisions"`
	Other     int    `json:"otherEvents"`
}

// ServeHTTP answers POST at the upload path (a batch) and GET /status.
func (c *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.opts.Token != "" && !c.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="contractcheck collect"`)
		c.refuse(w, r, http.StatusUnauthorized, &Refusal{Reason: ReasonUnauthorized, Error: "no bearer token, or not the one collect was given (--token-file)"})
		return
	}
	switch {
	case r.URL.Path == StatusPath && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, c.Status())
	case r.URL.Path == c.opts.Path && r.Method == http.MethodPost:
		c.upload(w, r)
	case r.URL.Path == c.opts.Path || r.URL.Path == StatusPath:
		w.Header().Set("Allow", map[bool]string{true: http.MethodGet, false: http.MethodPost}[r.URL.Path == StatusPath])
		c.refuse(w, r, http.StatusMethodNotAllowed, &Refusal{Reason: ReasonMethod, Error: fmt.Sprintf("%s %s: POST a batch to %s, GET %s", r.Method, r.URL.Path, c.opts.Path, StatusPath)})
	default:
		c.refuse(w, r, http.StatusNotFound, &Refusal{Reason: ReasonNotFound, Error: fmt.Sprintf("no such path %q: POST a batch to %s (decision_logs.resource), GET %s", r.URL.Path, c.opts.Path, StatusPath)})
	}
}

// authorized says whether r carries the bearer token, as OPA's bearer credentials send it
// ("Authorization: Bearer <token>", v1/plugins/rest/auth.go).
func (c *Collector) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(c.opts.Token)) == 1
}

// upload takes one batch: read, decompress and decode it event by event, validating each, then
// write it durably (and fold it into the census), then answer.
func (c *Collector) upload(w http.ResponseWriter, r *http.Request) {
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-r.Context().Done():
		return
	}
	if enc := r.Header.Get("Content-Encoding"); !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
		c.refuse(w, r, http.StatusUnsupportedMediaType, &Refusal{Reason: ReasonNotGzip,
			Error: fmt.Sprintf("Content-Encoding %q: a batch is posted gzip-compressed (Content-Encoding: gzip), as OPA's decision-log plugin posts it", enc)})
		return
	}
	body, err := readLimited(http.MaxBytesReader(w, r.Body, c.opts.MaxBody), c.opts.MaxBody)
	if err != nil {
		c.tooLargeOr(w, r, err, fmt.Sprintf("the body is over %d bytes (gzip-compressed): lower decision_logs.reporting.upload_size_limit_bytes", c.opts.MaxBody), ReasonBody, http.StatusBadRequest)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		c.refuse(w, r, http.StatusBadRequest, &Refusal{Reason: ReasonNotGzip, Error: "the body is not gzip: " + err.Error()})
		return
	}
	// The batch is read event by event as it is decompressed: a batch's memory is one event's
	// tree (and, for the census, its readings), never the whole array's. An event is checked
	// as it comes; after the first that does not fit, the rest is still read, so that a batch
	// that is also not gzip, not JSON or too large is refused for that, as when it was read
	// whole first.
	ar := strictjson.NewArrayReader("batch", &capped{r: zr, limit: c.opts.MaxBatch}, strictjson.DefaultLimits)
	var bad *decisionlog.Decision
	var fold folded
	var counts decisionlog.Counts
	var eventErr error
	events := 0
	for {
		i, ev, err := ar.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			c.refuseRead(w, r, err, i)
			return
		}
		events++
		if eventErr != nil {
			continue
		}
		eventErr = decisionlog.ReadEvent(r.Context(), "batch", i, ev, &counts, func(d *decisionlog.Decision) error {
			if c.census == nil {
				if err := check.ValidateDecision(c.in, d); err != nil {
					bad = d
					return err
				}
				return nil
			}
			rs, err := check.DecisionReadings(c.in, d)
			if err != nil {
				bad = d
				return err
			}
			fold.add(d, rs)
			return nil
		})
		if c.opts.checked != nil {
			c.opts.checked(i)
		}
	}
	if eventErr != nil {
		c.refuseEvent(w, r, eventErr, bad)
		return
	}
	others := events - counts.Decisions
	if events == 0 {
		writeJSON(w, http.StatusOK, &Accepted{})
		return
	}
	seq, name, err := c.write(body)
	if err == nil && c.census != nil {
		err = c.fold(seq, name, &fold)
	}
	if err != nil {
		c.refuse(w, r, http.StatusInternalServerError, &Refusal{Reason: ReasonStorage, Error: err.Error() + " (OPA posts the batch again)"})
		return
	}
	c.batches.Add(1)
	c.decisions.Add(int64(counts.Decisions))
	c.events.Add(int64(others))
	writeJSON(w, http.StatusOK, &Accepted{Batch: seq, File: name, Decisions: counts.Decisions, Other: others})
}

// folded is what a batch gives the census: the readings of its decisions, and its decisions that
// are errors, not verdicts; each placed where check --decision-logs over --dir places it once the
// batch's file is named (fold).
type folded struct {
	readings []result.Reading
	atBatch  []bool // the reading is placed in the batch (the decision names no record)
	errs     []result.DecisionError
	lines    []int // the event of each error
}

func (f *folded) add(d *decisionlog.Decision, rs []result.Reading) {
	if d.Error != "" {
		f.errs = append(f.errs, result.DecisionError{Decision: d.ID, Error: d.Error})
		f.lines = append(f.lines, d.Line)
		return
	}
	for _, r := range rs {
		f.readings = append(f.readings, r)
		f.atBatch = append(f.atBatch, d.Record == nil)
	}
}

// fold writes batch seq's readings to the census as a part of its own, durably. A reading the
// decision did not place at a record is placed at the batch's file and event, and an error at
// the batch's file, as check --decision-logs --dir places them, so that the report on the census
// is the report on the batches.
func (c *Collector) fold(seq uint64, name string, f *folded) error {
	file := filepath.Join(c.opts.Dir, name)
	for i := range f.readings {
		if f.atBatch[i] {
			f.readings[i].File = file
		}
	}
	for i := range f.errs {
		f.errs[i].At = fmt.Sprintf("%s: event %d", file, f.lines[i])
	}
	_, received, _ := decisionlog.ParseBatchFileName(name)
	enc, err := censusdir.EncodeBatch(f.readings, f.errs) // before the lock: uploads encode at once
	if err != nil {
		return fmt.Errorf("folding batch %d into the census: %w", seq, err)
	}
	c.censusMu.Lock()
	defer c.censusMu.Unlock()
	if err := c.census.AddEncoded(censusdir.Batch{Seq: seq, Received: received}, enc); err != nil {
		return fmt.Errorf("folding batch %d into the census: %w", seq, err)
	}
	return nil
}

// errTooLarge is readLimited's error for a stream over its limit.
var errTooLarge = errors.New("too large")

// readLimited reads r to its end, or fails with errTooLarge past limit bytes.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, err
}

// capped passes a decompressed batch on, failing with errTooLarge past limit bytes.
type capped struct {
	r        io.Reader
	n, limit int64
}

func (c *capped) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n += int64(n); c.n > c.limit {
		return n, errTooLarge
	}
	return n, err
}

// refuseRead refuses a batch the array reader failed on: too large decompressed (413), not
// gzip (a stream cut short or corrupt, 400), or not strict JSON or not an array (400, naming
// the event the fault lies in, when it lies in one).
func (c *Collector) refuseRead(w http.ResponseWriter, r *http.Request, err error, event int) {
	var se *strictjson.SyntaxError
	switch {
	case errors.Is(err, errTooLarge):
		c.refuse(w, r, http.StatusRequestEntityTooLarge, &Refusal{Reason: ReasonTooLarge,
			Error: fmt.Sprintf("the batch is over %d bytes decompressed: lower decision_logs.reporting.upload_size_limit_bytes", c.opts.MaxBatch)})
	case errors.Is(err, strictjson.ErrNotArray):
		c.refuse(w, r, http.StatusBadRequest, &Refusal{Reason: ReasonNotJSON, Error: "batch: not a JSON array of decision-log events"})
	case errors.As(err, &se):
		ref := &Refusal{Reason: ReasonNotJSON, Error: err.Error()}
		if event >= 0 {
			ref.Event, ref.Pointer = event+1, "/"+strconv.Itoa(event)
		}
		c.refuse(w, r, http.StatusBadRequest, ref)
	default:
		c.refuse(w, r, http.StatusBadRequest, &Refusal{Reason: ReasonNotGzip, Error: "reading the body: " + err.Error()})
	}
}

// tooLargeOr refuses a read that failed: too large (413), or what else went wrong.
func (c *Collector) tooLargeOr(w http.ResponseWriter, r *http.Request, err error, tooLarge, reason string, status int) {
	if errors.Is(err, errTooLarge) {
		c.refuse(w, r, http.StatusRequestEntityTooLarge, &Refusal{Reason: ReasonTooLarge, Error: tooLarge})
		return
	}
	c.refuse(w, r, status, &Refusal{Reason: reason, Error: "reading the body: " + err.Error()})
}

// refuseEvent refuses the batch for an event's error: 422, naming the event (bad, when the
// decision was read but does not fit the contract set) and the member.
func (c *Collector) refuseEvent(w http.ResponseWriter, r *http.Request, err error, bad *decisionlog.Decision) {
	ref := &Refusal{Reason: ReasonShape, Error: err.Error()}
	var ee *decisionlog.EventError
	var df *check.DecisionFault
	switch {
	case errors.As(err, &df):
		ref.Member = df.Member
		if df.UnknownFixture {
			ref.Reason = ReasonUnknownFixture
		}
		if bad != nil {
			ref.Event, ref.Decision = bad.Line, bad.ID
		}
	case errors.As(err, &ee):
		ref.Event, ref.Decision, ref.Member = ee.Line, ee.ID, ee.Member
	}
	if ref.Event > 0 {
		ref.Pointer = "/" + strconv.Itoa(ref.Event-1) + ref.Member
	}
	c.refuse(w, r, http.StatusUnprocessableEntity, ref)
}

// refuse counts the refusal, says it on the log, and answers it.
func (c *Collector) refuse(w http.ResponseWriter, r *http.Request, status int, ref *Refusal) {
	c.mu.Lock()
	c.refused[ref.Reason]++
	if c.opts.Log != nil {
		fmt.Fprintf(c.opts.Log, "collect: refused %s %s from %s: %d %s: %s\n", r.Method, escape.Terminal(strconv.Quote(r.URL.Path)),
			escape.Terminal(r.RemoteAddr), status, ref.Reason, escape.Terminal(ref.Error))
	}
	c.mu.Unlock()
	writeJSON(w, status, ref)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// write writes a batch as posted to a file of its own, durably, before it is acknowledged: to a
// temporary name (one the reader skips), fsync'd, closed, renamed to the batch's name, and the
// directory fsync'd, so that the name exists only for a whole batch and survives a crash once
// the answer is sent.
func (c *Collector) write(body []byte) (uint64, string, error) {
	seq := c.seq.Add(1)
	name := decisionlog.BatchFileName(seq, c.opts.Now())
	tmp := filepath.Join(c.opts.Dir, tmpPrefix+name)
	err := safeio.WriteDurably(c.opts.Dir, tmpPrefix+name, name, true, func(w io.Writer) error {
		half := len(body) / 2
		if _, err := w.Write(body[:half]); err != nil {
			return err
		}
		if c.opts.midWrite != nil {
			c.opts.midWrite(tmp)
		}
		_, err := w.Write(body[half:])
		return err
	})
	if se := (*safeio.SyncDirError)(nil); errors.As(err, &se) {
		return 0, "", fmt.Errorf("writing batch %d: syncing %s: %w", seq, c.opts.Dir, se.Err)
	}
	if err != nil {
		return 0, "", fmt.Errorf("writing batch %d: %w", seq, err)
	}
	return seq, name, nil
}

// Batches lists the batch files in dir in sequence order (their base names).
func Batches(dir string) ([]string, error) {
	return safeio.Names(dir, func(e os.DirEntry) bool {
		_, _, ok := decisionlog.ParseBatchFileName(e.Name())
		return ok
	})
}
