package report

import "io"

// JSON writes the report as indented JSON with reportVersion 1 (see WriteJSON).
type JSON struct{}

// Output implements Outputter.
func (JSON) Output(w io.Writer, r *Report) error { return WriteJSON(w, r) }
