package contract

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the built-in model, evaluated when the binary is built
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Evaluating the CUE model is the slowest part of a check's start (a third of a second for the
// built-in layer), and its result depends on nothing but the .cue files. So the evaluated model is
// cached as JSON, keyed by the sha256 of the files: the built-in layer's model is computed when
// the binary is built (go generate, builtin_model.json) and embedded; a model with user layers is
// cached in the user's cache directory after its first evaluation. A cached model is a model
// that passed every check; its positions (where requirements and catalog entries are written) are
// kept, so messages read the same.
//
// A user layer's entry is keyed by what the files hold, not by where they are (contentKey: each
// file's layer, its name within the layer and its bytes): the same layer in another directory (a
// CI job's fresh checkout, a copy, a test's temporary directory) evaluates to the same model but
// for the file names in its positions, which the entry stores (Names) and which are rewritten to
// the files read now when it is used (rebase).

//go:generate go run ./gen

// cacheFormat names the cached model's encoding; it changes whenever that encoding, or a check a
// cached model has passed, does (v5: the layer guard, extraVersions), and is part of every key.
const cacheFormat = "contractcheck-model-v7"

// BuiltinModel is the built-in layer's evaluated model (see gen/), embedded.
//
//go:embed builtin_model.json
var BuiltinModel []byte

// cached is a model as it is stored: the model, the positions its JSON encoding leaves out, and
// the key it was evaluated for.
type cached struct {
	Format       string                     `json:"format"`
	Key          string                     `json:"key"`
	Model        *Model                     `json:"model"`
	Requirements map[string][]requirementAt `json:"requirements"`
	FixedBy      map[string][]requirementAt `json:"fixedBy"`
	Fixtures     map[string]string          `json:"fixtures"`
	// Tasks is where each task names its policy.
	Tasks map[string]string `json:"tasks"`
	// Carriers is where each lane stage's carrier schema is named: lane → stage → position.
	Carriers map[string]map[string]string `json:"carriers"`
	// Revisions is where each revision's source binding is written.
	Revisions map[string]string `json:"revisions"`
	// Names are the display names of the files the model was evaluated from, in order, in an
	// entry keyed by contentKey: the file part of every position above is one of them.
	Names []string `json:"names,omitempty"`
}

type requirementAt struct {
	Name string `json:"name"`
	Pos  string `json:"pos"`
}

