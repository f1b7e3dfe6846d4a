// Command clientsdoc writes the table of docs/clients.md from the committed probe evidence of
// each client recipe (examples/probe/clients/<client>/visibility, written by
// scripts/probe-clients): what of an MCP result reaches each real client's model, every cell
// read from the records and traffic through contractcheck's own check and probe packages, and
// linked to the record line and the traffic line that shows it.
//
//	go run ./internal/clientsdoc            rewrite the table in docs/clients.md
//	go run ./internal/clientsdoc -check     fail when docs/clients.md's table is not the records'
//
// Run it from the repository's root (scripts/probe-clients does). The table sits between the
// lines TableStart and TableEnd; the rest of docs/clients.md is prose and stays as it is.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/contractcheck/contractcheck/internal/doctable"
)

// Paths relative to the repository's root.
const (
	// DocFile is the document the table is written into.
	DocFile = "docs/clients.md"
	// ClientsDir holds one directory per client recipe; a recipe's committed evidence is its
	// EvidenceDir.
	ClientsDir  = "examples/probe/clients"
	EvidenceDir = "visibility"
)

// The lines that enclose the generated table in DocFile.
const (
	TableStart = "<!-- table: go run ./internal/clientsdoc (scripts/probe-clients runs it) -->\n"
	TableEnd   = "<!-- end of table -->\n"
)

func main() {
	check := flag.Bool("check", false, "fail when "+DocFile+"'s table is not the one the committed records give, instead of rewriting it")
	flag.Parse()
	if err := run(context.Background(), ".", *check); err != nil {
		fmt.Fprintln(os.Stderr, "clientsdoc:", err)
		os.Exit(1)
	}
}

// run builds the table from the evidence below root and writes it into root's DocFile, or with
// check compares it with the table there.
func run(ctx context.Context, root string, check bool) error {
	table, err := Table(ctx, root)
	if err != nil {
		return err
	}
	doc := root + "/" + DocFile
	rewritten, err := doctable.Keep(doc, TableStart, TableEnd, table, !check)
	if err != nil {
		return err
	}
	if rewritten {
		fmt.Fprintf(os.Stderr, "clientsdoc: %s rewritten\n", doc)
	}
	return nil
}
