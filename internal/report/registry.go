package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Formatter writes one kind of report (check, compare, …) in one format.
type Formatter[R any] interface {
	Output(w io.Writer, r R) error
}

// Registry holds the formats of one kind of report by name: adding a format is one new file and
// one entry.
type Registry[R any] map[string]Formatter[R]

// Names lists the formats, sorted; it also feeds a --format flag's help.
func (g Registry[R]) Names() []string {
	out := make([]string, 0, len(g))
	for f := range g {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Get returns the formatter for a format name.
func (g Registry[R]) Get(format string) (Formatter[R], error) {
	o, ok := g[format]
	if !ok {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(g.Names(), ", "))
	}
	return o, nil
}

// WriteJSON writes v as indented JSON without HTML escaping: maps come out with sorted keys and
// json.Number values verbatim, so the same report always gives the same bytes. Every report's
// JSON format writes through it.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