// Key is the cache key of a set of sources: the sha256 of the cache format and of each file's
// layer, name and bytes, in order.
func Key(srcs []Source) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", cacheFormat)
	for _, s := range srcs {
		fmt.Fprintf(h, "%d %q %d\n", s.Layer, s.Name, len(s.Data))
		h.Write(s.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// contentKey is the key of a user layer's entry in the cache directory: the sha256 of the cache
// format and of each file's layer, name within its layer (a layer's files lie directly in its
// directory: the base name) and bytes, in order; where the layers are is left out.
func contentKey(srcs []Source) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s by content\n", cacheFormat)
	for _, s := range srcs {
		base := s.Name
		if i := strings.LastIndexAny(base, `/\`); i >= 0 {
			base = base[i+1:]
		}
		fmt.Fprintf(h, "%d %q %d\n", s.Layer, base, len(s.Data))
		h.Write(s.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Encode is the cached form of a model evaluated from sources with the key.
func Encode(m *Model, key string) ([]byte, error) {
	return encode(m, key, nil)
}

// encode is Encode, with the display names of the files in the entry when names is not nil.
func encode(m *Model, key string, names []string) ([]byte, error) {
	c := cached{Format: cacheFormat, Key: key, Model: m, Names: names, Requirements: map[string][]requirementAt{},
		FixedBy: map[string][]requirementAt{}, Fixtures: map[string]string{}, Tasks: map[string]string{}}
	for id, p := range m.Profiles {
		rs := make([]requirementAt, len(p.Require))
		for i, r := range p.Require {
			rs[i] = requirementAt{r.Name, r.Pos}
		}
		c.Requirements[id] = rs
		fs := make([]requirementAt, len(p.FixedBy))
		for i, f := range p.FixedBy {
			fs[i] = requirementAt{f.Name, f.Pos}
		}
		c.FixedBy[id] = fs
	}
	for id, f := range m.Fixtures {
		c.Fixtures[id] = f.Pos
	}
	for id, t := range m.Tasks {
		c.Tasks[id] = t.PolicyPos
	}
	c.Revisions = map[string]string{}
	for id, r := range m.Revisions {
		c.Revisions[id] = r.SourcePos
	}
	c.Carriers = map[string]map[string]string{}
	for id, l := range m.Lanes {
		for st, sd := range l.Stages {
			if sd.CarrierPos != "" {
				if c.Carriers[id] == nil {
					c.Carriers[id] = map[string]string{}
				}
				c.Carriers[id][st] = sd.CarrierPos
			}
		}
	}
	b, err := strictjson.EncodeLine(c)
	if err != nil {
		return nil, fmt.Errorf("encode the contract model: %w", err)
	}
	return b, nil
}

// headedFor reports whether data starts as Encode writes a model for key: the format, then the
// key. It is true of every encoding decode accepts for key that Encode wrote, as the generated
// BuiltinModel is (TestBuiltinModelIsCurrent).
func headedFor(data []byte, key string) bool {
	const head = `{"format":"` + cacheFormat + `","key":"`
	return len(data) > len(head)+len(key) && string(data[:len(head)]) == head &&
		string(data[len(head):len(head)+len(key)]) == key && data[len(head)+len(key)] == '"'
}

// decode reads a cached model, and reports false unless it is one for key.
func decode(data []byte, key string) (*Model, bool) {
	return decodeFor(data, key, nil)
}

// decodeFor is decode for the files srcs, when not nil: the entry's positions name srcs's files
// in place of the ones it was evaluated from (its Names, one for each of srcs, rebase).
func decodeFor(data []byte, key string, srcs []Source) (*Model, bool) {
	var c cached
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.Format != cacheFormat || c.Key != key || c.Model == nil {
		return nil, false
	}
	if srcs != nil && !c.rebase(srcs) {
		return nil, false
	}
	m := c.Model
	for id, p := range m.Profiles {
		at := c.Requirements[id]
		if len(at) != len(p.Require) {
			return nil, false
		}
		for i := range p.Require {
			p.Require[i].Name, p.Require[i].Pos = at[i].Name, at[i].Pos
		}
		fat := c.FixedBy[id]
		if len(fat) != len(p.FixedBy) {
			return nil, false
		}
		for i := range p.FixedBy {
			p.FixedBy[i].Name, p.FixedBy[i].Pos = fat[i].Name, fat[i].Pos
		}
	}
	for id, f := range m.Fixtures {
		f.Pos = c.Fixtures[id]
		m.Fixtures[id] = f
	}
	for id, t := range m.Tasks {
		t.PolicyPos = c.Tasks[id]
		m.Tasks[id] = t
	}
	for id, r := range m.Revisions {
		r.SourcePos = c.Revisions[id]
		m.Revisions[id] = r
	}
	for id, stages := range c.Carriers {
		l, ok := m.Lanes[id]
		if !ok {
			return nil, false
		}
		for st, pos := range stages {
			sd, ok := l.Stages[st]
			if !ok {
				return nil, false
			}
			sd.CarrierPos = pos
			l.Stages[st] = sd
		}
	}
	return m, true
}

// rebase rewrites the file part of each of the entry's positions from the name the file had when
// it was evaluated (Names) to the name of the same file in srcs, and reports false when the entry
// does not name one file for each of srcs.
func (c *cached) rebase(srcs []Source) bool {
	if len(c.Names) != len(srcs) {
		return false
	}
	to := make(map[string]string, len(srcs))
	for i, s := range srcs {
		to[c.Names[i]] = s.Name
	}
	at := func(pos string) string {
		// "file:line:col": the file is the longest name of the entry pos starts with.
		best := ""
		for from := range to {
			if len(from) > len(best) && strings.HasPrefix(pos, from+":") {
				best = from
			}
		}
		if best == "" {
			return pos // a position outside the layers (CUE's own), or none
		}
		return to[best] + pos[len(best):]
	}
	for _, rs := range [](map[string][]requirementAt){c.Requirements, c.FixedBy} {
		for _, list := range rs {
			for i := range list {
				list[i].Pos = at(list[i].Pos)
			}
		}
	}
	for _, m := range []map[string]string{c.Fixtures, c.Tasks, c.Revisions} {
		for k, pos := range m {
			m[k] = at(pos)
		}
	}
	for _, stages := range c.Carriers {
		for st, pos := range stages {
			stages[st] = at(pos)
		}
	}
	return true
}

// CacheDir is where models with user layers are cached: $CONTRACTCHECK_CACHE, else
// contractcheck/ under the user's cache directory. CONTRACTCHECK_CACHE=off turns caching off
// (the built-in model, evaluated at build time, is used all the same).
func CacheDir() string {
	switch v := os.Getenv("CONTRACTCHECK_CACHE"); v {
	case "off":
		return ""
	case "":
		d, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(d, "contractcheck")
	default:
		return v
	}
}

// LoadCached is Load with the evaluated model cached: the sources are read and hashed; the
// built-in model embedded at build time, or a model cached in dir (when not ""), is used when its
// key matches; otherwise the sources are evaluated and, when dir is set, the model is cached
// there. A cache that cannot be read or written is passed over: it never changes a result.
func LoadCached(srcs []Source, dir string) (*Model, error) {
	key := Key(srcs)
	// Decoding the built-in model costs milliseconds and megabytes; with a user layer the key
	// never matches, so its header is compared first.
	if headedFor(BuiltinModel, key) {
		if m, ok := decode(BuiltinModel, key); ok {
			return m, nil
		}
	}
	path, ckey := "", contentKey(srcs)
	if dir != "" {
		path = filepath.Join(dir, "models", ckey+".json")
		if data, err := safeio.ReadPath(path, safeio.MaxFileBytes); err == nil {
			if m, ok := decodeFor(data, ckey, srcs); ok {
				return m, nil
			}
		}
	}
	m, err := Evaluate(srcs)
	if err != nil || path == "" {
		return m, err
	}
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.Name
	}
	if data, err := encode(m, ckey, names); err == nil {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			_ = safeio.WriteFile(path, func(w io.Writer) error {
				_, err := w.Write(data)
				return err
			})
		}
	}
	return m, nil
}
