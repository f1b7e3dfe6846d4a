// Package doctable keeps a generated table in a Markdown document: the table sits between a start
// line, which says how it is made, and an end line; the rest of the document is prose and stays
// as it is. docs/visibility.md's table (go test ./internal/visibility -run TestDocTable -update)
// and docs/clients.md's (go run ./internal/clientsdoc) are kept so.
package doctable

import (
	"bytes"
	"fmt"
	"os"
	"slices"

	"github.com/contractcheck/contractcheck/internal/safeio"
)

// maxDocBytes bounds the document read: a doc, not data.
const maxDocBytes = 1 << 24

// Splice returns doc with the text between the lines start and end replaced by table, and
// whether that changed it. start and end each end in a newline; a doc without them is an error.
func Splice(doc []byte, start, end, table string) ([]byte, bool, error) {
	before, rest, ok := bytes.Cut(doc, []byte(start))
	if !ok {
		return nil, false, fmt.Errorf("no line %q", start)
	}
	old, after, ok := bytes.Cut(rest, []byte(end))
	if !ok {
		return nil, false, fmt.Errorf("no line %q after %q", end, start)
	}
	if string(old) == table {
		return doc, false, nil
	}
	// A new slice: before shares doc's array with after, which appending to it would overwrite.
	return slices.Concat(before, []byte(start), []byte(table), []byte(end), after), true, nil
}

// Keep holds the table between the lines start and end of the document file to table. Where
// they differ, with write it rewrites file and reports that it did; without, the error says the
// table is out of date (the start line says how to remake it).
func Keep(file, start, end, table string, write bool) (rewritten bool, err error) {
	doc, err := safeio.ReadPath(file, maxDocBytes)
	if err != nil {
		return false, fmt.Errorf("reading the document: %w", err)
	}
	out, changed, err := Splice(doc, start, end, table)
	switch {
	case err != nil:
		return false, fmt.Errorf("%s: %w", file, err)
	case !changed:
		return false, nil
	case !write:
		return false, fmt.Errorf("%s: the table after the line %q is not what it is made from now: remake it as that line says", file, start)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		return false, fmt.Errorf("writing the document: %w", err)
	}
	return true, nil
}
