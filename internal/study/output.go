package study

import (
	"io"

	"github.com/contractcheck/contractcheck/internal/report"
)

// Outputter writes a study report in one format.
type Outputter = report.Formatter[*Report]

// JSON writes the report as indented JSON with studyVersion 1 (Version); maps with sorted keys,
// so the same report gives the same bytes.
type JSON struct{}

// Output implements Outputter.
func (JSON) Output(w io.Writer, r *Report) error { return report.WriteJSON(w, r) }

var outputters = report.Registry[*Report]{
	"text":     report.Fixed[*Report](text),
	"markdown": report.Fixed[*Report](markdown),
	"json":     report.Fixed[*Report](JSON{}),
}

// Outputters returns the study report's formats: what study's --format offers.
func Outputters() report.Registry[*Report] { return outputters }
