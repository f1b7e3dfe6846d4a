package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// SurveyURL is the public, hand-made survey of what 19 open-source MCP clients forward to the
// model, read from source at pinned commits.
const SurveyURL = "https://olaservo-sandyland.static.hf.space/mcp/structured-content/client-survey.md"

// SurveyRow is a client's entry in the survey: the name it lists, and its variant.
type SurveyRow struct {
	// Name is the client as the survey lists it (an asterisk is the survey's own).
	Name string
	// Variant is the survey's variant, in its words ("A · content only"), and Category the
	// visibility category of docs/visibility.md it corresponds to.
	Variant, Category string
}

// surveyVariants are the survey's four variants, in its words, and the category each is.
var surveyVariants = map[string]SurveyRow{
	"A": {Variant: "A · content only", Category: "content-only"},
	"B": {Variant: "B · structuredContent first", Category: "structured-first"},
	"C": {Variant: "C · forward both", Category: "both"},
	"D": {Variant: "D · fallback", Category: "fallback"},
}

// survey is the survey's entry for each lane it lists, keyed by the recipe's lane: the name and
// the variant letter, read from the page (SurveyURL): under "A · content only" it lists
// "strands", "cline" and "gemini-cli", under "B · structuredContent first" "codex*".
var survey = map[string]struct{ name, variant string }{
	"cline":          {"cline", "A"},
	"codex":          {"codex*", "B"},
	"gemini-cli":     {"gemini-cli", "A"},
	"strands-agents": {"strands", "A"},
}

// surveyRow returns the survey's entry for lane, and whether it lists it.
func surveyRow(lane string) (SurveyRow, bool) {
	s, ok := survey[lane]
	if !ok {
		return SurveyRow{}, false
	}
	r := surveyVariants[s.variant]
	r.Name = s.name
	return r, true
}

// causes say, for a lane whose records disagree with the survey, why: written by hand from the
// evidence, printed only while the records disagree (the links to the bytes are the
// generator's). A disagreement with no cause here is printed as one not yet explained.
var causes = map[string]string{
	"cline": "Most likely a different product: the survey read Cline's source at a pinned commit " +
		"of its repository (the link of its row was not read for this page), while this recipe runs the " +
		"`cline` CLI 3.0.65 from npm (`@cline/core`), which sends the model the whole `CallToolResult` " +
		"as JSON, `content` and `structuredContent` (and `isError`) side by side in one `tool` message.",
}

// Table is the generated part of DocFile: the table of the clients whose evidence is below
// root, and a sentence for each disagreement with the survey.
func Table(ctx context.Context, root string) (string, error) {
	cs, err := Clients(ctx, root)
	if err != nil {
		return "", err
	}
	return Render(cs), nil
}

