// Package escape holds contractcheck's escapers: one function per output grammar, each the only
// place that grammar is escaped. Every string that comes from outside the binary (a tool result,
// a carrier, a fixture id, a teammate's layer, a diagnostic a policy wrote) passes through the
// escaper of the sink it is written to, and nothing else is trusted to be safe there:
//
//   - Terminal: text for a terminal or a CI log (control, format and bidi characters made
//     visible as \n, \t or \u202e; invalid UTF-8 as U+FFFD), and LogWriter, which keeps any line
//     of text output from starting a CI runner's command (GitHub's ::, Azure's ##vso[ and ##[).
//     TerminalLines is Terminal for a message of several lines (line breaks and tabs kept),
//     CutPoint says where escaped text may be shortened without cutting an escape in two, Width
//     measures it in terminal columns by grapheme cluster, and Cut shortens it to a width.
//   - Markdown and MarkdownCell: inline markdown and a table cell (punctuation backslash-escaped,
//     <, > and & as entities, | escaped, line breaks shown, never raw HTML). MarkdownText is the
//     same grammar escaping only what can start inline markup (a name reads as itself in the
//     source too), MarkdownURL a link's destination.
//   - HTML: text or an attribute value of a page (html.EscapeString, and line breaks as
//     references, so that no line of a page starts a CI runner's command).
//   - TAPDescription and YAMLString: a TAP test line's description and a scalar in its YAML
//     diagnostic block.
//   - Python, JavaScript, Go and CUE: a string literal of generated source, ASCII only, so that
//     no character of the data can end the literal, a comment or a line of the generated file.
//     JSON is a JSON string a terminal may show, and a Rego string literal too (OPA's parser
//     reads one as JSON).
//
// Generated code never places data in a comment or a docstring: only in string literals made
// here, or in data files the generated code reads.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package escape
