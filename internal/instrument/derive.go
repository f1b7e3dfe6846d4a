package instrument

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// A source no catalogue entry names.
//
// A fixtures layer may hold W0 results the contract model does not catalogue: a user's own MCP
// server's results, say. Each file sources/<suite>/<id>.json whose id the model does not name gets
// an entry derived from the source itself (docs/uncatalogued.md): the suite is its directory, the
// revision the run's (inputs.Options.Revision, else the pinned one), the family what it holds (project.Holds, the
// first of structured, error, rich, meta, content; a JSON-RPC error response is error-response),
// its decoder targets the whole structured value and each of its members (project.Targets), and its tasks those whose
// appliesTo selects it (the built-in tasks select derived entries by what they hold). A catalogue
// entry always wins: its source is read where the entry says.

// idPattern is what a fixture id and a suite name must be (contracts/model.cue: the fixtures' key
// pattern and #Name): a derived entry's id and suite are names like a catalogued one's.
var (
	idPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	suitePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
)

// familyOf is a derived entry's family: a JSON-RPC error response's is error-response, any other's
// the first of what it holds, or content.
func familyOf(s *schema.Source, holds []string) string {
	if s.RPCError != nil {
		return "error-response"
	}
	if len(holds) == 0 {
		return "content"
	}
	return holds[0]
}

// DeriveFixtures gives every source file of the fixture layers that no catalogue entry names an
// entry of m (Fixture.Derived) derived from the source, validated against revision (the pinned
// revision when "") and read through that revision's source binding (bindings, by revision:
// CompileBindings), and returns those sources by id. A source of a revision the model binds no
// source for is an error naming the file and the revision. A file whose name is no fixture id or whose
// directory is no suite name, a catalogued id whose source also lies in another suite's directory,
// and one id in two places are errors naming the files.
func DeriveFixtures(v *schema.Validator, m *contract.Model, bindings map[string]*project.Projector, layers []inputs.Dir, revision string) (map[string]*Source, error) {
	if revision == "" {
		revision = schema.DefaultRevision
	}
	if !v.HasRevision(revision) {
		return nil, fmt.Errorf("--revision: %w", v.UnknownRevision(revision))
	}
	files, err := Uncatalogued(m, layers)
	if err != nil {
		return nil, err
	}
	out := map[string]*Source{}
	for _, f := range files {
		id := f.ID
		s, err := f.Read(v, revision)
		if err != nil {
			return nil, err
		}
		bp, ok := bindings[revision]
		if !ok {
			return nil, fmt.Errorf("%s: fixture %s (no catalogue entry): %w", f.Display, id, m.NoBinding(revision))
		}
		view, err := bp.Read(s.Doc)
		if err != nil {
			return nil, fmt.Errorf("%s: fixture %s (no catalogue entry), revision %s: %w", f.Display, id, revision, err)
		}
		holds := project.Holds(view)
		m.Fixtures[id] = contract.Fixture{
			Suite: f.suite, Family: familyOf(s.Source, holds), Revision: revision, Tasks: []string{},
			Doc:     "Derived from " + f.Display + ": no catalogue entry names it.",
			Targets: project.Targets(view), Pos: f.Display, Derived: true, Holds: holds,
		}
		out[id] = s
	}
	return out, nil
}

// UncataloguedFile is a source file of a fixture layer that no catalogue entry names.
type UncataloguedFile struct {
	// ID is the fixture id its file name gives, Display the file as messages name it.
	ID, Display string
	layer       inputs.Dir
	rel         string // the path below the layer
	suite       string
}

// Read reads and validates the file's source against revision.
func (f UncataloguedFile) Read(v *schema.Validator, revision string) (*Source, error) {
	data, err := f.layer.ReadFile(f.rel, 0) // the file limit, the strict decoding's too
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Display, err)
	}
	s, err := parseSource(v, data, f.Display, f.ID, revision, false)
	if err != nil {
		return nil, fmt.Errorf("fixture %s (no catalogue entry): %w", f.ID, err)
	}
	return s, nil
}

// Uncatalogued lists the source files of the fixture layers that no catalogue entry of m names,
// by id. A file whose name is no fixture id or whose directory is no suite name, a catalogued id
// whose source also lies in another suite's directory, and one id in two places are errors naming
// the files.
func Uncatalogued(m *contract.Model, layers []inputs.Dir) ([]UncataloguedFile, error) {
	files := map[string][]UncataloguedFile{}
	for _, d := range layers {
		es, err := d.ReadDir("sources")
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			_, display := d.Path("sources")
			return nil, fmt.Errorf("%s: %w", display, err)
		}
		for _, e := range es {
			if !e.IsDir() {
				continue
			}
			suiteRel := "sources/" + e.Name()
			fes, err := d.ReadDir(suiteRel)
			if err != nil {
				_, suiteDisplay := d.Path(suiteRel)
				return nil, fmt.Errorf("%s: %w", suiteDisplay, err)
			}
			for _, fe := range fes {
				id, ok := strings.CutSuffix(fe.Name(), ".json")
				if !ok || fe.IsDir() {
					continue
				}
				rel := path.Join("sources", e.Name(), fe.Name())
				_, display := d.Path(rel)
				if f, catalogued := m.Fixtures[id]; catalogued {
					if f.Suite != e.Name() {
						return nil, fmt.Errorf("%s: fixture %s is catalogued in suite %s (%s): its source belongs under sources/%s/", display, id, f.Suite, f.Pos, f.Suite)
					}
					continue
				}
				if !idPattern.MatchString(id) {
					return nil, fmt.Errorf("%s: %q is not a fixture id (letters, digits, - and _, starting with a letter or digit)", display, id)
				}
				if !suitePattern.MatchString(e.Name()) {
					return nil, fmt.Errorf("%s: %q is not a suite name (lower-case letters, digits, ., - and _, starting with a letter or digit)", display, e.Name())
				}
				files[id] = append(files[id], UncataloguedFile{ID: id, layer: d, rel: rel, Display: display, suite: e.Name()})
			}
		}
	}
	var out []UncataloguedFile
	for _, id := range contract.SortedKeys(files) {
		at := files[id]
		if len(at) > 1 {
			return nil, fmt.Errorf("fixture %s: no catalogue entry, and two sources: %s and %s", id, at[0].Display, at[1].Display)
		}
		out = append(out, at[0])
	}
	return out, nil
}
