// Package report is the last step of the pipeline (strict JSON → schema → contract → projector →
// policy → census → report): the output formats of the result model (internal/result), behind one
// small Outputter interface, one file each, and the views of the model they share (findings).
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package report

import "github.com/contractcheck/contractcheck/internal/result"

// Outputter writes a check report in one format.
type Outputter = Formatter[*result.Report]

// outputters are the check report's formats: adding one is a new file and a line here.
var outputters = Registry[*result.Report]{
	"text":     func(o Options) Outputter { return Text{Details: o.Details, Style: o.Style} },
	"json":     Fixed[*result.Report](JSON{}),
	"markdown": Fixed[*result.Report](Markdown{}),
	"junit":    func(o Options) Outputter { return JUnit{} },
	"github":   Fixed[*result.Report](GitHub{}),
	"sarif":    func(o Options) Outputter { return SARIF{ToolVersion: o.ToolVersion} },
	"tap":      Fixed[*result.Report](TAP{}),
	"table":    func(o Options) Outputter { return Table{All: o.Details, Style: o.Style} },
	"html":     func(o Options) Outputter { return HTML{Views: o.Views} },
}

// Outputters returns the check report's formats: what check's --format offers.
func Outputters() Registry[*result.Report] { return outputters }
