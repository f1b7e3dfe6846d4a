package main

import (
	"io"

	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/validate"
)

// validateJSON writes every source, valid or not, as one JSON document (report.WriteJSON: the
// file names and errors as they are):
//
//	{"sources": [{"file", "revision", "kind", "valid", "error"}, …], "valid": N, "invalid": N}
//
// kind is set for a valid source, error for an invalid one.
type validateJSON struct{}

// validatedJSON is one source in validate's JSON.
type validatedJSON struct {
	File     string `json:"file"`
	Revision string `json:"revision,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Valid    bool   `json:"valid"`
	Error    string `json:"error,omitempty"`
}

// Output implements report.Formatter.
func (validateJSON) Output(w io.Writer, results []validate.Validated) error {
	doc := struct {
		Sources []validatedJSON `json:"sources"`
		Valid   int             `json:"valid"`
		Invalid int             `json:"invalid"`
	}{Sources: []validatedJSON{}}
	for _, v := range results {
		s := validatedJSON{File: v.File, Revision: v.Revision, Kind: v.Kind, Valid: v.Err == nil}
		if v.Err != nil {
			s.Error = v.Err.Error()
			doc.Invalid++
		} else {
			doc.Valid++
		}
		doc.Sources = append(doc.Sources, s)
	}
	return report.WriteJSON(w, doc)
}
