package compare

import (
	"io"

	"github.com/contractcheck/contractcheck/internal/report"
)

// JSON writes the report as indented JSON with compareVersion 4 (Version). Maps are written with
// sorted keys and numbers verbatim (json.Number), so the same report gives the same bytes.
type JSON struct{}

// Output implements Outputter.
func (JSON) Output(w io.Writer, r *Report) error { return report.WriteJSON(w, r) }
