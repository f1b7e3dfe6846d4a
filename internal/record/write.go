package record

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/laneout"
	"github.com/contractcheck/contractcheck/internal/safeio"

	"github.com/contractcheck/contractcheck/internal/result"
)

// ManifestFile and LaneFile are the files a recording keeps beside its sources and records:
// what it recorded, and the lane definitions and profile generated from that.
const (
	ManifestFile = "record.json"
	LaneFile     = "record.cue"
)

// ProfileName is the profile record.cue defines: every recorded result reached the model.
const ProfileName = "record"

// manifest is record.json: every lane recorded into the directory.
type manifest struct {
	RecordVersion int                     `json:"recordVersion"`
	Lanes         map[string]laneout.Lane `json:"lanes"`
}

var generator = laneout.Generator{
	Tool: "record", Manifest: ManifestFile, File: LaneFile, Profile: ProfileName, Done: "Recorded",
	LaneDoc: func(provider string) string {
		return "Recorded with contractcheck record: the agent's real traffic between its MCP server and its " + provider + " provider. H4 is the provider request item that carries the tool result, read through the provider's generic binding; the other stages were not seen."
	},
	StageDoc:   "Not seen by contractcheck record (it sees the MCP server's result and the provider request).",
	ProfileDoc: "Every recorded result reached the model as the provider request carried it (written by contractcheck record; gate your own contracts with a profile of your own).",
	RequireDoc: "Each recorded lane's H4 was captured: judged pass or unmet, never execution_failed.",
	Judge:      "--fixtures DIR --observations DIR --contracts DIR --profile record",
}

// writer writes pairs into the output directory as they are found: each new source through a
// temporary file and a rename, each pair's records appended as whole lines, so that an
// interrupted recording leaves files check reads.
type writer struct {
	o        *Options
	man      *manifest
	recPath  string
	rec      *os.File
	reps     map[string]int // fixture → last repetition in the record file
	sources  map[string]bool
	provider fakeprovider.API // the lane's API, once known
	creds    *credentials
	note     func(string, ...any)
	stats    func(func(*Stats))

	mu     sync.Mutex
	failed error // a write failed: nothing more is written
	pairs  int
	bytes  int64
	limit  string
}

// openWriter checks the output directory (empty, absent, or an earlier recording's), reads the
// repetitions its record file holds, and opens the record file for appending.
func openWriter(o *Options, creds *credentials, note func(string, ...any), stats func(func(*Stats))) (*writer, error) {
	man, err := readManifest(o.Output)
	if err != nil {
		return nil, err
	}
	if err := safeio.CheckOutputDir(o.Output, nil); err != nil {
		return nil, result.Inputf("record: %v", err)
	}
	w := &writer{o: o, man: man, reps: map[string]int{}, sources: map[string]bool{}, creds: creds, note: note, stats: stats}
	rel := filepath.Join(o.Lane, o.Version, o.Configuration+".jsonl")
	w.recPath = filepath.Join(o.Output, rel)
	if old, err := os.ReadFile(w.recPath); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(old))
		sc.Buffer(nil, 256<<20)
		for sc.Scan() {
			var r struct {
				Fixture    string `json:"fixture"`
				Repetition int    `json:"repetition"`
			}
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, result.Inputf("record: %s: a line that is not a record: %v", w.recPath, err)
			}
			w.reps[r.Fixture] = max(w.reps[r.Fixture], r.Repetition)
		}
		if len(old) > 0 && old[len(old)-1] != '\n' {
			return nil, result.Inputf("record: %s: the last line is cut short (an earlier run ended mid-write?): refused", w.recPath)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("record: %w", err)
	}
	if l, ok := man.Lanes[o.Lane]; ok && l.Provider != "" {
		w.provider = fakeprovider.API(l.Provider)
	}
	if o.ProviderAPI != "" {
		if w.provider != "" && w.provider != o.ProviderAPI {
			return nil, result.Inputf("record: lane %s was recorded into %s with provider %s before, not %s: one lane has one H4 binding (use another --lane or --output)", o.Lane, o.Output, w.provider, o.ProviderAPI)
		}
		w.provider = o.ProviderAPI
	}
	if w.provider != "" {
		if err := w.writeLane(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// readManifest reads the output directory's record.json; a directory that does not exist, or is
// empty, has none; a non-empty directory without one is refused.
func readManifest(dir string) (*manifest, error) {
	m := &manifest{RecordVersion: 1, Lanes: map[string]laneout.Lane{}}
	found, err := generator.ReadManifest(dir, m)
	switch {
	case err != nil:
		return nil, result.Inputf("record: %v", err)
	case found && (m.RecordVersion != 1 || m.Lanes == nil):
		return nil, result.Inputf("record: %s: not a recording's manifest (recordVersion 1)", filepath.Join(dir, ManifestFile))
	}
	return m, nil
}

// writeLane creates the output's directories and writes record.json and record.cue with this
// recording's lane in them: at the first pair (or at the start with --provider-api), so that a
// recording that saw nothing writes nothing.
func (w *writer) writeLane() error {
	for _, d := range []string{filepath.Join(w.o.Output, "sources", w.o.Suite), filepath.Dir(w.recPath)} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			return fmt.Errorf("record: %w", err)
		}
	}
	l := w.man.Lanes[w.o.Lane]
	if l.Versions == nil {
		l.Versions = map[string][]string{}
	}
	l.Provider = string(w.provider)
	if !slices.Contains(l.Versions[w.o.Version], w.o.Configuration) {
		l.Versions[w.o.Version] = append(l.Versions[w.o.Version], w.o.Configuration)
		slices.Sort(l.Versions[w.o.Version])
	}
	w.man.Lanes[w.o.Lane] = l
	data, err := json.MarshalIndent(w.man, "", "  ")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	lf, err := generator.LaneFile(w.man.Lanes)
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{ManifestFile: append(data, '\n'), LaneFile: lf} {
		if err := safeio.WriteFile(filepath.Join(w.o.Output, name), func(out io.Writer) error { _, err := out.Write(b); return err }); err != nil {
			return fmt.Errorf("record: write %s: %w", filepath.Join(w.o.Output, name), err)
		}
	}
	return nil
}

