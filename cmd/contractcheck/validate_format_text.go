package main

import (
	"fmt"
	"io"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/validate"
)

// validateText lists each valid source, "ok FILE (REVISION, KIND)", for a terminal or a CI log: a
// file name escape.Terminal, the lines through an escape.LogWriter. The invalid ones are the
// verb's to say, on stderr.
type validateText struct{}

// Output implements report.Formatter.
func (validateText) Output(w io.Writer, results []validate.Validated) error {
	lw := escape.NewLogWriter(w)
	for _, v := range results {
		if v.Err == nil {
			fmt.Fprintf(lw, "ok %s (%s, %s)\n", escape.Terminal(v.File), escape.Terminal(v.Revision), escape.Terminal(v.Kind))
		}
	}
	if err := lw.Flush(); err != nil {
		return fmt.Errorf("write the results: %w", err)
	}
	return nil
}
