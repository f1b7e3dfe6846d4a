package censusdir

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	encjson "encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// reading is a reading whose values a census must keep exactly: a number past float64, hostile
// strings, diagnostics.
func reading(rep int) result.Reading {
	return result.Reading{
		Binding:    result.Binding{Position: result.Position{Fixture: "C01", Lane: "direct", LaneVersion: "v1\u2028*/", Configuration: "default", Stage: "D1"}, Task: "T1"},
		Repetition: rep, Origin: "captured", Outcome: result.Unmet, Error: "",
		Readout:     map[string]any{"n": encjson.Number("123456789012345678901234567890.5e-3"), "s": "<script>::error::\u202e"},
		Diagnostics: []result.Diagnostic{{"atom": "slot", "expected": encjson.Number("1e400")}},
		File:        "obs/a.jsonl", Line: 7,
	}
}

// TestRoundTrip writes readings across several parts and reads them back exactly, in order,
// with the visibility readings, and the marker that says the census is whole.
func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "census")
	w, err := Create(dir, strictSet)
	if err != nil {
		t.Fatal(err)
	}
	var want []result.Reading
	for rep := 1; rep <= partReadings+5; rep++ {
		r := reading(rep)
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
		if r.Fingerprint, err = result.Fingerprint(r.Outcome, r.Readout, r.Diagnostics); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	vis := &visibility.Reading{Group: visibility.Group{Lane: "direct", Version: "v1", Configuration: "default", Stage: "D1"},
		Fixture: "C01", Repetition: 1, State: "captured", Channels: map[string]string{"text": "json"}, Record: "obs/a.jsonl:7"}
	if err := w.AddVisibility(vis); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []result.Reading
	var gotVis []*visibility.Reading
	info, err := Read(dir, strictSet, func(r result.Reading) error { got = append(got, r); return nil },
		func(v *visibility.Reading) error { gotVis = append(gotVis, v); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !info.Complete || info.Parts != 2 || info.Readings != len(want) {
		t.Fatalf("info %+v, want complete, 2 parts, %d readings", info, len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readings read back differ: first %+v, want %+v", got[0], want[0])
	}
	if len(gotVis) != 1 || !reflect.DeepEqual(gotVis[0], vis) {
		t.Errorf("visibility read back %+v, want %+v", gotVis, vis)
	}
	if _, err := Create(dir, strictSet); err == nil || !strings.Contains(err.Error(), "already holds a census") {
		t.Errorf("a second census into the same directory: %v, want refused", err)
	}
}

// TestFingerprintStored: a reading's line holds its fingerprint, the one the reading carries or,
// when it carries none, the one result.Fingerprint gives; a reader takes the line's as written
// (the merge does not hash the readout again), and hashes a line of an older census that holds
// none.
func TestFingerprintStored(t *testing.T) {
	r := reading(1)
	computed, err := result.Fingerprint(r.Outcome, r.Readout, r.Diagnostics)
	if err != nil {
		t.Fatal(err)
	}
	var given [32]byte
	copy(given[:], strings.Repeat("\xab", 32))
	good := `{"reading":{"fixture":"C01","lane":"direct","version":"v1","configuration":"default","stage":"D1","task":"T1","repetition":1,"origin":"captured","outcome":"pass","file":"a","line":1}}`
	old, err := result.Fingerprint(result.Pass, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		write func(t *testing.T, dir string)
		want  [32]byte
		line  string // what the written line holds, when written by Writer
	}{
		{name: "written without one: computed", write: func(t *testing.T, dir string) { add(t, dir, r) },
			want: computed, line: `"fingerprint":"` + hex.EncodeToString(computed[:]) + `"`},
		{name: "written with one: kept", write: func(t *testing.T, dir string) {
			r := r
			r.Fingerprint = given
			add(t, dir, r)
		}, want: given, line: `"fingerprint":"` + strings.Repeat("ab", 32) + `"`},
		{name: "a line's taken as written", write: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"fingerprint":"`+strings.Repeat("ab", 32)+`"`, 1))
		}, want: given},
		{name: "an older census's line without one: hashed", write: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, good)
		}, want: old},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "census")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.write(t, dir)
			var got []result.Reading
			if _, err := Read(dir, strictSet, func(r result.Reading) error { got = append(got, r); return nil }, nil); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Fingerprint != tc.want {
				t.Fatalf("read %d readings, fingerprint %x, want one, %x", len(got), got[0].Fingerprint, tc.want)
			}
			if tc.line == "" {
				return
			}
			f, err := os.Open(filepath.Join(dir, "00000001.census.gz"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.line) {
				t.Errorf("the census holds\n%s\nwant it to hold %s", data, tc.line)
			}
		})
	}
}

// add writes a census of one reading into dir.
func add(t *testing.T, dir string, r result.Reading) {
	t.Helper()
	w, err := Create(dir, strictSet)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// part writes a part of the given lines, gzip'd, under name.
func part(t *testing.T, dir, name string, lines ...string) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(strings.Join(lines, "\n") + "\n"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testDigest is the contract set's digest the tests' censuses are of (strictSet).
const testDigest = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"

// strictSet is the contract set the tests' censuses are of.
var strictSet = Set{Profile: "strict", Digest: testDigest}

const header = `{"census":2,"profile":"strict","contractSet":"` + testDigest + `"}`

// TestReadRefuses: what is not a census is an error naming the file, the line and the JSON
// pointer; what is being written (a temporary name) is not read.
func TestReadRefuses(t *testing.T) {
	good := `{"reading":{"fixture":"C01","lane":"direct","version":"v1","configuration":"default","stage":"D1","task":"T1","repetition":1,"origin":"captured","outcome":"pass","file":"a","line":1}}`
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		profile string
		digest  string // of the contract set loaded: testDigest when ""
		want    string
	}{
		{name: "other profile", setup: func(t *testing.T, dir string) { part(t, dir, "00000001.census.gz", header, good) },
			profile: "optional-null", want: `00000001.census.gz:1: /profile: a census of profile "strict"`},
		{name: "other version", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", `{"census":3,"profile":"strict"}`)
		}, want: "00000001.census.gz:1: /census: not a census of format 2 (got 3)"},
		{name: "format 1, without its contract set", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", `{"census":1,"profile":"strict"}`, good)
		}, want: "00000001.census.gz:1: /census: a census of format 1, written by an older contractcheck: it does not name its contract set"},
		{name: "no contract set", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", `{"census":2,"profile":"strict"}`, good)
		}, want: "00000001.census.gz:1: /contractSet: want a string (the digest of the census's contract set), got"},
		{name: "other contract set", setup: func(t *testing.T, dir string) { part(t, dir, "00000001.census.gz", header, good) },
			digest: strings.Repeat("0a", 32), want: "00000001.census.gz:1: /contractSet: a census of contract set " + testDigest + "; the one loaded is " + strings.Repeat("0a", 32)},
		{name: "marker of other contract set", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, good)
			os.WriteFile(filepath.Join(dir, CompleteFile), []byte(`{"census":2,"profile":"strict","contractSet":"`+strings.Repeat("0b", 32)+`","parts":1,"readings":1}`), 0o644)
		}, want: "complete.json:1: /contractSet: a census of contract set " + strings.Repeat("0b", 32)},
		{name: "unknown field", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"extra":true`, 1))
		}, want: "00000001.census.gz:2: /reading/extra: not a field"},
		{name: "wrong type", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"repetition":1`, `"repetition":"1"`, 1))
		}, want: "00000001.census.gz:2: /reading/repetition: want a whole number"},
		{name: "not an outcome", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"pass"`, `"unstable"`, 1))
		}, want: `00000001.census.gz:2: /reading/outcome: not an outcome: "unstable"`},
		{name: "fingerprint not a string", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"fingerprint":1`, 1))
		}, want: "00000001.census.gz:2: /reading/fingerprint: want a string, got number"},
		{name: "fingerprint short", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"fingerprint":"abcd"`, 1))
		}, want: `00000001.census.gz:2: /reading/fingerprint: want 64 lower-case hexadecimal digits (the reading's SHA-256), got "abcd"`},
		{name: "fingerprint in upper case", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"fingerprint":"`+strings.Repeat("AB", 32)+`"`, 1))
		}, want: "00000001.census.gz:2: /reading/fingerprint: want 64 lower-case hexadecimal digits"},
		{name: "fingerprint not hexadecimal", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"fingerprint":"`+strings.Repeat("zz", 32)+`"`, 1))
		}, want: "00000001.census.gz:2: /reading/fingerprint: want 64 lower-case hexadecimal digits"},
		{name: "a reading's key twice", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"line":2`, 1))
		}, want: `00000001.census.gz:2:183: duplicate key "line" (first occurrence at 2:174)`},
		{name: "a line's key twice", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `}}`, `},"reading":{}}`, 1))
		}, want: `00000001.census.gz:2:184: duplicate key "reading" (first occurrence at 2:2)`},
		{name: "a key twice in a readout", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"readout":{"a":1,"a":1}`, 1))
		}, want: `00000001.census.gz:2:200: duplicate key "a" (first occurrence at 2:194)`},
		{name: "a line not an object", setup: func(t *testing.T, dir string) { part(t, dir, "00000001.census.gz", header, `["reading"]`) },
			want: "00000001.census.gz:2: /: want an object, got array"},
		{name: "a reading not an object", setup: func(t *testing.T, dir string) { part(t, dir, "00000001.census.gz", header, `{"reading":"C01"}`) },
			want: "00000001.census.gz:2: /reading: want an object, got string"},
		{name: "a reading null", setup: func(t *testing.T, dir string) { part(t, dir, "00000001.census.gz", header, `{"reading":null}`) },
			want: "00000001.census.gz:2: /reading: want an object, got null"},
		{name: "two members", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `}}`, `},"visibility":{}}`, 1))
		}, want: "00000001.census.gz:2: /: a census line holds one of reading, visibility"},
		{name: "no member", setup: func(t *testing.T, dir string) { part(t, dir, "00000001.census.gz", header, `{}`) },
			want: "00000001.census.gz:2: /: a census line holds one of reading, visibility"},
		{name: "a line's unknown member", setup: func(t *testing.T, dir string) { part(t, dir, "00000001.census.gz", header, `{"readings":{}}`) },
			want: "00000001.census.gz:2: /readings: not a field of a census line"},
		{name: "a member missing", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"fixture":"C01",`, "", 1))
		}, want: "00000001.census.gz:2: /reading/fixture: want a string, got null"},
		{name: "a string member of another kind", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"lane":"direct"`, `"lane":["direct"]`, 1))
		}, want: "00000001.census.gz:2: /reading/lane: want a string, got array"},
		{name: "a repetition past int", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"repetition":1`, `"repetition":123456789012345678901234567890`, 1))
		}, want: "00000001.census.gz:2: /reading/repetition: want a whole number, got 123456789012345678901234567890"},
		{name: "a line number not whole", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1.0`, 1))
		}, want: "00000001.census.gz:2: /reading/line: want a whole number, got 1.0"},
		{name: "a readout not an object", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"readout":[1]`, 1))
		}, want: "00000001.census.gz:2: /reading/readout: want an object, got array"},
		{name: "a diagnostic not an object", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"line":1`, `"line":1,"diagnostics":[{},"x"]`, 1))
		}, want: "00000001.census.gz:2: /reading/diagnostics/1: want an object, got string"},
		{name: "invalid UTF-8 in a reading", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, strings.Replace(good, `"C01"`, "\"C\xff1\"", 1))
		}, want: "00000001.census.gz:2:25: invalid UTF-8 byte 0xff in string"},
		{name: "not json", setup: func(t *testing.T, dir string) { part(t, dir, "00000001.census.gz", header, `{"reading":`) },
			want: "00000001.census.gz"},
		{name: "not gzip", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "00000001.census.gz"), []byte(header), 0o644)
		}, want: "00000001.census.gz: not gzip"},
		{name: "marker names parts the directory lacks", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, good)
			os.WriteFile(filepath.Join(dir, CompleteFile), []byte(`{"census":2,"profile":"strict","contractSet":"`+testDigest+`","parts":2,"readings":2}`), 0o644)
		}, want: "complete.json: the census is complete with 2 parts and 2 readings, the directory holds 1 and 1"},
		{name: "only a part being written", setup: func(t *testing.T, dir string) { part(t, dir, ".tmp-00000001.census.gz", header, good) },
			want: "no census part"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			set := strictSet
			if tc.profile != "" {
				set.Profile = tc.profile
			}
			if tc.digest != "" {
				set.Digest = tc.digest
			}
			_, err := Read(dir, set, func(result.Reading) error { return nil }, func(*visibility.Reading) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestReadWhileWritten reads a census again and again while its writer adds parts: every read
// sees whole parts only (a multiple of the part's readings, each reading exact), and a read that
// says the census is complete has every reading.
func TestReadWhileWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "census")
	w, err := Create(dir, strictSet)
	if err != nil {
		t.Fatal(err)
	}
	const perPart, parts = 50, 40
	w.perPart = perPart
	done := make(chan error, 1)
	go func() {
		for rep := 1; rep <= perPart*parts; rep++ {
			if err := w.Add(reading(rep)); err != nil {
				done <- err
				return
			}
		}
		done <- w.Close()
	}()
	check := func() Info {
		info, err := Read(dir, strictSet, func(r result.Reading) error {
			if want := reading(r.Repetition); r.Readout["s"] != want.Readout["s"] || r.Line != want.Line {
				t.Errorf("reading %d read back as %+v", r.Repetition, r)
			}
			return nil
		}, func(*visibility.Reading) error { return nil })
		if err != nil && !strings.Contains(err.Error(), "no census part") {
			t.Fatalf("a read while the census is written: %v", err)
		}
		if info.Readings%perPart != 0 || info.Parts*perPart != info.Readings {
			t.Fatalf("a read saw %d readings in %d parts: not whole parts of %d", info.Readings, info.Parts, perPart)
		}
		return info
	}
	reads := 0
	for writing := true; writing; reads++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			writing = false
		default:
		}
		if info := check(); info.Complete && info.Readings != perPart*parts {
			t.Fatalf("a census read as complete with %d of its %d readings", info.Readings, perPart*parts)
		}
	}
	if info := check(); !info.Complete || info.Readings != perPart*parts {
		t.Fatalf("after the writer: %+v, want complete with %d readings", info, perPart*parts)
	}
	t.Logf("%d reads while the census was written", reads)
}