// errStopped is returned by pair once recording has stopped.
var errStopped = errors.New("recording stopped")

// pair writes one pair: the source (after --redact) unless written already, and the records of
// its next repetition (H4 captured, the stages the lane does not see not_observable). For an
// item the engine could not pair with proof (res.ambiguous), H4 is ambiguous, without the item
// (a failed request included: which result it carried is unknown). When the provider request
// failed (res.failure), H4 is execution_failed with what failed and no carrier: the item was
// sent, but no answer shows the model received it. A pair that cannot be written safely is
// refused and counted; a write that fails stops the writer and is returned.
func (w *writer) pair(call mcpCall, res provResult) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	refuse := func(format string, args ...any) error {
		w.stats(func(s *Stats) { s.Refused++ })
		w.note("record: pair refused: "+format, args...)
		return nil
	}
	if w.failed != nil {
		return errStopped
	}
	if w.limit != "" {
		w.stats(func(s *Stats) { s.Refused++ })
		return nil
	}
	if w.provider == "" {
		w.provider = res.api
		if err := w.writeLane(); err != nil {
			w.failed = err
			return err
		}
	}
	if res.api != w.provider {
		return refuse("a %s request, but lane %s records %s (one lane has one H4 binding: record one provider API per lane)", res.api, w.o.Lane, w.provider)
	}
	source, err := call.source.bytes()
	if err != nil {
		return refuse("%v", err)
	}
	carrier, err := res.item.bytes()
	if err != nil {
		return refuse("%v", err)
	}
	src, item, applied, err := redact(w.o.redact, source, carrier)
	if err != nil {
		return refuse("%v", err)
	}
	sum := sha256.Sum256(src)
	sha := hex.EncodeToString(sum[:])
	id := "R" + sha[:12]
	var item2 bytes.Buffer
	if res.ambiguous == 0 {
		if err := json.Compact(&item2, item); err != nil {
			return refuse("the provider item is not JSON: %v", err)
		}
	}
	if cred := w.creds.find([]byte(res.failure)); cred != "" { // quoted upstream text is checked when quoted (recorder.quote): a second line
		return refuse("the provider's error message holds a credential of the traffic (%s): not written", cred)
	}
	rep := w.reps[id] + 1
	var lines []byte
	for _, st := range []string{"D1", "A2", "M3", "H4"} {
		r := laneout.Record{Position: result.Position{Fixture: id, Lane: w.o.Lane, LaneVersion: w.o.Version, Configuration: w.o.Configuration, Stage: st}, Repetition: rep, State: "not_observable", SourceSha256: sha, Origin: "captured", Redacted: applied}
		switch {
		case st != "H4":
		case res.ambiguous > 0:
			r.State = "ambiguous"
			r.Notes = fmt.Sprintf("a provider item of %s with these arguments reached the model, but it could carry any of at least %d distinct results seen (this one included): its content does not tell which (docs/record.md, Pairing)", call.name, res.ambiguous)
			if res.failure != "" {
				r.Notes += "; the provider request failed: " + res.failure
			}
		case res.failure != "":
			r.State, r.Error = "execution_failed", res.failure
		default:
			r.State, r.Carrier = "captured", item2.Bytes()
		}
		b, err := laneout.Encode(r)
		if err != nil {
			return refuse("encode: %v", err)
		}
		lines = append(lines, b...)
	}
	// The bytes that would be written, as they would be: a credential in any spelling refuses
	// the pair.
	if cred := w.creds.find(src, lines); cred != "" {
		return refuse("the result or the provider item holds a credential of the traffic (%s): not written", cred)
	}
	newSource := !w.sources[id]
	size := int64(len(lines))
	srcPath := filepath.Join(w.o.Output, "sources", w.o.Suite, id+".json")
	if newSource {
		if _, err := os.Lstat(srcPath); err == nil {
			newSource = false // an earlier recording wrote it: the same bytes, by its name
		}
	}
	if newSource {
		size += int64(len(src))
	}
	switch {
	case w.o.MaxRecords > 0 && w.pairs >= w.o.MaxRecords:
		w.limit = fmt.Sprintf("--max-records %d reached", w.o.MaxRecords)
	case w.o.MaxBytes > 0 && w.bytes+size > w.o.MaxBytes:
		w.limit = fmt.Sprintf("--max-bytes %d reached", w.o.MaxBytes)
	}
	if w.limit != "" {
		w.stats(func(s *Stats) { s.Refused++; s.Limit = w.limit })
		w.note("record: %s: recording stopped (the proxies keep forwarding; nothing more is written)", w.limit)
		return nil
	}
	if newSource {
		if err := writeWhole(srcPath, src); err != nil {
			w.failed = fmt.Errorf("record: write %s: %w", srcPath, err)
			return w.failed
		}
		w.stats(func(s *Stats) { s.Sources++ })
	}
	w.sources[id] = true
	if w.rec == nil {
		f, err := os.OpenFile(w.recPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			w.failed = fmt.Errorf("record: open %s: %w", w.recPath, err)
			return w.failed
		}
		w.rec = f
	}
	if _, err := w.rec.Write(lines); err != nil {
		w.failed = fmt.Errorf("record: write %s: %w", w.recPath, err)
		return w.failed
	}
	w.reps[id] = rep
	w.pairs++
	w.bytes += size
	w.stats(func(s *Stats) {
		switch {
		case res.ambiguous > 0:
			s.Ambiguous++
		case res.failure != "":
			s.Pairs++
			s.Failed++
		default:
			s.Pairs++
		}
		s.Bytes = w.bytes
	})
	return nil
}

// close closes the record file and has everything written reach the disk: one syncfs of the
// output's file system rather than a sync per file (10,000 sources, each synced, took the
// recorder 50 s, during which the proxies waited on its queue).
func (w *writer) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var err error
	if w.rec != nil {
		err = w.rec.Close()
		w.rec = nil
	}
	if err != nil {
		return fmt.Errorf("record: %s: %w", w.recPath, err)
	}
	if w.pairs == 0 {
		return nil
	}
	d, err := os.Open(w.o.Output)
	if err == nil {
		err = unix.Syncfs(int(d.Fd()))
		if cerr := d.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("record: sync %s: %w", w.o.Output, err)
	}
	return nil
}

// writeWhole writes data to path whole or not at all: a temporary file in the same directory,
// renamed over path once complete, so that an interrupted recording leaves no partial source.
// It is not synced here (close syncs the file system once); it takes four system calls, as a
// recording writes thousands of sources.
func writeWhole(path string, data []byte) (err error) {
	tmp := path + ".tmp-" + strconv.Itoa(os.Getpid())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
