package reproduce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/instrument"
)

// maxQuote bounds how much of a document the issue body quotes.
const maxQuote = 4000

// issue writes the markdown issue body: what was sent, what arrived, which consumer decision it
// breaks, the stage, and how to run the reproduction (run, the command Generate stored in
// Reproduction.Run). Identifiers checkOptions matched and reproduce's own words are written as
// they are; every other word (a message, a doc, a diagnostic, a basis, a path) goes through the
// markdown escaper of its place: escape.MarkdownText inside a line or a table cell,
// escape.Markdown where it starts a list item, escape.MarkdownCode in a code span; and the
// documents in a fence longer than any run of backquotes they hold, their characters that are
// not graphic written as JSON escapes.
func issue(o Options, s seam, run string, m *contract.Model, task contract.Task, sd contract.StageDef, binding contract.Compartment,
	diags []map[string]any, w0 []byte, rec *instrument.Record, checks []Check) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s drops what a consumer needs at %s: %s\n\n", s.module, o.Version, o.Stage, escape.MarkdownText(checks[0].Message))
	fmt.Fprintf(&b, "## What was sent\n\nA tool returned this result (fixture %s, %s), served byte for byte by a raw MCP server (no SDK):\n\n", o.Fixture, escape.MarkdownText(oneLine(m.Fixtures[o.Fixture].Doc)))
	b.WriteString(fenced("json", quote(w0)))
	fmt.Fprintf(&b, "## What arrived\n\nAt %s (%s) the application reads:\n\n", o.Stage, escape.MarkdownText(oneLine(sd.Doc)))
	carrier, _ := json.Marshal(rec.Carrier)
	b.WriteString(fenced("json", quote(carrier)))
	fmt.Fprintf(&b, "## Which consumer decision it breaks\n\n%s (%s): %s\n\n", o.Task, escape.MarkdownText(task.Role), escape.MarkdownText(oneLine(task.Doc)))
	b.WriteString("| atom | difference | where (canonical view) | sent | arrived |\n|---|---|---|---|---|\n")
	for _, d := range diags {
		cell := func(k string) string {
			v, ok := d[k]
			if !ok {
				return "absent"
			}
			return escape.MarkdownCode(short(v))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", escape.MarkdownText(fmt.Sprint(d["atom"])), escape.MarkdownText(fmt.Sprint(d["kind"])),
			escape.MarkdownCode(fmt.Sprint(d["path"])), cell("expected"), cell("observed"))
	}
	b.WriteString("\nThe consumer decision, as assertions (each fails while the loss exists):\n\n")
	for _, c := range checks {
		note := ""
		if c.Target.Unbound != "" {
			note = " (" + escape.MarkdownText(c.Target.Unbound) + ")"
		}
		fmt.Fprintf(&b, "- %s%s\n", escape.Markdown(c.Message), note)
	}
	fmt.Fprintf(&b, "\n## The stage\n\nLane %s %s, configuration %s, stage %s. %s The binding contractcheck reads it with follows:\n\n", o.Lane, o.Version, o.Configuration, o.Stage, escape.MarkdownText(oneLine(binding.Doc)))
	for _, x := range binding.Basis {
		fmt.Fprintf(&b, "- %s %s (%s): %s\n", escape.MarkdownCode(x.File), escape.MarkdownText(x.Function), escape.MarkdownText(x.Version), escape.MarkdownText(oneLine(x.Rule)))
	}
	fmt.Fprintf(&b, "\n## Reproduce\n\nThe directory this file is in holds the test (%s): the W0 bytes in `testdata/w0.json`, the raw server, and the seam the capture program reads (`%s` in contractcheck). `%s` runs it: the direct reading passes, %s's fails.\n",
		map[string]string{"go": "go test", "js": "node --test", "python": "unittest"}[s.language], s.capture, run, s.framework)
	fmt.Fprintf(&b, "\nFound by contractcheck on the captured record %s.\n", escape.MarkdownCode(fmt.Sprintf("%s:%d", rec.File, rec.Line)))
	return []byte(b.String())
}