// TestBatches: a census of decision logs written a batch a part, across a writer opened again
// (a restart, with a part a crash cut short left behind), reads back every reading and error
// decision exactly, in order, and the window of the batches; an empty batch is a part too.
func TestBatches(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "census")
	at := func(s int) time.Time { return time.Date(2026, 12, 6, 7, 5, s, 123456789, time.UTC) }
	derr := result.DecisionError{At: "batches/x.json.gz: event 2", Decision: "id-<script>\u2028", Error: `{"code":"eval_error"}`}
	for _, tc := range []struct {
		name     string
		batch    Batch
		readings []result.Reading
		errs     []result.DecisionError
		reopen   bool
	}{
		{name: "two readings", batch: Batch{Seq: 3, Received: at(1)}, readings: []result.Reading{reading(1), reading(2)}},
		{name: "an error decision", batch: Batch{Seq: 4, Received: at(2)}, readings: []result.Reading{reading(3)}, errs: []result.DecisionError{derr}},
		{name: "after a restart", batch: Batch{Seq: 9, Received: at(5)}, readings: []result.Reading{reading(4)}, reopen: true},
		{name: "an empty batch", batch: Batch{Seq: 10, Received: at(6)}, reopen: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.reopen {
				part(t, dir, ".tmp-00000077.census.gz", header)
			}
			before, _ := Parts(dir)
			w, err := Open(dir, strictSet)
			if err != nil {
				t.Fatal(err)
			}
			if tc.reopen {
				if _, err := os.Stat(filepath.Join(dir, ".tmp-00000077.census.gz")); !os.IsNotExist(err) {
					t.Errorf("the part a crash cut short is still there (%v)", err)
				}
			}
			if err := w.AddBatch(tc.batch, tc.readings, tc.errs); err != nil {
				t.Fatal(err)
			}
			parts, _ := Parts(dir)
			if len(parts) != len(before)+1 || parts[len(parts)-1] != fmt.Sprintf("%08d.census.gz", len(before)+1) {
				t.Fatalf("parts %v after %v: want one more, numbered on", parts, before)
			}
			var got []result.Reading
			var gotErrs []result.DecisionError
			var batches []Batch
			info, err := ReadWith(dir, strictSet, Handlers{
				Part: func(_ string, h Header) error { batches = append(batches, *h.Batch); return nil },
				Reading: func(r result.Reading) error {
					got = append(got, r)
					return nil
				},
				Visibility:    func(*visibility.Reading) error { return nil },
				DecisionError: func(e result.DecisionError) error { gotErrs = append(gotErrs, e); return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			last := got[len(got)-len(tc.readings):]
			for i, r := range tc.readings {
				r.Fingerprint, _ = result.Fingerprint(r.Outcome, r.Readout, r.Diagnostics)
				if !reflect.DeepEqual(last[i], r) {
					t.Errorf("reading %d read back as %+v, want %+v", i, last[i], r)
				}
			}
			if len(tc.errs) > 0 && !reflect.DeepEqual(gotErrs[len(gotErrs)-1], derr) {
				t.Errorf("error decision read back as %+v", gotErrs)
			}
			if b := batches[len(batches)-1]; b.Seq != tc.batch.Seq || !b.Received.Equal(tc.batch.Received) {
				t.Errorf("the part's batch %+v, want %+v", b, tc.batch)
			}
			if !info.Decisions || info.Complete || info.Window.Batches != len(parts) || info.Window.FirstSeq != 3 ||
				info.Window.LastSeq != tc.batch.Seq || !info.Window.Last.Equal(tc.batch.Received) {
				t.Errorf("info %+v", info)
			}
			if s := info.String(); !strings.Contains(s, info.Window.String()) {
				t.Errorf("the note %q does not say the window", s)
			}
		})
	}
}

// TestBatchesRefused: what a census of decision logs cannot hold is an error naming the file, the
// line and the pointer: a part of a check's census among batches, an error decision in a check's
// part, a batch header that is not one; and a census marked complete is not opened to add to.
func TestBatchesRefused(t *testing.T) {
	good := `{"reading":{"fixture":"C01","lane":"direct","version":"v1","configuration":"default","stage":"D1","task":"T1","repetition":1,"origin":"captured","outcome":"pass","file":"a","line":1}}`
	batchHeader := `{"census":2,"profile":"strict","contractSet":"` + testDigest + `","batch":{"seq":1,"received":"2026-12-06T07:05:45Z"}}`
	derr := `{"decisionError":{"at":"a: event 1","decision":"d","error":"e"}}`
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		open  bool // the error is Open's
		want  string
	}{
		{name: "a check's part after a batch", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", batchHeader, good)
			part(t, dir, "00000002.census.gz", header, good)
		}, want: "00000002.census.gz: a part of a check (check --census-out), after parts of decision logs"},
		{name: "an error decision in a check's part", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, derr)
		}, want: "00000001.census.gz:2: /decisionError: not a field of a census line"},
		{name: "a batch received at no time", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", strings.Replace(batchHeader, "2026-12-06T07:05:45Z", "yesterday", 1))
		}, want: `00000001.census.gz:1: /batch/received: not a time (RFC 3339): "yesterday"`},
		{name: "a batch without its sequence", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", strings.Replace(batchHeader, `"seq":1,`, "", 1))
		}, want: "00000001.census.gz:1: /batch/seq: want a whole number"},
		{name: "an error decision without its error", setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", batchHeader, strings.Replace(derr, `,"error":"e"`, "", 1))
		}, want: "00000001.census.gz:2: /decisionError/error: want a string"},
		{name: "open a complete census", open: true, setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", header, good)
			os.WriteFile(filepath.Join(dir, CompleteFile), []byte(`{"census":2,"profile":"strict","contractSet":"`+testDigest+`","parts":1,"readings":1}`), 0o644)
		}, want: "marked complete"},
		{name: "open a census of another profile", open: true, setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", strings.Replace(batchHeader, "strict", "optional-null", 1))
		}, want: `00000001.census.gz:1: /profile: a census of profile "optional-null"`},
		{name: "open a census of another contract set", open: true, setup: func(t *testing.T, dir string) {
			part(t, dir, "00000001.census.gz", strings.Replace(batchHeader, testDigest, strings.Repeat("0c", 32), 1))
		}, want: "00000001.census.gz:1: /contractSet: a census of contract set " + strings.Repeat("0c", 32) + "; the one loaded is " + testDigest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			var err error
			if tc.open {
				_, err = Open(dir, strictSet)
			} else {
				_, err = ReadWith(dir, strictSet, Handlers{Reading: func(result.Reading) error { return nil },
					Visibility: func(*visibility.Reading) error { return nil }, DecisionError: func(result.DecisionError) error { return nil }})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// BenchmarkRead measures the read side of a merge (check --census A --census B): a census of
// 50,000 readings, each with a readout, diagnostics and hostile strings, read back line by line
// into readings (decoded on every core, fingerprinted) and handed over in order.
//
//	go test ./internal/censusdir -run XXX -bench Read
func BenchmarkRead(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "census")
	w, err := Create(dir, strictSet)
	if err != nil {
		b.Fatal(err)
	}
	const n = 50_000
	for rep := 1; rep <= n; rep++ {
		if err := w.Add(reading(rep)); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got := 0
		if _, err := Read(dir, strictSet, func(result.Reading) error { got++; return nil }, func(*visibility.Reading) error { return nil }); err != nil {
			b.Fatal(err)
		}
		if got != n {
			b.Fatalf("%d readings read, want %d", got, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/reading")
}

// TestReadingFields: every member of a reading's object is found by readingField at its index,
// and nothing else is.
func TestReadingFields(t *testing.T) {
	for i, f := range readingFields {
		if got := readingField(f); got != i {
			t.Errorf("readingField(%q) = %d, want %d", f, got, i)
		}
	}
	for _, k := range []string{"", "Fixture", "visibility", "reading"} {
		if got := readingField(k); got != -1 {
			t.Errorf("readingField(%q) = %d, want -1", k, got)
		}
	}
}
