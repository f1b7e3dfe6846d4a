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
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

// format names the entries' encoding and the key's recipe; it changes whenever either does.
const format = "contractcheck-result-v1"

// maxEntries bounds the entries kept: the oldest are removed beyond it.
const maxEntries = 64

// Entry is a stored run: its exit code, what it wrote as the report, its verdict line (for stderr
// when the report goes to a file) and the error its gate gave, if any.
type Entry struct {
	Format    string `json:"format"`
	Key       string `json:"key"`
	Exit      int    `json:"exit"`
	Report    []byte `json:"-"` // stored after the JSON header line, as written
	Stderr    string `json:"stderr,omitempty"`
	GateError string `json:"gateError,omitempty"`
}

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
		var files []string
		err := fs.WalkDir(d.FS, d.Root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return "", false, nil // the run itself reports what is wrong with the directory
		}
		sort.Strings(files)
		for _, p := range files {
			data, err := safeio.ReadFile(d.FS, p, safeio.MaxFileBytes)
			if err != nil {
				return "", false, nil
			}
			fmt.Fprintf(h, "file %q ", p)
			var n [8]byte
			binary.BigEndian.PutUint64(n[:], uint64(len(data)))
			h.Write(n[:])
			h.Write(data)
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

// Get returns the stored entry for key, if any. An entry is a JSON header line followed by the
// report's bytes as written.
func Get(cacheDir, key string) (*Entry, bool) {
	if cacheDir == "" {
		return nil, false
	}
	data, err := safeio.ReadPath(filepath.Join(Dir(cacheDir), key+".json"), 1<<30)
	if err != nil {
		return nil, false
	}
	header, body, found := bytes.Cut(data, []byte("\n"))
	var e Entry
	if err := json.Unmarshal(header, &e); err != nil || !found || e.Format != format || e.Key != key {
		return nil, false
	}
	e.Report = body
	return &e, true
}

// Put stores an entry, whole or not at all, and removes the oldest entries beyond the bound.
// Failing to store is not an error of the run.
func Put(cacheDir string, e Entry) {
	if cacheDir == "" {
		return
	}
	e.Format = format
	dir := Dir(cacheDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	header, err := json.Marshal(e)
	if err != nil {
		return
	}
	if err := safeio.WriteFile(filepath.Join(dir, e.Key+".json"), func(w io.Writer) error {
		if _, err := w.Write(append(header, '\n')); err != nil {
			return err
		}
		_, err := io.Copy(w, bytes.NewReader(e.Report))
		return err
	}); err != nil {
		return
	}
	prune(dir)
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
	}
}
