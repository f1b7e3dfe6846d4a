// Package validate is the body of `contractcheck validate`: it validates W0 results (the
// fixtures' sources, or files named on the command line) against the MCP schema of a revision the
// schema layers hold, as check reads them (internal/instrument), each source on its own, so that
// one bad source does not hide the others. cmd/contractcheck/validate.go binds the flags and
// writes the results.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package validate

import (
	"context"
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
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
// names against revision (the default revision when empty), as instrument.DeriveFixtures reads them for a
// check, all in fixture id order; otherwise
// each file against revision (the default revision when empty); the file "-" (inputs.StdinArg) is
// standard input, named "<stdin>". Every source is validated, a bad one does not stop the others:
// the results list each in order, and the error, a *result.InputError, says how many are invalid (nil
// when none is). An error that stops validation altogether (an unknown revision, contracts that
// do not load) returns no results.
func Validate(ctx context.Context, opts inputs.Options, revision string, files []string) ([]Validated, error) {
	v, err := inputs.NewValidator(opts.BuiltinFS(), opts.SchemaLayers(), !opts.NoBuiltin)
	if err != nil {
		return nil, result.AsInput(err) // inputs.NewValidator's error says "load schemas" already
	}
	if revision != "" && !v.HasRevision(revision) {
		return nil, result.AsInput(fmt.Errorf("--revision: %w", v.UnknownRevision(revision)))
	}
	var out []Validated
	if len(files) > 0 {
		if revision == "" {
			revision = schema.DefaultRevision
		}
		if n := countArg(files, inputs.StdinArg); n > 1 {
			return nil, result.AsInput(fmt.Errorf("%s is given %d times: standard input is read once", inputs.StdinArg, n))
		}
		for _, f := range files {
			s, err := validateFile(v, opts.Stdin, f, revision)
			if err != nil {
				out = append(out, Validated{File: displayArg(f), Revision: revision, Err: result.AsInput(err)})
				continue
			}
			out = append(out, validated(s))
		}
		return out, invalidCount(out)
	}
	m, err := contract.LoadLimited(ctx, opts.ContractLayers())
	if err != nil {
		return nil, result.AsInput(fmt.Errorf("load contracts: %w", err))
	}
	layers := opts.FixtureLayers()
	for _, d := range layers {
		if err := d.Check("--fixtures"); err != nil {
			return nil, result.AsInput(err)
		}
	}
	if err := instrument.CheckRevisions(v, m); err != nil {
		return nil, result.AsInput(fmt.Errorf("load contracts: %w", err))
	}
	// The sources no catalogue entry names are validated as check derives them (instrument.DeriveFixtures):
	// against --revision, else the pinned revision.
	derived, err := instrument.Uncatalogued(m, layers)
	if err != nil {
		return nil, result.AsInput(err)
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
		s, err := instrument.LoadFixtureSource(v, id, f, layers)
		if err != nil {
			byID[id] = Validated{File: "fixture " + id, Revision: f.Revision, Err: result.AsInput(err)}
			continue
		}
		byID[id] = validated(s)
	}
	for _, f := range derived {
		s, err := f.Read(v, derivedRevision)
		if err != nil {
			byID[f.ID] = Validated{File: f.Display, Revision: derivedRevision, Err: result.AsInput(err)}
			continue
		}
		byID[f.ID] = validated(s)
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
		return nil, result.AsInput(fmt.Errorf("%s, and no fixture layer holds a source without a catalogue entry (looked in %s): nothing to validate", what, strings.Join(where, ", ")))
	}
	return out, invalidCount(out)
}

// validateFile reads one source named on the command line (or standard input) and validates it.
func validateFile(v *schema.Validator, stdin *inputs.Stdin, f, revision string) (*instrument.Source, error) {
	if f != inputs.StdinArg {
		data, err := safeio.ReadPath(f, strictjson.DefaultLimits.MaxBytes)
		if err != nil {
			return nil, err
		}
		return instrument.ParseSource(v, data, f, f, revision)
	}
	if stdin == nil {
		return nil, fmt.Errorf("%s: standard input is not available to this command", inputs.StdinName)
	}
	data, err := stdin.Bytes()
	if err != nil {
		return nil, err
	}
	return instrument.ParseSource(v, data, inputs.StdinName, inputs.StdinName, revision)
}

// displayArg is a file argument as messages name it: standard input as inputs.StdinName.
func displayArg(f string) string {
	if f == inputs.StdinArg {
		return inputs.StdinName
	}
	return f
}

// countArg is how many times a is among args.
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
	return result.AsInput(fmt.Errorf("%d of %d sources are invalid", bad, len(out)))
}

// validated is a source that passed, with its kind.
func validated(s *instrument.Source) Validated {
	kind := "result"
	switch {
	case s.Envelope && s.Result == nil:
		kind = "error response"
	case s.Envelope:
		kind = "result response"
	}
	return Validated{File: s.File, Revision: s.Revision, Kind: kind}
}
