package instrument

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	_ "embed"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
)

// The built-in fixtures' sources are validated against their MCP revisions when the binary is
// built (go generate writes builtin_sources.json; TestBuiltinSourcesAreCurrent validates every
// one and fails when the file is not current), not on every run: validating them needs the
// schemas of three MCP revisions compiled, most of what a check on a user's lane would otherwise
// spend before its first record. A source is taken as validated only when it is read from the
// built-in fixtures, at the revision and with the sha256 the file records; anything else (a
// user's source, a revision a user layer gave, other bytes) is validated at run time.

//go:generate go run ./gen

// BuiltinSourcesFile is the name of the list of validated built-in sources, in this directory.
const BuiltinSourcesFile = "builtin_sources.json"

//go:embed builtin_sources.json
var builtinSourcesJSON []byte

// ValidatedSource is what the list records of a built-in source validated at build time.
type ValidatedSource struct {
	Revision string `json:"revision"`
	Sha256   string `json:"sha256"`
}

var builtinSources = func() map[string]ValidatedSource {
	var m map[string]ValidatedSource
	if err := json.Unmarshal(builtinSourcesJSON, &m); err != nil {
		panic(fmt.Sprintf("%s: %v", BuiltinSourcesFile, err)) // embedded at build time; a test reads it too
	}
	return m
}()

// validatedAtBuild reports whether the built-in source of fixture id, at revision and with these
// bytes' sha256, is one the build validated.
func validatedAtBuild(id, revision, sha string) bool {
	s, ok := builtinSources[id]
	return ok && s.Revision == revision && s.Sha256 == sha
}

// ValidateBuiltinSources validates the source of every fixture of the built-in model, read from
// the built-in fixtures, and returns the list builtin_sources.json holds (encoded, sorted).
func ValidateBuiltinSources() ([]byte, error) {
	srcs, err := contract.ReadLayers([]inputs.Dir{inputs.BuiltinLayer("contracts")})
	if err != nil {
		return nil, err
	}
	m, err := contract.LoadCached(srcs, "")
	if err != nil {
		return nil, err
	}
	v, err := inputs.BuiltinValidator()
	if err != nil {
		return nil, err
	}
	d := inputs.BuiltinLayer("fixtures")
	out := map[string]ValidatedSource{}
	for _, id := range contract.SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		rel := "sources/" + f.Suite + "/" + id + ".json"
		_, display := d.Path(rel)
		data, err := d.ReadFile(rel, 0) // the file limit, the strict decoding's too
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // a fixture whose source a user layer must supply
			}
			return nil, fmt.Errorf("%s: %w", display, err)
		}
		s, err := ParseSource(v, data, display, id, f.Revision) // validates, whatever the list says
		if err != nil {
			return nil, err
		}
		out[id] = ValidatedSource{Revision: f.Revision, Sha256: s.Sha256}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
