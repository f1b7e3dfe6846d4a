package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// failingLayer is a user's profile that fails: it requires the control lane to keep C01's content
// (T1) at every stage, and the records given hold one, at M3, whose text was changed.
const failingLayer = `package contracts

profiles: "keep-c01": {
	doc:        "The control lane keeps C01's content at every stage."
	nullPolicy: "strict"
	require: [{
		doc: "direct keeps C01 whole"
		lanes: ["direct"]
		fixtures: ["C01"]
		tasks: ["T1"]
		outcomes: ["pass"]
	}]
}
`

// TestFailingProfileInCIFormats runs a user profile that fails on a user's observations directory
// and reads the verdict in each CI format: a JUnit failure, a GitHub ::error and a SARIF result,
// each located at the failing record's .jsonl file and line (3), the SARIF log valid against the
// pinned SARIF 2.1.0 schema; and with --output the verdict still reaches stderr.
func TestFailingProfileInCIFormats(t *testing.T) {
	schemaFile, err := filepath.Abs("../../internal/report/testdata/sarif/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	var recs []string
	for _, st := range []string{"D1", "A2", "M3", "H4"} {
		rec := builtinLine(t, "fixtures/observations/direct/v1/default.jsonl", `"fixture":"C01"`, `"stage":"`+st+`"`, `"repetition":1`)
		if st == "M3" {
			altered := strings.Replace(rec, `"text":"Shipment`, `"text":"Parcel`, 1)
			if altered == rec {
				t.Fatal("the C01 record no longer holds the text this test alters")
			}
			rec = altered
		}
		recs = append(recs, rec)
	}
	testkit.WriteFile(t, filepath.Join("obs", "direct.jsonl"), strings.Join(recs, "\n")+"\n")
	testkit.WriteFile(t, filepath.Join("mine", "keep.cue"), failingLayer)
	args := []string{"check", "--contracts", "mine", "--profile", "keep-c01", "--observations", "obs", "--lane", "direct"}
	const file, line = "obs/direct.jsonl", "3"

	t.Run("junit", func(t *testing.T) {
		code, stdout, stderr := cli(t, append(args, "--format", "junit")...)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		var doc struct {
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Cases []struct {
					Name    string `xml:"name,attr"`
					File    string `xml:"file,attr"`
					Line    string `xml:"line,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		var failed []string
		for _, s := range doc.Suites {
			for _, c := range s.Cases {
				if c.Failure != nil {
					failed = append(failed, c.Name+" "+c.File+":"+c.Line+" "+c.Failure.Message)
				}
			}
		}
		if doc.Failures != 1 || len(failed) != 1 || !strings.HasPrefix(failed[0], "C01 M3 T1 "+file+":"+line+" unmet") {
			t.Errorf("failures %d %q, want one: C01 M3 T1 at %s:%s\n%s", doc.Failures, failed, file, line, stdout)
		}
	})

	t.Run("github", func(t *testing.T) {
		code, stdout, stderr := cli(t, append(args, "--format", "github")...)
		errs := regexp.MustCompile(`(?m)^::error file=([^,]*),line=(\d+),title=([^:]*)::`).FindAllStringSubmatch(stdout, -1)
		if code != 1 || len(errs) != 1 || errs[0][1] != file || errs[0][2] != line || !strings.Contains(errs[0][3], "C01") {
			t.Errorf("exit %d, ::error annotations %q, want one at %s line %s\n%s%s", code, errs, file, line, stdout, stderr)
		}
	})

	t.Run("sarif", func(t *testing.T) {
		code, stdout, stderr := cli(t, append(args, "--format", "sarif")...)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		if err := testkit.SARIFSchemaError(t, schemaFile, []byte(stdout)); err != nil {
			t.Errorf("the SARIF output is not valid SARIF 2.1.0: %v", err)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID    string `json:"ruleId"`
					Level     string `json:"level"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI string } `json:"artifactLocation"`
							Region           struct{ StartLine int }
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(stdout), &log); err != nil {
			t.Fatal(err)
		}
		var errors []string
		for _, r := range log.Runs[0].Results {
			if r.Level == "error" && len(r.Locations) == 1 {
				loc := r.Locations[0].PhysicalLocation
				errors = append(errors, r.RuleID+" "+loc.ArtifactLocation.URI+":"+strconv.Itoa(loc.Region.StartLine))
			}
		}
		if len(errors) == 0 {
			t.Fatalf("no error result\n%s", stdout)
		}
		for _, e := range errors {
			if !strings.HasPrefix(e, "T1/") || !strings.HasSuffix(e, " "+file+":"+line) {
				t.Errorf("error result %q, want a T1 rule at %s:%s", e, file, line)
			}
		}
	})

	t.Run("markdown", func(t *testing.T) {
		code, stdout, stderr := cli(t, append(args, "--format", "markdown")...)
		row := "| C01 | `direct` | v1 | default | M3 | T1 | unmet | `block.primary altered` | `" + file + ":" + line + "` | direct keeps C01 whole |"
		if code != 1 || !strings.Contains(stdout, "**Gate:** profile `keep-c01` **NOT satisfied** (1 violation, 4 bindings gated).") || !strings.Contains(stdout, row) {
			t.Errorf("exit %d, want 1, the gate and the violation at its record\n%s%s", code, stdout, stderr)
		}
	})

	t.Run("the verdict on stderr with --output", func(t *testing.T) {
		code, stdout, stderr := cli(t, append(args, "--format", "json", "--output", "report.json")...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "profile keep-c01 NOT satisfied") || !strings.Contains(stderr, "report written to report.json") {
			t.Errorf("exit %d, stdout %q, stderr %q: want the verdict and the report's path on stderr", code, stdout, stderr)
		}
		if _, err := os.Stat("report.json"); err != nil {
			t.Error(err)
		}
	})
}
