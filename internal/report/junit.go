package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit writes the gate as JUnit XML (testsuites/testsuite/testcase/failure/skipped), the shape CI
// systems show as test results: one testsuite per requirement of the profile with a testcase per
// binding it selects (a failure when the requirement does not allow its outcome; skipped when it
// is exempt), and a testsuite "unrequired findings" whose testcases, skipped, make every binding
// that no requirement gates but that did not pass visible without failing the build.
type JUnit struct{}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Output implements Outputter.
func (JUnit) Output(w io.Writer, r *Report) error {
	doc := junitSuites{Name: "contractcheck profile " + r.Profile}
	violated := map[string]*Violation{} // requirement name + binding → violation
	for i := range r.Gate.Violations {
		v := &r.Gate.Violations[i]
		violated[v.RequirementName+"\x00"+bindingID(v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage, v.Task)] = v
	}
	// The suites first, each requirement's at its place; then one pass over the results adds each
	// to the suites of the requirements that select it, and to "unrequired" when none does and it
	// did not pass, so every suite's cases stay in report order.
	suites := map[string][]int{} // requirement name → its suites' indices in doc.Suites
	for _, q := range r.Gate.Requirements {
		s := junitSuite{Name: q.Name + ": " + q.Doc, Properties: []junitProperty{{"requirement", q.Name}}}
		if q.Position != "" {
			s.Properties = append(s.Properties, junitProperty{"position", q.Position})
		}
		if q.Unmatched != "" {
			s.Properties = append(s.Properties, junitProperty{"unmatched", q.Unmatched})
			s.Cases = append(s.Cases, junitCase{Name: "selects a binding", Classname: q.Name,
				Failure: &junitMessage{Message: "the requirement gates no binding: " + q.Unmatched, Type: VerdictSelectedNothing}})
		}
		suites[q.Name] = append(suites[q.Name], len(doc.Suites))
		doc.Suites = append(doc.Suites, s)
	}
	unrequired := junitSuite{Name: "unrequired findings: not gated by profile " + r.Profile}
	for _, res := range r.Each() {
		for k, name := range res.RequiredBy {
			if contains(res.RequiredBy[:k], name) {
				continue // a name listed twice selects the binding once
			}
			for _, j := range suites[name] {
				q := r.Gate.Requirements[j]
				c := testcase(res)
				if v := violated[q.Name+"\x00"+bindingID(res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)]; v != nil {
					c.Failure = &junitMessage{Message: failureMessage(res), Type: res.Outcome, Text: failureText(res, q.Doc)}
				}
				doc.Suites[j].Cases = append(doc.Suites[j].Cases, c)
			}
		}
		if res.Required || noFinding(res.Outcome) {
			continue
		}
		c := testcase(res)
		c.Skipped = &junitMessage{Message: failureMessage(res) + " (not required by profile " + r.Profile + ")", Text: failureText(res, "")}
		unrequired.Cases = append(unrequired.Cases, c)
	}
	doc.Suites = append(doc.Suites, unrequired)
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Tests = len(s.Cases)
		for _, c := range s.Cases {
			if c.Failure != nil {
				s.Failures++
			}
			if c.Skipped != nil {
				s.Skipped++
			}
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func bindingID(fixture, lane, version, configuration, stage, task string) string {
	return strings.Join([]string{fixture, lane, version, configuration, stage, task}, " ")
}

// noFinding says whether an outcome is nothing to show when no requirement gates it: pass,
// not_applicable or not_observable.
func noFinding(outcome string) bool {
	return outcome == Pass || outcome == NotApplicable || outcome == NotObservable
}

// violatedBindings is the set of bindings, by bindingID, that violate a requirement of the gate.
func violatedBindings(r *Report) map[string]bool {
	violated := map[string]bool{}
	for _, v := range r.Gate.Violations {
		violated[bindingID(v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage, v.Task)] = true
	}
	return violated
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// testcase is a binding as a JUnit testcase: the lane as its class, fixture, stage and task as its
// name, and the first repetition's record as its file and line.
func testcase(res *Result) junitCase {
	c := junitCase{Name: res.Fixture + " " + res.Stage + " " + res.Task,
		Classname: res.Lane + "." + res.LaneVersion + "." + res.Configuration}
	if len(res.Records) > 0 {
		c.File, c.Line = res.Records[0].File, res.Records[0].Line
	}
	return c
}

// failureMessage says in one line what the binding lost.
func failureMessage(res *Result) string {
	msg := res.Outcome
	if atoms := Atoms(res.Diagnostics); len(atoms) > 0 {
		msg += ": " + strings.Join(atoms, ", ")
	}
	if res.Error != "" {
		msg += ": " + oneLine(res.Error)
	}
	return msg
}

// failureText gives every diagnostic and the records, for a failure's body.
func failureText(res *Result, requirement string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s %s %s [%s]: %s\n", res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task, res.Compartment, res.Outcome)
	if requirement != "" {
		fmt.Fprintf(&b, "requirement: %s\n", requirement)
	}
	for _, d := range res.Diagnostics {
		fmt.Fprintf(&b, "%s\n", FormatDiagnostic(d))
	}
	if res.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", oneLine(res.Error))
	}
	for _, rec := range res.Records {
		fmt.Fprintf(&b, "record %s:%d (repetition %d)\n", rec.File, rec.Line, rec.Repetition)
	}
	return b.String()
}
