// Command agree checks that contractcheck and conftest flagged the same records for the decision
// scripts/bench gives both ("structuredContent kept at D1"): it reads contractcheck's JSON report
// (a check restricted to --stage D1 --task T2) and conftest's JSON output, and prints how many
// records each flagged and whether the sets are equal (exit 1 when they are not).
//
//	go run ./internal/bench/agree REPORT.json CONFTEST.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: agree REPORT.json CONFTEST.json")
		os.Exit(2)
	}
	ours, err := flaggedByContractcheck(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "agree:", err)
		os.Exit(2)
	}
	theirs, err := flaggedByConftest(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "agree:", err)
		os.Exit(2)
	}
	same := len(ours) == len(theirs)
	for k := range ours {
		if !theirs[k] {
			same = false
		}
	}
	fmt.Printf("contractcheck flagged %d records, conftest %d; the same records: %v\n", len(ours), len(theirs), same)
	if !same {
		os.Exit(1)
	}
}

// flaggedByContractcheck is the records (file line) of T2 bindings at D1 whose structured slot is
// missing where the source has one.
func flaggedByContractcheck(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r struct {
		Results []struct {
			Stage, Task string
			Diagnostics []map[string]any
			Records     []struct {
				File string
				Line int
			}
		}
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, res := range r.Results {
		if res.Stage != "D1" || res.Task != "T2" {
			continue
		}
		for _, d := range res.Diagnostics {
			if d["atom"] == "structured.state" && d["observed"] == "missing" {
				for _, rec := range res.Records {
					out[fmt.Sprint(rec.Line)] = true
				}
			}
		}
	}
	return out, nil
}

// flaggedByConftest is the records conftest denied, by line: the record files are named after
// their line in the observations file.
func flaggedByConftest(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var results []struct {
		Filename string
		Failures []any
	}
	if err := json.Unmarshal(data, &results); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range results {
		if len(r.Failures) > 0 {
			n := strings.TrimLeft(strings.TrimSuffix(filepath.Base(r.Filename), ".json"), "0")
			out[n] = true
		}
	}
	return out, nil
}
