package project

import "github.com/contractcheck/contractcheck/internal/bindpath"

// pointer is a parsed binding path (bindpath.Path): an RFC 6901 JSON pointer whose steps may
// select an array element by its members' values. A binding's paths are parsed once, when it is
// compiled.
type pointer = bindpath.Path

// parsePointer parses a binding path; "" is the whole value.
func parsePointer(s string) (pointer, error) { return bindpath.Parse(s) }

// look follows path through v. A selector that matches several elements reads as absent and its
// error is kept in *fail (the first one), when fail is not nil: Projector.Read returns it.
func look(path pointer, v any, fail *error) (any, bool) {
	if !path.HasSelector() {
		return path.Lookup(v)
	}
	out, ok, err := path.Read(v)
	if err != nil && fail != nil && *fail == nil {
		*fail = err
	}
	return out, ok
}
