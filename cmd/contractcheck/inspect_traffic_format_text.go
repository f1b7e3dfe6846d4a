package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// writeTrafficText writes each run's exchanges for a reader: the run, then per exchange its number,
// endpoint, method, path and status, the request's headers and body (">"), the response's ("<").
// Every string is escaped for a terminal (escape.Terminal; bytes that are not UTF-8 as \xNN), a
// body one line per line it holds, and the whole goes through an escape.LogWriter: an agent's
// bytes are data, never a terminal's or a CI log's commands. --format json has the exact bytes.
func writeTrafficText(b *strings.Builder, ins trafficInspection) error {
	for i, t := range ins.Runs {
		if i > 0 {
			b.WriteString("\n")
		}
		h := t.Header
		fmt.Fprintf(b, "traffic %s\n", escape.Terminal(t.File))
		fmt.Fprintf(b, "  %s %s %s %s repetition %d: %d exchanges", escape.Terminal(h.Lane), escape.Terminal(h.LaneVersion),
			escape.Terminal(h.Configuration), escape.Terminal(h.Run), h.Repetition, len(t.Exchanges))
		if h.Run == "batch" {
			fmt.Fprintf(b, " (fixtures %s)", escape.Terminal(strings.Join(h.Fixtures, ", ")))
		}
		b.WriteString("\n")
		for _, x := range t.Exchanges {
			target := x.Path
			if x.Query != "" {
				target += "?" + x.Query
			}
			fmt.Fprintf(b, "#%d %s %s %s → %d", x.Seq, escape.Terminal(x.Endpoint), escape.Terminal(x.Method), escape.Terminal(target), x.Status)
			if x.Redacted {
				b.WriteString(" (a credential redacted in a body)")
			}
			if x.Incomplete {
				b.WriteString(" (still under way when the run ended)")
			}
			b.WriteString("\n")
			writeMessage(b, ">", x.RequestHeaders, x.Request, x.RequestOmitted)
			writeMessage(b, "<", x.ResponseHeaders, x.Response, x.ResponseOmitted)
		}
	}
	return nil
}

// writeMessage writes one side of an exchange: its headers by name, then its body's size and
// lines, each line marked (">" a request, "<" a response).
func writeMessage(b *strings.Builder, mark string, headers map[string][]string, body []byte, omitted int64) {
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		for _, v := range headers[k] {
			fmt.Fprintf(b, "  %s %s: %s\n", mark, escape.Terminal(k), showBytes([]byte(v)))
		}
	}
	size := strconv.Itoa(len(body)) + " bytes"
	if !utf8.Valid(body) {
		size += ", not UTF-8: its stray bytes shown as \\xNN"
	}
	if omitted > 0 {
		size += fmt.Sprintf(", %d more past the bound not kept", omitted)
	}
	if len(body) == 0 {
		fmt.Fprintf(b, "  %s body (%s)\n", mark, size)
		return
	}
	fmt.Fprintf(b, "  %s body (%s):\n", mark, size)
	lines := strings.Split(string(body), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the line break that ends the body ends its last line
	}
	for _, line := range lines {
		if line == "" {
			fmt.Fprintf(b, "  %s\n", mark)
			continue
		}
		fmt.Fprintf(b, "  %s   %s\n", mark, showBytes([]byte(line)))
	}
}

// showBytes is b for a terminal: valid UTF-8 as escape.Terminal shows it, every byte that is not
// UTF-8 as \xNN.
func showBytes(b []byte) string {
	var out strings.Builder
	for len(b) > 0 {
		i := 0
		for i < len(b) {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		out.WriteString(escape.Terminal(string(b[:i])))
		if i < len(b) {
			fmt.Fprintf(&out, `\x%02x`, b[i])
			i++
		}
		b = b[i:]
	}
	return out.String()
}
