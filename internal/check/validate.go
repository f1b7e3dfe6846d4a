package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
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
	if revision != "" && !slices.Contains(schema.Revisions, revision) {
		return nil, inputErr(fmt.Errorf("--revision %s: unknown MCP revision (known: %s)", revision, strings.Join(schema.Revisions, ", ")))
	}
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
			data, err := safeio.ReadPath(f, strictjson.DefaultLimits.MaxBytes)
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
	m, err := loadContracts(context.Background(), opts.ContractLayers())
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
	if len(out) == 0 {
		return nil, inputErr(fmt.Errorf("--revision %s: no catalogued source has this revision: nothing to validate", revision))
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
