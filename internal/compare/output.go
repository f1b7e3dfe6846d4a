package compare

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Outputter writes a compare report in one format.
type Outputter interface {
	Output(w io.Writer, r *Report) error
}

var outputters = map[string]Outputter{
	"text":     Text{},
	"json":     JSON{},
	"markdown": Markdown{},
}

// Formats lists the output formats, sorted.
func Formats() []string {
	out := make([]string, 0, len(outputters))
	for f := range outputters {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Get returns the outputter for a format.
func Get(format string) (Outputter, error) {
	o, ok := outputters[format]
	if !ok {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
	}
	return o, nil
}
