package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// sarifSchemaFile is the pinned SARIF 2.1.0 schema (testdata/sarif/PROVENANCE.md).
var sarifSchemaFile = filepath.Join("testdata", "sarif", "sarif-schema-2.1.0.json")

// TestSARIFValidatesAgainstTheSchema writes the sample report (violations, unrequired findings,
// a failure, an unstable binding) and a report whose record files need escaping as SARIF, and
// validates both against the pinned SARIF 2.1.0 schema, whose bytes are held to its provenance.
func TestSARIFValidatesAgainstTheSchema(t *testing.T) {
	data, err := os.ReadFile(sarifSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	prov, err := os.ReadFile(filepath.Join("testdata", "sarif", "PROVENANCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if !strings.Contains(string(prov), "| sarif-schema-2.1.0.json | "+hex.EncodeToString(sum[:])+" |") {
		t.Fatalf("%s has sha256 %x, not the one PROVENANCE.md names", sarifSchemaFile, sum)
	}
	spaced := sample()
	results := spaced.Results.(result.ResultList)
	for i := range results {
		for j := range results[i].Records {
			results[i].Records[j].File = "my captures/go sdk#1/default.jsonl"
		}
	}
	builtin := sample()
	builtin.Results.(result.ResultList)[0].Records = []result.RecordRef{{File: BuiltinPrefix + "fixtures/observations/go-sdk/v1.8.0/default.jsonl", Line: 3, Repetition: 1}}
	for _, tc := range []struct {
		name string
		r    *result.Report
	}{
		{name: "sample", r: sample()},
		{name: "paths with spaces and #", r: spaced},
		{name: "a built-in record", r: builtin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := (SARIF{ToolVersion: "v1.2.3"}).Output(&buf, tc.r); err != nil {
				t.Fatal(err)
			}
			if err := testkit.SARIFSchemaError(t, sarifSchemaFile, buf.Bytes()); err != nil {
				t.Errorf("the SARIF output is not valid SARIF 2.1.0: %v", err)
			}
			for _, m := range regexp.MustCompile(`"uri": "([^"]*)"`).FindAllStringSubmatch(buf.String(), -1) {
				if strings.ContainsAny(m[1], " #") {
					t.Errorf("uri %q is not escaped as a URI reference", m[1])
				}
			}
		})
	}
}

// xmlNode is any XML element, for checking JUnit's structure.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []xmlNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n xmlNode) attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// junitShape is the usual JUnit XSD's shape, as Jenkins, GitLab and the test reporters of GitHub
// Actions read it: each element's allowed children and required attributes (integer counts where
// the XSD has xs:int).
var junitShape = map[string]struct {
	children []string
	attrs    []string
	counts   []string
}{
	"testsuites": {children: []string{"testsuite"}, counts: []string{"tests", "failures", "errors", "skipped"}},
	"testsuite":  {children: []string{"properties", "testcase", "system-out", "system-err"}, attrs: []string{"name"}, counts: []string{"tests", "failures", "errors", "skipped"}},
	"properties": {children: []string{"property"}},
	"property":   {attrs: []string{"name", "value"}},
	"testcase":   {children: []string{"failure", "error", "skipped", "system-out", "system-err"}, attrs: []string{"name", "classname"}},
	"failure":    {attrs: []string{"message"}},
	"error":      {attrs: []string{"message"}},
	"skipped":    {},
}

// checkJUnit checks a JUnit document against junitShape, and that every count attribute is the
// count of what it counts; it returns the testcases that failed.
func checkJUnit(t *testing.T, data []byte) []xmlNode {
	t.Helper()
	var root xmlNode
	if err := xml.Unmarshal(data, &root); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if root.XMLName.Local != "testsuites" {
		t.Fatalf("root element %s, want testsuites", root.XMLName.Local)
	}
	var failed []xmlNode
	var walk func(n xmlNode, path string)
	walk = func(n xmlNode, path string) {
		path += "/" + n.XMLName.Local
		shape, ok := junitShape[n.XMLName.Local]
		if !ok {
			t.Errorf("%s: element not in the JUnit schema", path)
			return
		}
		for _, a := range shape.attrs {
			if _, ok := n.attr(a); !ok {
				t.Errorf("%s: no %s attribute", path, a)
			}
		}
		for _, a := range shape.counts {
			v, _ := n.attr(a)
			if _, err := strconv.Atoi(v); err != nil {
				t.Errorf("%s: %s=%q is not a count", path, a, v)
			}
		}
		kinds := 0
		for _, c := range n.Children {
			if !contains(shape.children, c.XMLName.Local) {
				t.Errorf("%s: %s is not a child JUnit allows here", path, c.XMLName.Local)
			}
			if c.XMLName.Local == "failure" || c.XMLName.Local == "skipped" || c.XMLName.Local == "error" {
				kinds++
			}
			walk(c, path)
		}
		if n.XMLName.Local == "testcase" {
			if kinds > 1 {
				t.Errorf("%s: a testcase is at most one of failure, error, skipped", path)
			}
			for _, c := range n.Children {
				if c.XMLName.Local == "failure" {
					failed = append(failed, n)
				}
			}
		}
	}
	walk(root, "")
	// The counts: a testsuite's are its testcases', testsuites' the sum of its testsuites'.
	count := func(n xmlNode, kind string) int {
		k := 0
		for _, c := range n.Children {
			if c.XMLName.Local != "testcase" {
				continue
			}
			if kind == "tests" {
				k++
				continue
			}
			for _, x := range c.Children {
				if x.XMLName.Local == map[string]string{"failures": "failure", "errors": "error", "skipped": "skipped"}[kind] {
					k++
				}
			}
		}
		return k
	}
	total := map[string]int{}
	for _, s := range root.Children {
		for _, kind := range []string{"tests", "failures", "errors", "skipped"} {
			v, _ := s.attr(kind)
			if want := count(s, kind); v != strconv.Itoa(want) {
				t.Errorf("testsuite %q: %s=%s, but it holds %d", first(s.attr("name")), kind, v, want)
			}
			total[kind] += count(s, kind)
		}
	}
	for kind, n := range total {
		if v, _ := root.attr(kind); v != strconv.Itoa(n) {
			t.Errorf("testsuites: %s=%s, but the suites hold %d", kind, v, n)
		}
	}
	return failed
}

func first(s string, _ bool) string { return s }

// TestJUnitShape holds the junit format to the usual JUnit XSD's structure and counts: the
// violation is one failed testcase at its record's file and line, the unrequired findings are
// skipped, the required pass is a plain testcase.
func TestJUnitShape(t *testing.T) {
	r := sample()
	r.Results.(result.ResultList)[0].Required, r.Results.(result.ResultList)[0].RequiredBy = true, []string{"profiles.strict.require[0]"}
	var buf bytes.Buffer
	if err := (JUnit{}).Output(&buf, r); err != nil {
		t.Fatal(err)
	}
	failed := checkJUnit(t, buf.Bytes())
	if len(failed) != 1 {
		t.Fatalf("%d failed testcases, want the one violation", len(failed))
	}
	f := failed[0]
	file, _ := f.attr("file")
	line, _ := f.attr("line")
	if name, _ := f.attr("name"); name != "C02 D1 T2" || file != "obs/go-sdk/v1.8.0/default.jsonl" || line != "7" {
		t.Errorf("the failed testcase is %q at %s:%s, want C02 D1 T2 at obs/go-sdk/v1.8.0/default.jsonl:7", name, file, line)
	}
	if !regexp.MustCompile(`<testsuites [^>]*tests="3" failures="1" errors="0" skipped="2"`).Match(buf.Bytes()) {
		t.Errorf("want the violation failed and the two unrequired findings skipped:\n%s", buf.String())
	}
}
