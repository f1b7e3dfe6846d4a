package challenge

import (
	"io"

	"github.com/contractcheck/contractcheck/internal/report"
)

// Outputter writes a challenge report in one format.
type Outputter = report.Formatter[*Report]

// outputters are the challenge report's formats, one file each (format_text.go, format_json.go):
// adding one is a new file and a line here.
var outputters = report.Registry[*Report]{
	"text": report.Fixed[*Report](Text{}),
	"json": report.Fixed[*Report](JSON{}),
}

// Outputters returns the challenge report's formats: what challenge's --format offers.
func Outputters() report.Registry[*Report] { return outputters }

// Write writes the report in a format ("" is text); an unknown one is a
// *report.UnknownFormatError.
func (r *Report) Write(w io.Writer, format string) error {
	if format == "" {
		format = "text"
	}
	return outputters.Write(w, format, report.Options{}, r)
}
