package hostile

import "strings"

// MarkdownCells counts a markdown table row's cell separators as GitHub splits a row: each '|'
// no backslash escapes.
func MarkdownCells(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		if row[i] == '\\' {
			i++
		} else if row[i] == '|' {
			n++
		}
	}
	return n
}

// OutsideCode is a markdown line with its code spans taken out, as CommonMark reads them: a run
// of backquotes opens a span that the next run of the same length closes; an unclosed run is
// literal text. A backslash-escaped character is kept with its backslash.
func OutsideCode(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] == '\\' && i+1 < len(line) {
			b.WriteString(line[i : i+2])
			i += 2
			continue
		}
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		run := 0
		for i+run < len(line) && line[i+run] == '`' {
			run++
		}
		fence := strings.Repeat("`", run)
		end := strings.Index(line[i+run:], fence)
		for end >= 0 && i+run+end+run < len(line) && line[i+run+end+run] == '`' {
			next := strings.Index(line[i+run+end+run:], fence)
			if next < 0 {
				end = -1
				break
			}
			end += run + next
		}
		if end < 0 {
			b.WriteString(fence) // not a code span: literal backquotes
			i += run
			continue
		}
		i += run + end + run
	}
	return b.String()
}
