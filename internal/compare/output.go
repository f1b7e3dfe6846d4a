package compare

import "github.com/contractcheck/contractcheck/internal/report"

// Outputter writes a compare report in one format.
type Outputter = report.Formatter[*Report]

var outputters = report.Registry[*Report]{
	"text": func(o report.Options) Outputter { return Text{Details: o.Details} },
	// json: the report as indented JSON with compareVersion (Version); maps with sorted keys and
	// numbers verbatim (json.Number), so the same report gives the same bytes.
	"json":     report.Fixed[*Report](report.JSONFormat[*Report]{}),
	"markdown": report.Fixed[*Report](Markdown{}),
	"html":     report.Fixed[*Report](HTML{}),
}

// Outputters returns the compare report's formats: what compare's --format offers.
func Outputters() report.Registry[*Report] { return outputters }
