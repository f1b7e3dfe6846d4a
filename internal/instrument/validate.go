package instrument

import (
	"context"
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Validated is one source validated: it passed when Err is nil.
type Validated struct {
	File     string
	Revision string
	// Kind is "result", "result response" or "error response" (empty when the source is invalid).
	Kind string
	// Err says why the source is invalid (the file and the JSON pointer, or line:col); nil when
	// it passed.
	Err error
}

// Validate validates source files against the MCP schema of a revision the schema layers hold
// (the built-in ones and opts.Schemas's, inputs.NewValidator). With no files it validates every
// catalogued source of the contract set against the revision its catalog entry names (only those
// of revision, when it is given), and every source of the fixture layers that no catalogue entry
// names against revision (the default revision when empty), as DeriveFixtures reads them for a
// check, all in fixture id order; otherwise
// each file against revision (the default revision when empty); the file "-" (inputs.StdinArg) is
// standard input, named "<stdin>". Every source is validated, a bad one does not stop the others:
// the results list each in order, and the error, an *InputError, says how many are invalid (nil
// when none is). An error that stops validation altogether (an unknown revision, contracts that
// do not load) returns no results.
func Validate(ctx context.Context, opts inputs.Options, revision string, files []string) ([]Validated, error) {
	v, err := inputs.NewValidator(opts.BuiltinFS(), opts.SchemaLayers(), !opts.NoBuiltin)
	if err != nil {
		return nil, inputErr(err) // inputs.NewValidator's error says "load schemas" already
	}
	if revision != "" && !v.HasRevision(revision) {
		return nil, inputErr(fmt.Errorf("--revision: %w", v.UnknownRevision(revision)))
	}
	var out []Validated
	if len(files) > 0 {
		if revision == "" {
			revision = schema.DefaultRevision
		}
		if n := countArg(files, inputs.StdinArg); n > 1 {
			return nil, inputErr(fmt.Errorf("%s is given %d times: standard input is read once", inputs.StdinArg, n))
		}
		for _, f := range files {
			s, err := validateFile(v, opts.Stdin, f, revision)
			if err != nil {
				out = append(out, Validated{File: displayArg(f), Revision: revision, Err: inputErr(err)})
				continue
			}
			out = append(out, validated(s))
		}
		return out, invalidCount(out)
	}
	m, err := loadContracts(ctx, opts.ContractLayers())
	if err != nil {
		return nil, inputErr(fmt.Errorf("load contracts: %w", err))
	}
	layers := opts.FixtureLayers()
	for _, d := range layers {
		if err := d.Check("--fixtures"); err != nil {
			return nil, inputErr(err)
		}
	}
	if err := CheckRevisions(v, m); err != nil {
		return nil, inputErr(fmt.Errorf("load contracts: %w", err))
	}
	// The sources no catalogue entry names are validated as check derives them (DeriveFixtures):
	// against --revision, else the pinned revision.
	derived, err := uncatalogued(m, layers)
	if err != nil {
		return nil, inputErr(err)
	}
	derivedRevision := revision
	if derivedRevision == "" {
		derivedRevision = schema.DefaultRevision
	}
	byID := map[string]Validated{}
	for id, f := range m.Fixtures {
		if revision != "" && revision != f.Revision {
			continue
		}
		s, err := loadFixtureSource(v, id, f, layers)
		if err != nil {
			byID[id] = Validated{File: "fixture " + id, Revision: f.Revision, Err: inputErr(err)}
			continue
		}
		byID[id] = validated(s)
	}
	for _, f := range derived {
		s, err := f.read(v, derivedRevision)
		if err != nil {
			byID[f.id] = Validated{File: f.display, Revision: derivedRevision, Err: inputErr(err)}
			continue
		}
		byID[f.id] = validated(s)
	}
	for _, id := range contract.SortedKeys(byID) {
		out = append(out, byID[id])
	}
	if len(out) == 0 {
		var where []string
		for _, d := range layers {
			_, display := d.Path("sources")
			where = append(where, display)
		}
		what := "no source to validate"
		if revision != "" {
			what = "--revision " + revision + ": no catalogued source has this revision"
		}
		return nil, inputErr(fmt.Errorf("%s, and no fixture layer holds a source without a catalogue entry (looked in %s): nothing to validate", what, strings.Join(where, ", ")))
	}
	return out, invalidCount(out)
}

// validateFile reads one source named on the command line (or standard input) and validates it.
func validateFile(v *schema.Validator, stdin *inputs.Stdin, f, revision string) (*Source, error) {
	if f != inputs.StdinArg {
		data, err := safeio.ReadPath(f, strictjson.DefaultLimits.MaxBytes)
		if err != nil {
			return nil, err
		}
		return ParseSource(v, data, f, f, revision)
	}
	if stdin == nil {
		return nil, fmt.Errorf("%s: standard input is not available to this command", inputs.StdinName)
	}
	data, err := stdin.Bytes()
	if err != nil {
		return nil, err
	}
	return ParseSource(v, data, inputs.StdinName, inputs.StdinName, revision)
}

func displayArg(f string) string {
	if f == inputs.StdinArg {
		return inputs.StdinName
	}
	return f
}

func countArg(args []string, a string) int {
	n := 0
	for _, x := range args {
		if x == a {
			n++
		}
	}
	return n
}

// invalidCount is the error of a validation with invalid sources: how many of how many.
func invalidCount(out []Validated) error {
	bad := 0
	for _, v := range out {
		if v.Err != nil {
			bad++
		}
	}
	if bad == 0 {
		return nil
	}
	return inputErr(fmt.Errorf("%d of %d sources are invalid", bad, len(out)))
}

func validated(s *Source) Validated {
	kind := "result"
	switch {
	case s.Envelope && s.Result == nil:
		kind = "error response"
	case s.Envelope:
		kind = "result response"
	}
	return Validated{File: s.File, Revision: s.Revision, Kind: kind}
}
