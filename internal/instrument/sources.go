package instrument

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// CheckRevisions reports every catalogue entry of m whose revision no schema layer of v holds, at
// the entry's position.
func CheckRevisions(v *schema.Validator, m *contract.Model) error {
	var errs []string
	for _, id := range contract.SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		if !v.HasRevision(f.Revision) {
			errs = append(errs, fmt.Sprintf("%sfixture %s: %v", prefix(f.Pos), id, v.UnknownRevision(f.Revision)))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// Source is a validated W0 result: its bytes' hash and the validated document.
type Source struct {
	ID     string
	File   string
	Sha256 string
	Data   []byte // the bytes as read
	Doc    any
	*schema.Source
}

// LoadSources reads and validates the source of every fixture of m: fixture id of suite s is the
// file sources/s/id.json of exactly one fixture layer. The sources of known (DeriveFixtures's) are
// taken as they are.
func LoadSources(v *schema.Validator, m *contract.Model, layers []inputs.Dir, known map[string]*Source) (map[string]*Source, error) {
	for _, d := range layers {
		if err := d.Check("--fixtures"); err != nil {
			return nil, err
		}
	}
	out := map[string]*Source{}
	for _, id := range contract.SortedKeys(m.Fixtures) {
		if s, ok := known[id]; ok {
			out[id] = s
			continue
		}
		s, err := LoadFixtureSource(v, id, m.Fixtures[id], layers)
		if err != nil {
			return nil, err
		}
		out[id] = s
	}
	return out, nil
}

// LoadFixtureSource reads and validates the source of one catalogued fixture: the file
// sources/<suite>/<id>.json of exactly one fixture layer.
func LoadFixtureSource(v *schema.Validator, id string, f contract.Fixture, layers []inputs.Dir) (*Source, error) {
	rel := "sources/" + f.Suite + "/" + id + ".json"
	var at []inputs.Dir
	for _, d := range layers {
		switch _, err := d.Stat(rel); {
		case err == nil:
			at = append(at, d)
		case !errors.Is(err, fs.ErrNotExist):
			_, display := d.Path(rel)
			return nil, fmt.Errorf("fixture %s: %s: %w", id, display, err)
		}
	}
	switch len(at) {
	case 0:
		var where []string
		for _, d := range layers {
			_, display := d.Path(rel)
			where = append(where, display)
		}
		return nil, fmt.Errorf("%sfixture %s: no source file (looked for %s)", prefix(f.Pos), id, strings.Join(where, ", "))
	case 1:
	default:
		_, a := at[0].Path(rel)
		_, b := at[1].Path(rel)
		return nil, fmt.Errorf("fixture %s: source defined by two fixture layers: %s and %s", id, a, b)
	}
	_, display := at[0].Path(rel)
	data, err := at[0].ReadFile(rel, 0) // the file limit, the strict decoding's too
	if err != nil {
		return nil, fmt.Errorf("fixture %s: %s: %w", id, display, err)
	}
	s, err := parseSource(v, data, display, id, f.Revision, at[0].Builtin)
	if err != nil {
		return nil, fmt.Errorf("fixture %s: %w", id, err)
	}
	return s, nil
}

func prefix(pos string) string {
	if pos == "" {
		return ""
	}
	return pos + ": "
}

// blockKinds lists, per fixture, the kinds of the content blocks of its W0 result as its
// revision's binding reads them (its source view), sorted: what a task's appliesTo.blockKinds
// selects on.
func blockKinds(views map[string]project.View) map[string][]string {
	out := map[string][]string{}
	for id, v := range views {
		out[id] = viewKinds(v)
	}
	return out
}

// viewKinds lists the kinds of a view's content blocks, sorted.
func viewKinds(v project.View) []string {
	var kinds []string
	items, _ := v["content"].([]any)
	for _, it := range items {
		obj, _ := it.(map[string]any)
		if k, ok := obj["kind"].(string); ok && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// ParseSource decodes, validates and hashes the bytes of one source (schema.Validator.ReadSource).
func ParseSource(v *schema.Validator, data []byte, display, id, revision string) (*Source, error) {
	return parseSource(v, data, display, id, revision, false)
}

// parseSource is ParseSource for bytes read from a built-in fixture layer when builtin is set:
// those the build validated (builtin_sources.go) are not validated again.
func parseSource(v *schema.Validator, data []byte, display, id, revision string, builtin bool) (*Source, error) {
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	known := builtin && v.BuiltinSchema(revision) && validatedAtBuild(id, revision, sha)
	doc, s, err := v.ReadSource(display, revision, data, known)
	if err != nil {
		return nil, err
	}
	return &Source{ID: id, File: display, Sha256: sha, Data: data, Doc: doc, Source: s}, nil
}
