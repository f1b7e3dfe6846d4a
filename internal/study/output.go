package study

import (
	"github.com/contractcheck/contractcheck/internal/report"
)

// Outputter writes a study report in one format.
type Outputter = report.Formatter[*Report]

var outputters = report.Registry[*Report]{
	"text":     report.Fixed[*Report](text),
	"markdown": report.Fixed[*Report](markdown),
	// json: the report as indented JSON with studyVersion (Version); maps with sorted keys, so
	// the same report gives the same bytes.
	"json": report.Fixed[*Report](report.JSONFormat[*Report]{}),
}

// Outputters returns the study report's formats: what study's --format offers.
func Outputters() report.Registry[*Report] { return outputters }
