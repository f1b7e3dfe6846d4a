package main

import (
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/validate"
)

// writeValidateText lists each valid source, "ok FILE (REVISION, KIND)", for a terminal or a CI
// log: a file name escape.Terminal, the lines through an escape.LogWriter (report.TextFormat). The
// invalid ones are the verb's to say, on stderr.
func writeValidateText(b *strings.Builder, results []validate.Validated) error {
	for _, v := range results {
		if v.Err == nil {
			fmt.Fprintf(b, "ok %s (%s, %s)\n", escape.Terminal(v.File), escape.Terminal(v.Revision), escape.Terminal(v.Kind))
		}
	}
	return nil
}
