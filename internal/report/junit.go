package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// JUnit writes the gate as JUnit XML (testsuites/testsuite/testcase/failure/skipped), the shape CI
// systems show as test results: one testsuite per requirement of the profile with a testcase per
// binding it selects (a failure when the requirement does not allow its outcome; skipped when it
// is exempt), and a testsuite "unrequired findings" whose testcases, skipped, make every binding
// that no requirement gates but that did not pass visible without failing the build. A run that
// failed before it could give a verdict (result.Report.Failure) is one testcase in <error>
// naming the failure (failure.go).
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

// total adds up the suites' counts into the document's.
func (d *junitSuites) total() {
	for _, s := range d.Suites {
		d.Tests += s.Tests
		d.Failures += s.Failures
		d.Skipped += s.Skipped
	}
}

// junitEncoder writes the XML declaration to w and returns the encoder of the document after it,
// indented by two spaces.
func junitEncoder(w io.Writer) (*xml.Encoder, error) {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return nil, err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	return enc, nil
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
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// junitProperties is a suite's properties element.
type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

// Output implements Outputter. The document is written as it is made, a testcase at a time: one
// pass over the results counts each suite's testcases (the counts head the document) and keeps
// the indices of its results, 4 bytes a testcase; the suites are then written one after the
// other, each result made again when its testcase is written. The bytes are those of encoding
// the whole document at once (TestJUnitStreamsTheDocument).
func (JUnit) Output(w io.Writer, r *result.Report) error {
	if r.Failure != nil {
		return writeJUnitFailure(w, r)
	}
	violated := map[string]*result.Violation{} // requirement name + binding → violation
	for i := range r.Gate.Violations {
		v := &r.Gate.Violations[i]
		violated[v.RequirementName+"\x00"+bindingID(v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage, v.Task)] = v
	}
	// The suites first, each requirement's at its place, without their bindings' testcases; then
	// one pass over the results counts each in the suites of the requirements that select it, and
	// in "unrequired" when none does and it did not pass, so every suite's cases stay in report
	// order.
	doc, suites := junitRequirementSuites(r)
	if l := r.Lacking; l != nil {
		// A census read from decision logs that is incomplete gives no verdict: one failing case
		// says so, so that a CI reading the file alone does not take the gate for passed.
		doc.Suites = append(doc.Suites, junitSuite{Name: "decision logs: the census is complete", Cases: []junitCase{{
			Name: "the logs hold every expected binding, and no decision is an error", Classname: "lacking",
			Failure: &junitMessage{Message: "incomplete census, no verdict: " + l.Summary(), Type: result.VerdictIncomplete, Text: l.Err().Error() + "\n"}}}})
	} else if r.Gate.Verdict == result.VerdictIncomplete {
		// A census read while its writer runs (check --census): the parts written so far.
		msg := r.GateError().Error()
		doc.Suites = append(doc.Suites, junitSuite{Name: "census: the census is complete", Cases: []junitCase{{
			Name: "its writer marked it complete", Classname: "lacking",
			Failure: &junitMessage{Message: "incomplete census, no verdict: " + msg, Type: result.VerdictIncomplete, Text: msg + "\n"}}}})
	}
	unrequired := len(doc.Suites)
	doc.Suites = append(doc.Suites, junitSuite{Name: "unrequired findings: not gated by profile " + r.Profile})
	for i := range doc.Suites {
		s := &doc.Suites[i]
		for _, c := range s.Cases {
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
		}
	}
	members := make([][]int32, len(doc.Suites)) // per suite, its bindings' results by index
	for i, res := range r.Each() {
		for k, name := range res.RequiredBy {
			if contains(res.RequiredBy[:k], name) {
				continue // a name listed twice selects the binding once
			}
			for _, j := range suites[name] {
				members[j] = append(members[j], int32(i))
				doc.Suites[j].Tests++
				if violated[name+"\x00"+bindingID(res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)] != nil {
					doc.Suites[j].Failures++
				}
			}
		}
		if res.Required || noFinding(res.Outcome) {
			continue
		}
		members[unrequired] = append(members[unrequired], int32(i))
		doc.Suites[unrequired].Tests++
		doc.Suites[unrequired].Skipped++
	}
	doc.total()
	enc, err := junitEncoder(w)
	if err != nil {
		return err
	}
	if err := enc.EncodeToken(junitStart("testsuites", doc.Name, doc.Tests, doc.Failures, doc.Errors, doc.Skipped)); err != nil {
		return err
	}
	testcase := xml.StartElement{Name: xml.Name{Local: "testcase"}}
	for j, s := range doc.Suites {
		if err := enc.EncodeToken(junitStart("testsuite", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped)); err != nil {
			return err
		}
		// Always there, empty too: encoding/xml writes the path properties>property so.
		if err := enc.EncodeElement(junitProperties{s.Properties}, xml.StartElement{Name: xml.Name{Local: "properties"}}); err != nil {
			return err
		}
		for _, c := range s.Cases {
			if err := enc.EncodeElement(c, testcase); err != nil {
				return err
			}
		}
		for _, i := range members[j] {
			res := r.Results.At(int(i))
			c := junitTestcase(&res)
			if j == unrequired {
				c.Skipped = &junitMessage{Message: failureMessage(&res) + " (not required by profile " + r.Profile + ")", Text: failureText(&res, "")}
			} else if q := r.Gate.Requirements[j]; violated[q.Name+"\x00"+bindingID(res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)] != nil {
				c.Failure = &junitMessage{Message: failureMessage(&res), Type: res.Outcome, Text: failureText(&res, q.Doc)}
			}
			if err := enc.EncodeElement(c, testcase); err != nil {
				return err
			}
		}
		if err := enc.EncodeToken(xml.EndElement{Name: xml.Name{Local: "testsuite"}}); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(xml.EndElement{Name: xml.Name{Local: "testsuites"}}); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// junitStart is the start tag of a testsuites or testsuite element with its attributes, in the
// order their structs give them.
func junitStart(element, name string, tests, failures, errs, skipped int) xml.StartElement {
	attr := func(k string, v int) xml.Attr { return xml.Attr{Name: xml.Name{Local: k}, Value: strconv.Itoa(v)} }
	return xml.StartElement{Name: xml.Name{Local: element}, Attr: []xml.Attr{{Name: xml.Name{Local: "name"}, Value: name},
		attr("tests", tests), attr("failures", failures), attr("errors", errs), attr("skipped", skipped)}}
}

func bindingID(fixture, lane, version, configuration, stage, task string) string {
	return strings.Join([]string{fixture, lane, version, configuration, stage, task}, " ")
}

// noFinding says whether an outcome is nothing to show when no requirement gates it: pass,
// not_applicable or not_observable.
func noFinding(outcome string) bool {
	return outcome == result.Pass || outcome == result.NotApplicable || outcome == result.NotObservable
}

// violatedBindings is the set of bindings, by bindingID, that violate a requirement of the gate.
func violatedBindings(r *result.Report) map[string]bool {
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

// junitTestcase is a binding as a JUnit testcase: the lane as its class, fixture, stage and task
// as its name, and the first repetition's record as its file and line.
func junitTestcase(res *result.Result) junitCase {
	c := junitCase{Name: res.Fixture + " " + res.Stage + " " + res.Task,
		Classname: res.Lane + "." + res.LaneVersion + "." + res.Configuration}
	if len(res.Records) > 0 {
		c.File, c.Line = res.Records[0].File, res.Records[0].Line
	}
	return c
}

// failureMessage says in one line what the binding lost.
func failureMessage(res *result.Result) string {
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
func failureText(res *result.Result, requirement string) string {
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

// junitRequirementSuites is the start of r's JUnit document: one suite per requirement of the
// gate, in the gate's order, with the requirement's properties and, when it selects no binding,
// its one failing case; and each requirement name's suites' indices in the document's Suites.
func junitRequirementSuites(r *result.Report) (junitSuites, map[string][]int) {
	doc := junitSuites{Name: "contractcheck profile " + r.Profile}
	suites := map[string][]int{}
	for _, q := range r.Gate.Requirements {
		s := junitSuite{Name: q.Name + ": " + q.Doc, Properties: []junitProperty{{"requirement", q.Name}}}
		if q.Position != "" {
			s.Properties = append(s.Properties, junitProperty{"position", q.Position})
		}
		if q.Unmatched != "" {
			s.Properties = append(s.Properties, junitProperty{"unmatched", q.Unmatched})
			s.Cases = append(s.Cases, junitCase{Name: "selects a binding", Classname: q.Name,
				Failure: &junitMessage{Message: "the requirement gates no binding: " + q.Unmatched, Type: result.VerdictSelectedNothing}})
		}
		suites[q.Name] = append(suites[q.Name], len(doc.Suites))
		doc.Suites = append(doc.Suites, s)
	}
	return doc, suites
}