// Render writes the table of cs and the notes that follow it. Every string read from the
// evidence is escaped for Markdown: a hostile lane, version or provider name stays in its cell.
func Render(cs []Client) string {
	var b strings.Builder
	b.WriteString("| client | version | provider API | transport | M3 | H4 category | on error | survey |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			Link{File: ClientsDir + "/" + c.Dir + "/README.md"}.Markdown(escape.MarkdownText(c.Lane)),
			escape.MarkdownText(c.Version),
			providerCell(c), transportCell(c), m3Cell(c), categoryCell(c), onErrorCell(c), surveyCell(c))
	}
	b.WriteString("\nEach fixture's shape links to its record, and ⇄ to the provider request of the run's traffic that\n" +
		"carried the result to the model (the run's traffic file when none did).\n")
	var notes []string
	for _, c := range cs {
		if n := disagreement(c); n != "" {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nWhere the records and the survey differ, or cannot be compared:\n\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}

// providerCell is the provider API probe.json names, linked to probe.json and to the first
// provider request.
func providerCell(c Client) string {
	s := Link{File: ClientsDir + "/" + c.Dir + "/" + EvidenceDir + "/probe.json"}.Markdown(escape.MarkdownText(orDash(c.Provider)))
	if !c.ProviderAt.IsZero() {
		s += " " + c.ProviderAt.Markdown("⇄")
	}
	return s
}

// transportCell is how the client reached the MCP server, linked to its first MCP request.
func transportCell(c Client) string {
	if c.TransportAt.IsZero() {
		return "– (no MCP request)"
	}
	return c.TransportAt.Markdown(escape.MarkdownText(c.Transport))
}

// m3Cell is M3's outcome, linked to its record.
func m3Cell(c Client) string {
	if c.M3 == "" {
		return "–"
	}
	return c.M3At.Markdown(escape.MarkdownText(strings.ReplaceAll(c.M3, "_", " ")))
}

// categoryCell is the H4 category and the shape of each result that is not an error.
func categoryCell(c Client) string {
	s := "**" + escape.MarkdownText(c.H4.Summary()) + "**"
	if c.H4.OnError != "" {
		// the summary's "on error" clause is the next column's
		s = "**" + escape.MarkdownText(strings.Split(c.H4.Summary(), ", on error ")[0]) + "**"
	}
	return s + ": " + fixtures(c, false)
}

// onErrorCell is the shape the error results show, and each of them.
func onErrorCell(c Client) string {
	if c.H4.OnError == "" {
		return "–"
	}
	return "**" + escape.MarkdownText(c.H4.OnError) + "**: " + fixtures(c, true)
}

// fixtures lists the error results (errors) or the others of c's readout: each fixture's
// shape (or state) linked to its record, and ⇄ to its traffic.
func fixtures(c Client, errors bool) string {
	var parts []string
	for _, f := range c.Fixtures {
		// a run that failed is listed once, with the results that are not errors
		if errors != (f.State == "captured" && f.Error) {
			continue
		}
		shape := f.Shape
		if f.State != "captured" {
			shape = f.State
		}
		traffic := f.TrafficAt.Markdown("⇄")
		if f.TrafficAt.IsZero() {
			traffic = "(not run: no traffic)"
		}
		parts = append(parts, escape.MarkdownText(f.Fixture)+" "+f.RecordAt.Markdown(escape.MarkdownText(orDash(shape)))+" "+traffic)
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}

// surveyCell is the survey's variant for c, "–" when the survey does not list it.
func surveyCell(c Client) string {
	r, ok := surveyRow(c.Lane)
	if !ok {
		return "– (not in the survey)"
	}
	return escape.MarkdownText(r.Variant) + " (as " + escape.MarkdownCode(r.Name) + ")"
}

// definite are the categories a comparison with the survey can rest on: its four variants.
var definite = map[string]bool{"content-only": true, "structured-first": true, "both": true, "fallback": true}

// disagreement is the note on c when its H4 reading cannot be compared with the survey's (no
// fixture was read) or differs from it: the cause, and the record and traffic that show it; ""
// when they agree or the survey does not list c.
func disagreement(c Client) string {
	r, ok := surveyRow(c.Lane)
	if !ok || c.H4.Category == r.Category {
		return ""
	}
	head := escape.MarkdownCode(c.Lane) + " " + escape.MarkdownText(c.Version)
	if !definite[c.H4.Category] {
		// nothing to compare: say what the records hold instead
		var states []string
		for _, f := range c.Fixtures {
			states = append(states, escape.MarkdownText(f.Fixture)+" "+escape.MarkdownText(orDash(f.State)))
		}
		s := fmt.Sprintf("%s: no reading to compare with the survey's %s: the records read %s (%s); the error each record carries says why.",
			head, escape.MarkdownText(r.Variant), escape.MarkdownText(c.H4.Category), strings.Join(states, ", "))
		if len(c.Fixtures) > 0 {
			s += " The bytes: " + escape.MarkdownText(c.Fixtures[0].Fixture) + "'s " + c.Fixtures[0].RecordAt.Markdown("record")
			if !c.ProviderAt.IsZero() {
				s += " and " + c.ProviderAt.Markdown("the client's first model request")
			}
			s += "."
		}
		return s
	}
	cause, ok := causes[c.Lane]
	if !ok {
		cause = "not explained yet: compare the product and commit the survey's row read with the recipe's client."
	}
	s := fmt.Sprintf("%s: the records read %s, the survey %s. %s", head, escape.MarkdownText(c.H4.Category), escape.MarkdownText(r.Variant), cause)
	for _, f := range c.Fixtures {
		if !f.Error && f.State == "captured" {
			s += " The bytes: " + escape.MarkdownText(f.Fixture) + "'s " + f.RecordAt.Markdown("record") + " and " + f.TrafficAt.Markdown("the request that carried it") + "."
			break
		}
	}
	return s
}

// orDash is s, or "–" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
