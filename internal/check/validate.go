package check

import (
	"fmt"
	"os"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// Validated is one source that passed validation.
type Validated struct {
	File     string
	Revision string
	// Kind is "result", "result response" or "error response".
	Kind string
}

// Validate validates source files against the pinned MCP schema. With no files it validates every
// catalogued source of the contract set against the revision its catalog entry names; otherwise
// each file against revision (the default revision when empty). It stops at the first invalid
// source and returns its error: the file and the JSON pointer.
func Validate(opts Options, revision string, files []string) ([]Validated, error) {
	v, err := BuiltinValidator()
	if err != nil {
		return nil, err
	}
	var out []Validated
	if len(files) > 0 {
		if revision == "" {
			revision = schema.DefaultRevision
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return out, inputErr(err)
			}
			s, err := ParseSource(v, data, f, f, revision)
			if err != nil {
				return out, inputErr(err)
			}
			out = append(out, validated(s))
		}
		return out, nil
	}
	m, err := contract.Load(opts.ContractLayers())
	if err != nil {
		return nil, inputErr(fmt.Errorf("load contracts: %w", err))
	}
	for _, id := range contract.SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		if revision != "" && revision != f.Revision {
			delete(m.Fixtures, id)
		}
	}
	sources, err := LoadSources(v, m, opts.FixtureLayers())
	if err != nil {
		return nil, inputErr(err)
	}
	for _, id := range contract.SortedKeys(sources) {
		out = append(out, validated(sources[id]))
	}
	return out, nil
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
