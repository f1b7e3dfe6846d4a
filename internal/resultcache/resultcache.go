// Package resultcache keeps the output of a check for the re-run that changes nothing. A check is
// a pure function of the contractcheck build, its options and the bytes of its inputs (the
// sandboxed policies see no clock, network or environment), so its output can be replayed: the
// key is the sha256 of the build's identity, the options, and every file of every user layer the
// run reads (the built-in files are part of the build). A re-run with the same key writes the
// stored output and exits with the stored code without loading anything.
//
// Only runs that produced a report are stored; an input error or a failing instrument is never
// replayed. An entry that cannot be read is passed over.
package resultcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

// format names the entries' encoding and the key's recipe; it changes whenever either does.
const format = "contractcheck-result-v2"

// maxEntries bounds the entries kept: the oldest are removed beyond it.
const maxEntries = 64

// Entry is a stored run: its exit code, its verdict line (for stderr when the report goes to a
// file), the error its gate gave, if any, and the report it wrote, kept in a file of its own
// beside the entry and copied out when replayed (never held in memory).
type Entry struct {
	Format    string `json:"format"`
	Key       string `json:"key"`
	Exit      int    `json:"exit"`
	Stderr    string `json:"stderr,omitempty"`
	GateError string `json:"gateError,omitempty"`
	Size      int64  `json:"size"`
	Sha256    string `json:"sha256"`
	body      string // the report's file
}

// MaxReport bounds the reports kept: a larger one (the JSON report of a million bindings) is
// written as usual and not kept.
const MaxReport = 64 << 20

// Inputs is what a run reads: the layers of each kind (built-in ones are covered by the build's
// identity) and the observation directories or files.
type Inputs struct {
	// Dirs are the directories whose files the run may read, walked recursively.
	Dirs []layer.Dir
}

// Key hashes the build, the options (any JSON value: the flags that change the output) and every
// regular file below the inputs' user directories. ok is false when the build cannot be told
// apart from another (no executable to stat): such a run is not cached.
func Key(opts any, in Inputs) (key string, ok bool, err error) {
	h := sha256.New()
	fmt.Fprintln(h, format)
	id, ok := buildIdentity()
	if !ok {
		return "", false, nil
	}
	fmt.Fprintln(h, id)
	o, err := json.Marshal(opts)
	if err != nil {
		return "", false, fmt.Errorf("result cache: %w", err)
	}
	h.Write(o)
	h.Write([]byte{0})
	for _, d := range in.Dirs {
		if d.Builtin {
			fmt.Fprintf(h, "builtin %s\n", d.Display)
			continue
		}
		fmt.Fprintf(h, "dir %q\n", d.Display)
		if err := d.Hash(h, nil); err != nil {
			return "", false, nil // the run itself reports what is wrong with the directory
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true, nil
}

// buildIdentity tells this build from any other: the module and Go versions, the VCS stamp, and
// the executable's path, size and modification time (a rebuilt binary changes them).
func buildIdentity() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %d", exe, st.Size(), st.ModTime().UnixNano())
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(&b, " %s %s %s", bi.GoVersion, bi.Main.Version, bi.Main.Sum)
		for _, s := range bi.Settings {
			if strings.HasPrefix(s.Key, "vcs.") {
				fmt.Fprintf(&b, " %s=%s", s.Key, s.Value)
			}
		}
	}
	return b.String(), true
}

// Dir is where entries are kept below a cache directory.
func Dir(cacheDir string) string { return filepath.Join(cacheDir, "results") }

// Get returns the stored entry for key, if any: its metadata, and the report file checked
// against the size and sha256 the metadata gives.
func Get(cacheDir, key string) (*Entry, bool) {
	if cacheDir == "" || key == "" {
		return nil, false
	}
	data, err := safeio.ReadPath(filepath.Join(Dir(cacheDir), key+".json"), 1<<20)
	if err != nil {
		return nil, false
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil || e.Format != format || e.Key != key {
		return nil, false
	}
	e.body = filepath.Join(Dir(cacheDir), key+".report")
	f, err := safeio.OpenPath(e.body, MaxReport)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	sum, n, err := safeio.Sha256(f, MaxReport)
	if err != nil || n != e.Size || sum != e.Sha256 {
		return nil, false
	}
	return &e, true
}

// WriteTo copies the stored report to w.
func (e *Entry) WriteTo(w io.Writer) (int64, error) {
	f, err := safeio.OpenPath(e.body, MaxReport)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(w, f)
}

// Recorder keeps a copy of a report as it is written, for the cache. A nil Recorder records
// nothing.
type Recorder struct {
	dir, key string
	f        *os.File
	h        hash.Hash
	n        int64
	over     bool // the report passed MaxReport: it will not be kept
}

// Record starts keeping the report of a run with key (nil when there is no cache).
func Record(cacheDir, key string) *Recorder {
	if cacheDir == "" || key == "" {
		return nil
	}
	dir := Dir(cacheDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	f, err := os.CreateTemp(dir, "."+key+".report.tmp-*")
	if err != nil {
		return nil
	}
	return &Recorder{dir: dir, key: key, f: f, h: sha256.New()}
}

// Write keeps p, until the report passes MaxReport. It never fails: a copy that cannot be kept
// is dropped, and the report it copies is written all the same.
func (r *Recorder) Write(p []byte) (int, error) {
	if r == nil || r.over {
		return len(p), nil
	}
	r.n += int64(len(p))
	if r.n > MaxReport {
		r.over = true
		return len(p), nil
	}
	if _, err := r.f.Write(p); err != nil {
		r.over = true
		return len(p), nil
	}
	r.h.Write(p)
	return len(p), nil
}

// Commit stores the entry, the report first and its metadata last, so that an entry is found
// whole or not at all; then removes the oldest entries beyond the bound.
func (r *Recorder) Commit(exit int, stderr, gateError string) {
	if r == nil {
		return
	}
	tmp := r.f.Name()
	defer os.Remove(tmp)
	if err := r.f.Sync(); err != nil || r.over {
		r.f.Close()
		return
	}
	if err := r.f.Close(); err != nil {
		return
	}
	if err := os.Rename(tmp, filepath.Join(r.dir, r.key+".report")); err != nil {
		return
	}
	e := Entry{Format: format, Key: r.key, Exit: exit, Stderr: stderr, GateError: gateError, Size: r.n, Sha256: hex.EncodeToString(r.h.Sum(nil))}
	meta, err := json.Marshal(e)
	if err != nil {
		return
	}
	if err := safeio.WriteFile(filepath.Join(r.dir, r.key+".json"), func(w io.Writer) error {
		_, err := w.Write(meta)
		return err
	}); err != nil {
		return
	}
	prune(r.dir)
}

// Abort drops the copy.
func (r *Recorder) Abort() {
	if r == nil {
		return
	}
	r.f.Close()
	os.Remove(r.f.Name())
}

// prune removes the oldest entries beyond maxEntries.
func prune(dir string) {
	es, err := os.ReadDir(dir)
	if err != nil || len(es) <= maxEntries {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var all []aged
	for _, e := range es {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".json") {
			all = append(all, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod > all[j].mod })
	for _, a := range all[min(len(all), maxEntries):] {
		os.Remove(filepath.Join(dir, a.name))
		os.Remove(filepath.Join(dir, strings.TrimSuffix(a.name, ".json")+".report"))
	}
}