// quote lays a JSON document out indented, cut at maxQuote bytes (at a character), with every
// character that is not graphic (a control, a format or bidi character, a line or paragraph
// separator; in valid JSON only a string holds one) written as its JSON escape: the quote shows
// the document, and no character of it acts on the page or the terminal it is read in.
func quote(doc []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", "  "); err != nil {
		b.Reset()
		b.Write(doc)
	}
	s := b.String()
	cut := ""
	if len(s) > maxQuote {
		n := maxQuote
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], "\n… (cut; the whole document is testdata/w0.json or the record)"
	}
	var out strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == ' ' || unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r):
			out.WriteRune(r)
		default:
			out.WriteString(escape.JSONRune(r))
		}
	}
	return strings.TrimSpace(out.String() + cut)
}

// fenced is text in a fenced code block of info string info: the fence is longer than the
// longest run of backquotes in text, so that nothing in it can close the block.
func fenced(info, text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + info + "\n" + text + "\n" + fence + "\n\n"
}

// readme says what the directory holds and how to run it where it was written, or in the
// framework's own tests. The command line is shown in a code span (escape.MarkdownCode).
func readme(o Options, s seam, r *Reproduction) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reproduction: %s %s %s, fixture %s, task %s\n\n", o.Lane, o.Version, o.Stage, o.Fixture, o.Task)
	fmt.Fprintf(&b, "Written by %s from the captured record %s.\n\n", escape.MarkdownCode(o.Command), escape.MarkdownCode(r.Record))
	b.WriteString("| file | what |\n|---|---|\n")
	b.WriteString("| `testdata/w0.json` | the tool result the server sends, byte for byte |\n")
	switch s.language {
	case "go":
		fmt.Fprintf(&b, "| `repro_test.go` | package `%s`: the raw MCP server, the seam (%s), the checks on the direct reading (`TestDirectReading`, passes) and on the framework's (`Test%s%s`, fails while the loss exists) |\n", s.pkg, s.framework, goName(o.Lane), o.Stage)
		fmt.Fprintf(&b, "| `go.mod` | requires %s %s, to run here: `%s` |\n", s.module, o.Version, r.Run)
		fmt.Fprintf(&b, "\nIn %s's own repository, copy `repro_test.go` and `testdata/w0.json` into the package directory of `%s` tests and run `go test -run 'TestDirectReading|Test%s%s'`.\n", s.module, s.pkg, goName(o.Lane), o.Stage)
	case "js":
		b.WriteString("| `repro.test.mjs` | the checks on the direct reading (passes) and on the framework's (fails while the loss exists), with the seam |\n")
		b.WriteString("| `testdata/checks.json` | the checks the test reads: where each side puts the consumer decision, and what it must find |\n")
		b.WriteString("| `rawmcp-server.mjs` | the raw MCP server (stdio) |\n")
		fmt.Fprintf(&b, "| `package.json` | pins %s %s and the packages the seam imports: `%s` |\n", s.module, o.Version, r.Run)
		fmt.Fprintf(&b, "\nIn %s's own repository, copy the three files and `testdata/` beside its tests and run `node --test repro.test.mjs`.\n", s.module)
	case "python":
		fmt.Fprintf(&b, "| `test_repro.py` | unittest: the checks on the direct reading (`test_direct_reading`, passes) and on the framework's (`test_%s_%s`, fails while the loss exists), with the seam |\n", strings.ReplaceAll(o.Lane, "-", "_"), strings.ToLower(o.Stage))
		b.WriteString("| `testdata/checks.json` | the checks the test reads: where each side puts the consumer decision, and what it must find |\n")
		b.WriteString("| `rawmcp_server.py` | the raw MCP server (stdio) |\n")
		fmt.Fprintf(&b, "| `requirements.txt` | pins %s %s: `%s` |\n", s.module, o.Version, r.Run)
		fmt.Fprintf(&b, "\nIn the %s SDK's own repository, copy `test_repro.py`, `rawmcp_server.py` and `testdata/` beside its tests; pytest collects the unittest case as it is.\n", s.module)
	}
	b.WriteString("\n`ISSUE.md` is the issue body: what was sent, what arrived, which consumer decision it breaks, and the stage.\n")
	return []byte(b.String())
}
