package main

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// c04Record returns the control lane's first record of the conflict fixture C04.
func c04Record(t *testing.T) string {
	t.Helper()
	data, err := fs.ReadFile(contractcheck.Builtin, "fixtures/observations/direct/v1/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"fixture":"C04"`) && strings.Contains(l, `"stage":"D1"`) && strings.Contains(l, `"repetition":1`) {
			return l
		}
	}
	t.Fatal("no C04 D1 record in the control lane")
	return ""
}

func TestCompare(t *testing.T) {
	t.Parallel()
	rec := c04Record(t)
	rep2 := strings.Replace(rec, `"repetition":1`, `"repetition":2`, 1)
	altered := strings.Replace(rep2, `"structuredContent":{"decision":"deny"`, `"structuredContent":{"decision":"allow"`, 1)
	if altered == rep2 {
		t.Fatal("the C04 record no longer holds the decision this test alters")
	}
	runCases(t, true, []cliCase{
		// One run of the whole built-in text report holds both what it shows and how it orders it.
		// The flags' cases read one fixture's built-in readings: what they check (a section, a
		// heading, a format) shows on any fixture with a reading that is not a match for every
		// decoder (C01, C04) or a visibility row (V01), at a fifth of the whole report's cost.
		{name: "built-in text: differences first, whole-value totals, long list behind --details", code: 0,
			inStdout: []string{"Matches per decoder policy", "Totals by readout kind", "Configuration comparison", "openai-agents 0.22.0: default → use-structured-content", "Null-policy sensitivity: strict vs optional-null", "What reaches the model, and what each decoder recovers",
				"Where the decoders differ: ", "lane losses left out", "whole value", "--details lists them"}},
		{name: "built-in text --details lists every reading", args: []string{"--details", "--fixture", "C01"}, code: 0,
			inStdout: []string{"Readings that are not a match for every decoder (stages with the same readouts folded)", "the readings (stages with the same readouts folded):"}},
		{name: "the _meta profile's heading says what it changes", args: []string{"--null-profile", "withhold-private-meta", "--fixture", "C04"}, code: 0,
			inStdout: []string{"_meta-policy sensitivity: strict vs withhold-private-meta (the result _meta policy: preserve → withhold private keys at M3 H4)"}},
		{name: "built-in json", args: []string{"--format", "json", "--fixture", "V01"}, code: 0, inStdout: []string{`"compareVersion": 4`, `"slot-or-json-text"`, `"visibility": [`}},
		{name: "built-in markdown, one decoder", args: []string{"--format", "markdown", "--decoder", "slot-or-json-text", "--fixture", "C04"}, code: 0, inStdout: []string{"| `slot-or-json-text` |"}},
		{name: "agreeing repetitions", records: []string{rec, rep2}, code: 0, inStdout: []string{"target readings: 4, captured 4, unstable 0"}},
		{name: "disagreeing repetitions: the instrument failed", records: []string{rec, altered}, code: 3, inStdout: []string{"UNSTABLE C04 /decision direct v1 default D1", "repetitions disagree"}},
		{name: "unknown decoder", args: []string{"--decoder", "nope"}, code: 2, inStderr: []string{`unknown decoder policy "nope"`}},
		{name: "unknown format", args: []string{"--format", "yaml"}, code: 2, inStderr: []string{`unknown format "yaml"`}},
		{name: "unknown null profile", args: []string{"--null-profile", "nope"}, code: 2, inStderr: []string{`unknown profile "nope"`}},
		{name: "null profile is the profile", args: []string{"--null-profile", "strict"}, code: 2, inStderr: []string{"is the profile itself"}},
		{name: "malformed record", records: []string{rec, `{"fixture": "C04",`}, code: 2, inStderr: []string{"obs/x.jsonl:2:"}},
	}, "compare")
}

// TestCompareCustomDecoder selects a decoder policy of the user's, in a --policies layer beside the
// built-in policies.
func TestCompareCustomDecoder(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "policies")
	testkit.WriteFile(t, filepath.Join(p, "decoders", "always_missing.rego"), `package contractcheck.decoders.always_missing

import data.contractcheck.lib.decoders

readout := decoders.readout(decoders.expected, {})
`)

	// One fixture's readings: a decoder that reads nothing matches none of them, as of all.
	code, stdout, stderr := cli(t, "compare", "--policies", p, "--decoder", "always-missing,native-slot", "--format", "markdown", "--fixture", "C04")
	if code != 0 || !strings.Contains(stdout, "| `always-missing` | per field | 0 | ") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCompareIntroducedWholeValue gives C01 (text only: its source has no structured value) a
// carrier with structuredContent: with the whole-value target "" declared on C01, a decoder that
// reads the value there counts it introduced.
func TestCompareIntroducedWholeValue(t *testing.T) {
	t.Parallel()
	data, err := fs.ReadFile(contractcheck.Builtin, "fixtures/observations/direct/v1/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var rec string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"fixture":"C01"`) && strings.Contains(l, `"stage":"D1"`) && strings.Contains(l, `"repetition":1`) {
			rec = l
		}
	}
	altered := strings.Replace(rec, `"carrier":{"content":`, `"carrier":{"structuredContent":{"eta":"14 November"},"content":`, 1)
	if rec == "" || altered == rec {
		t.Fatal("no C01 D1 record of the control lane with the carrier this test alters")
	}
	obs := filepath.Join(t.TempDir(), "obs")
	testkit.WriteFile(t, filepath.Join(obs, "x.jsonl"), altered+"\n")
	stdout, _ := cliOK(t, "compare", "--observations", obs, "--decoder", "native-slot", "--format", "json")
	var r struct {
		Readouts []struct {
			Fixture, Target string
			Readouts        map[string]map[string]any
		}
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, rd := range r.Readouts {
		if rd.Fixture == "C01" && rd.Target == "" {
			found = true
			if k := rd.Readouts["native-slot"]["kind"]; k != "introduced" {
				t.Errorf("C01 whole value: native-slot %v, want introduced", k)
			}
		}
	}
	if !found {
		t.Errorf("no C01 reading of the whole value \"\":\n%s", stdout)
	}
}

// TestCompareStudyFallbackControl runs compare with the study's JSON-text fallback
// (slot-then-json-text) beside slot-or-json-text on the built-in records of C01, text only, on
// the control lane: the prose comes back as it was sent and the source has no structured value,
// so the study's fallback reads the correct absence (match) where slot-or-json-text calls the
// prose unparseable.
func TestCompareStudyFallbackControl(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := cli(t, "compare", "--fixture", "C01", "--lane", "direct",
		"--decoder", "slot-then-json-text,slot-or-json-text,native-slot", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var r struct {
		Readouts []struct {
			Fixture, Lane, Stage, Target, State string
			Readouts                            map[string]map[string]any
		}
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"slot-then-json-text": "match", "native-slot": "match", "slot-or-json-text": "unparseable"}
	n := 0
	for _, rd := range r.Readouts {
		if rd.State != "captured" {
			continue
		}
		n++
		if rd.Fixture != "C01" || rd.Lane != "direct" || rd.Target != "" {
			t.Errorf("reading out of scope: %s %s %s %q", rd.Fixture, rd.Lane, rd.Stage, rd.Target)
		}
		for d, k := range want {
			if got := rd.Readouts[d]["kind"]; got != k {
				t.Errorf("C01 direct %s: %s %v, want %s", rd.Stage, d, got, k)
			}
		}
	}
	if n < 4 {
		t.Errorf("%d captured C01 readings of the control lane, want one per stage D1 A2 M3 H4", n)
	}
}
