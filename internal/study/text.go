package study

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
)

// Text writes the four tables for a terminal, each with its title and what it counts. Every
// string of the data is written through escape.Terminal (no cell holds a line break, a tab or a
// control), the whole through an escape.LogWriter.
type Text struct{}

// terms escapes each cell of a row for a terminal.
func terms(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = escape.Terminal(c)
	}
	return out
}

// columns is a text table of rows escaped for a terminal.
func columns(header []string, rows [][]string) *report.Columns {
	t := report.NewColumns(terms(header))
	for _, row := range rows {
		t.Add(terms(row))
	}
	return t
}

// Output implements Outputter.
func (Text) Output(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "contractcheck study: profiles %s (null policy %s) and %s; decoder policies %s\n",
		escape.Terminal(r.Profile), escape.Terminal(nullPolicy(r, 0)), escape.Terminal(nullProfile(r)), escape.Terminal(strings.Join(r.Decoders, ", ")))
	if s := r.selection(); s != "" {
		fmt.Fprintf(&b, "selection: %s\n", escape.Terminal(s))
	}
	if r.Failure != nil {
		fmt.Fprintf(&b, "\nincomplete: the study failed before it could count (exit %d): %s\n", r.Failure.Exit, escape.Terminal(r.Failure.Error))
		return writeLog(w, b.String())
	}
	if rc := r.reconstructed(); len(rc) > 0 {
		fmt.Fprintf(&b, "every table includes the reconstructed lanes %s (carriers derived from source, not captured)\n", escape.Terminal(strings.Join(rc, ", ")))
	}

	fmt.Fprintf(&b, "\n%s (profile %s): %s\n", titleIV, escape.Terminal(r.Profile), noteIV)
	columns(append([]string{"lane", "version", "configuration", "stage"}, r.Tasks...), r.passRows()).Write(&b, "  ")
	if lines := r.unjudgedLines(); len(lines) > 0 {
		b.WriteString("  no binding judged at:\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "    %s\n", escape.Terminal(l))
		}
	}
	if notes := r.passNotes(); len(notes) > 0 {
		b.WriteString("  judged bindings neither pass nor unmet:\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "    %s\n", escape.Terminal(n))
		}
	}

	fmt.Fprintf(&b, "\n%s: %s\n", titleV, noteV)
	columns(r.censusHeader(), r.censusRows()).Write(&b, "  ")
	if t1 := r.t1Lines(); len(t1) > 0 {
		b.WriteString("  T1 divergences:\n")
		for _, l := range t1 {
			fmt.Fprintf(&b, "    %s\n", escape.Terminal(l))
		}
	}

	fmt.Fprintf(&b, "\n%s (stages %s): %s\n", titleVI, strings.Join(r.DecoderStages, " "), noteVI)
	if len(r.JSONText) == 0 {
		fmt.Fprintf(&b, "  %s\n", noReadings)
	} else {
		columns(r.jsonTextHeader(), r.jsonTextRows()).Write(&b, "  ")
	}

	fmt.Fprintf(&b, "\n%s: %s\n", titleVII, noteVII)
	if len(r.Positions) == 0 {
		fmt.Fprintf(&b, "  %s\n", noReadings)
	} else {
		columns(totalsHeader(), r.totalsRows()).Write(&b, "  ")
		fmt.Fprintf(&b, "  per position (%s):\n", escape.Terminal(strings.Join(r.Decoders, " / ")))
		columns(r.positionHeader(), r.positionRows()).Write(&b, "  ")
	}

	if r.Unstable > 0 {
		fmt.Fprintf(&b, "\nrepetitions disagree: %d bindings and readings unstable (exit 3)\n", r.Unstable)
	}
	return writeLog(w, b.String())
}

// nullPolicy is the null policy of census i, or "" when the run has none.
func nullPolicy(r *Report, i int) string {
	if i < len(r.Divergences) {
		return r.Divergences[i].NullPolicy
	}
	return ""
}

// nullProfile names the second profile with its null policy when known.
func nullProfile(r *Report) string {
	if p := nullPolicy(r, 1); p != "" {
		return r.NullProfile + " (null policy " + p + ")"
	}
	return r.NullProfile
}

// writeLog writes s through an escape.LogWriter: no line of it can start a CI workflow command.
func writeLog(w io.Writer, s string) error {
	lw := escape.NewLogWriter(w)
	if _, err := io.WriteString(lw, s); err != nil {
		return err
	}
	return lw.Flush()
}
