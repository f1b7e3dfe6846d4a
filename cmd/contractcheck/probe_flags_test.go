package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestProbeFlagTable: docs/probe.md's flag table names every flag `probe --help` lists (its own
// and the global ones, --help aside), and no flag probe does not have.
func TestProbeFlagTable(t *testing.T) {
	t.Parallel()
	stdout, _ := cliOK(t, "probe", "--help")
	var help []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-([a-zA-Z]), )?--([a-z0-9][a-z0-9-]*)`).FindAllStringSubmatch(stdout, -1) {
		if m[2] == "help" {
			continue
		}
		help = append(help, "--"+m[2])
		if m[1] != "" {
			help = append(help, "-"+m[1])
		}
	}
	doc, err := os.ReadFile("../../docs/probe.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "**Command line.**")
	if !ok {
		t.Fatal("docs/probe.md has no **Command line.** section")
	}
	// The table is the first run of lines starting with "|" after the section's heading.
	var documented []string
	inTable := false
	for _, row := range strings.Split(table, "\n") {
		if !strings.HasPrefix(row, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(row, "|")
		for _, m := range regexp.MustCompile("`(--?[a-zA-Z0-9][a-z0-9-]*)").FindAllStringSubmatch(cells[1], -1) {
			documented = append(documented, m[1])
		}
	}
	slices.Sort(help)
	slices.Sort(documented)
	documented = slices.Compact(documented)
	for _, f := range help {
		if !slices.Contains(documented, f) {
			t.Errorf("docs/probe.md's flag table lacks %s", f)
		}
	}
	for _, f := range documented {
		if !slices.Contains(help, f) {
			t.Errorf("docs/probe.md's flag table names %s, which probe --help does not list", f)
		}
	}
	if len(help) < 20 {
		t.Errorf("read %d flags from probe --help, want them all:\n%s", len(help), stdout)
	}
}
