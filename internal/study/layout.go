package study

import (
	"fmt"
	"strings"
)

// page is what a text format writes the tables onto. One layout (write) serves every such
// format, and each page escapes every string it is given for its own grammar: a string may hold
// the data (a lane, a fixture, a profile name).
type page interface {
	// line writes a line of prose.
	line(s string)
	// section opens a table: its title and what it counts.
	section(title, note string)
	// table writes a table: a header and rows of as many cells.
	table(header []string, rows [][]string)
	// list writes items under an intro, below the table before it.
	list(intro string, items []string)
	// remark writes a line of prose below the table before it.
	remark(s string)
}

// write lays the report out on p: what was selected, then tables IV to VII, each with its title,
// what it counts and the remarks that go with it.
func write(p page, r *Report) {
	p.line(fmt.Sprintf("contractcheck study: profiles %s (null policy %s) and %s; decoder policies %s",
		r.Profile, nullPolicy(r, 0), nullProfile(r), strings.Join(r.Decoders, ", ")))
	if s := r.selection(); s != "" {
		p.line("selection: " + s)
	}
	if r.Failure != nil {
		p.line(fmt.Sprintf("incomplete: the study failed before it could count (exit %d): %s", r.Failure.Exit, r.Failure.Error))
		return
	}
	if rc := r.reconstructed(); len(rc) > 0 {
		p.line("every table includes the reconstructed lanes " + strings.Join(rc, ", ") + " (carriers derived from source, not captured)")
	}

	p.section(titleIV+" (profile "+r.Profile+")", noteIV)
	p.table(append([]string{"lane", "version", "configuration", "stage"}, r.Tasks...), r.passRows())
	p.list("no binding judged at", r.unjudgedLines())
	p.list("judged bindings neither pass nor unmet", r.passNotes())

	p.section(titleV, noteV)
	p.table(r.censusHeader(), r.censusRows())
	p.list("T1 divergences", r.t1Lines())

	p.section(titleVI+" (stages "+strings.Join(r.DecoderStages, " ")+")", noteVI)
	if len(r.JSONText) == 0 {
		p.remark(noReadings)
	} else {
		p.table(r.jsonTextHeader(), r.jsonTextRows())
	}

	p.section(titleVII, noteVII)
	if len(r.Positions) == 0 {
		p.remark(noReadings)
	} else {
		p.table(totalsHeader(), r.totalsRows())
		p.remark("per position (" + strings.Join(r.Decoders, " / ") + "):")
		p.table(r.positionHeader(), r.positionRows())
	}

	if r.Unstable > 0 {
		p.section("repetitions disagree", fmt.Sprintf("%d bindings and readings unstable (exit 3)", r.Unstable))
	}
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
