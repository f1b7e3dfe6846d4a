package main

import (
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inspect"
)

// writeEntryText writes an entry for a reader, one field a line, every string escape.Terminal (a
// file name or a doc may hold anything), through an escape.LogWriter.
func writeEntryText(b *strings.Builder, e inspect.Entry) error {
	from := "catalogue entry at " + e.At
	if e.Origin == "derived" {
		from = "derived from its source (no catalogue entry names it)"
	}
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "(none)"
		}
		q := make([]string, len(xs))
		for i, x := range xs {
			if x == "" {
				x = `"" (the whole value)`
			}
			q[i] = escape.Terminal(x)
		}
		return strings.Join(q, ", ")
	}
	fmt.Fprintf(b, "fixture %s: %s\n", escape.Terminal(e.ID), escape.Terminal(from))
	fmt.Fprintf(b, "  suite      %s\n", escape.Terminal(e.Suite))
	fmt.Fprintf(b, "  family     %s\n", escape.Terminal(e.Family))
	fmt.Fprintf(b, "  revision   %s\n", escape.Terminal(e.Revision))
	binding := e.Binding
	if e.BindingAt != "" {
		binding += " at " + e.BindingAt
	}
	fmt.Fprintf(b, "  binding    %s\n", escape.Terminal(binding))
	fmt.Fprintf(b, "  tasks      %s\n", list(e.Tasks))
	fmt.Fprintf(b, "  targets    %s\n", list(e.Targets))
	if len(e.Holds) > 0 {
		fmt.Fprintf(b, "  holds      %s\n", list(e.Holds))
	}
	if len(e.PrivateMeta) > 0 {
		fmt.Fprintf(b, "  private    %s\n", list(e.PrivateMeta))
	}
	fmt.Fprintf(b, "  source     %s\n", escape.Terminal(e.Source))
	fmt.Fprintf(b, "  sha256     %s\n", escape.Terminal(e.Sha256))
	fmt.Fprintf(b, "  doc        %s\n", escape.Terminal(e.Doc))
	return nil
}
