package reproduce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/contract"
)

// maxQuote bounds how much of a document the issue body quotes.
const maxQuote = 4000

// issue writes the markdown issue body: what was sent, what arrived, which consumer decision it
// breaks, the stage, and how to run the reproduction (run, the command Generate stored in
// Reproduction.Run).
func issue(o Options, s seam, run string, m *contract.Model, task contract.Task, sd contract.StageDef, binding contract.Compartment,
	diags []map[string]any, w0 []byte, rec *check.Record, checks []Check) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s drops what a consumer needs at %s: %s\n\n", s.module, o.Version, o.Stage, checks[0].Message)
	fmt.Fprintf(&b, "## What was sent\n\nA tool returned this result (fixture %s, %s), served byte for byte by a raw MCP server (no SDK):\n\n", o.Fixture, oneLine(m.Fixtures[o.Fixture].Doc))
	fmt.Fprintf(&b, "```json\n%s\n```\n\n", quote(w0))
	fmt.Fprintf(&b, "## What arrived\n\nAt %s (%s) the application reads:\n\n", o.Stage, oneLine(sd.Doc))
	carrier, _ := json.Marshal(rec.Carrier)
	fmt.Fprintf(&b, "```json\n%s\n```\n\n", quote(carrier))
	fmt.Fprintf(&b, "## Which consumer decision it breaks\n\n%s (%s): %s\n\n", o.Task, task.Role, oneLine(task.Doc))
	b.WriteString("| atom | difference | where (canonical view) | sent | arrived |\n|---|---|---|---|---|\n")
	for _, d := range diags {
		cell := func(k string) string {
			v, ok := d[k]
			if !ok {
				return "absent"
			}
			return "`" + strings.ReplaceAll(short(v), "|", `\|`) + "`"
		}
		fmt.Fprintf(&b, "| %v | %v | `%v` | %s | %s |\n", d["atom"], d["kind"], d["path"], cell("expected"), cell("observed"))
	}
	b.WriteString("\nThe consumer decision, as assertions (each fails while the loss exists):\n\n")
	for _, c := range checks {
		note := ""
		if c.Target.Unbound != "" {
			note = " (" + c.Target.Unbound + ")"
		}
		fmt.Fprintf(&b, "- %s%s\n", c.Message, note)
	}
	fmt.Fprintf(&b, "\n## The stage\n\nLane %s %s, configuration %s, stage %s. %s The binding contractcheck reads it with follows:\n\n", o.Lane, o.Version, o.Configuration, o.Stage, oneLine(binding.Doc))
	for _, x := range binding.Basis {
		fmt.Fprintf(&b, "- `%s` %s (%s): %s\n", x.File, x.Function, x.Version, oneLine(x.Rule))
	}
	fmt.Fprintf(&b, "\n## Reproduce\n\nThe directory this file is in holds the test (%s): the W0 bytes in `testdata/w0.json`, the raw server, and the seam the capture program reads (`%s` in contractcheck). `%s` runs it: the direct reading passes, %s's fails.\n",
		map[string]string{"go": "go test", "js": "node --test", "python": "unittest"}[s.language], s.capture, run, s.framework)
	fmt.Fprintf(&b, "\nFound by contractcheck on the captured record %s:%d.\n", rec.File, rec.Line)
	return []byte(b.String())
}

// quote lays a JSON document out indented, cut at maxQuote bytes.
func quote(doc []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", "  "); err != nil {
		b.Reset()
		b.Write(doc)
	}
	s := b.String()
	if len(s) > maxQuote {
		s = s[:maxQuote] + "\n… (cut; the whole document is testdata/w0.json or the record)"
	}
	return strings.TrimSpace(s)
}

// readme says what the directory holds and how to run it where it was written, or in the
// framework's own tests.
func readme(o Options, s seam, r *Reproduction) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reproduction: %s %s %s, fixture %s, task %s\n\n", o.Lane, o.Version, o.Stage, o.Fixture, o.Task)
	fmt.Fprintf(&b, "Written by `%s` from the captured record %s.\n\n", o.Command, r.Record)
	b.WriteString("| file | what |\n|---|---|\n")
	b.WriteString("| `testdata/w0.json` | the tool result the server sends, byte for byte |\n")
	switch s.language {
	case "go":
		fmt.Fprintf(&b, "| `repro_test.go` | package `%s`: the raw MCP server, the seam (%s), the checks on the direct reading (`TestDirectReading`, passes) and on the framework's (`Test%s%s`, fails while the loss exists) |\n", s.pkg, s.framework, goName(o.Lane), o.Stage)
		fmt.Fprintf(&b, "| `go.mod` | requires %s %s, to run here: `%s` |\n", s.module, o.Version, r.Run)
		fmt.Fprintf(&b, "\nIn %s's own repository, copy `repro_test.go` and `testdata/w0.json` into the package directory of `%s` tests and run `go test -run 'TestDirectReading|Test%s%s'`.\n", s.module, s.pkg, goName(o.Lane), o.Stage)
	case "js":
		b.WriteString("| `repro.test.mjs` | the checks on the direct reading (passes) and on the framework's (fails while the loss exists), with the seam |\n")
		b.WriteString("| `rawmcp-server.mjs` | the raw MCP server (stdio) |\n")
		fmt.Fprintf(&b, "| `package.json` | pins %s %s and the packages the seam imports: `%s` |\n", s.module, o.Version, r.Run)
		fmt.Fprintf(&b, "\nIn %s's own repository, copy the three files and `testdata/` beside its tests and run `node --test repro.test.mjs`.\n", s.module)
	case "python":
		fmt.Fprintf(&b, "| `test_repro.py` | unittest: the checks on the direct reading (`test_direct_reading`, passes) and on the framework's (`test_%s_%s`, fails while the loss exists), with the seam |\n", strings.ReplaceAll(o.Lane, "-", "_"), strings.ToLower(o.Stage))
		b.WriteString("| `rawmcp_server.py` | the raw MCP server (stdio) |\n")
		fmt.Fprintf(&b, "| `requirements.txt` | pins %s %s: `%s` |\n", s.module, o.Version, r.Run)
		fmt.Fprintf(&b, "\nIn the %s SDK's own repository, copy `test_repro.py`, `rawmcp_server.py` and `testdata/` beside its tests; pytest collects the unittest case as it is.\n", s.module)
	}
	b.WriteString("\n`ISSUE.md` is the issue body: what was sent, what arrived, which consumer decision it breaks, and the stage.\n")
	return []byte(b.String())
}
