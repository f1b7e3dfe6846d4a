// Package reportkit holds the helpers about reports that the tests of several packages share, so
// that each is written once: the decision-log events a stock OPA logs for check's own evaluation
// of the built-in records, a report rendered in a format, and a JSON report (check's, compare's,
// study's) held to its schema. Only tests import it; it loads the engine, so the packages below
// the instrument use package testkit instead.
package reportkit

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// DecisionEvents makes, from check's own evaluation of the records opts selects, the decision-log
// events a stock OPA serving the bundle logs for them (built with --quote-data: the user's data
// quoted, so the report read back is check's own): one event per captured record, its carrier
// masked, posted with its repetition and its place (record). The records not captured have no
// decision. t fails when no record is captured: there would be nothing to log.
func DecisionEvents(t testing.TB, opts inputs.Options) []map[string]any {
	t.Helper()
	ctx := context.Background()
	in, err := instrument.Load(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	files, err := in.Options().RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	err = in.ReadRecords(ctx, files, func(rec *instrument.Record) error {
		if rec.State != "captured" {
			return nil
		}
		rs, err := in.Evaluate(ctx, rec)
		if err != nil {
			return err
		}
		var results []any
		for _, r := range rs {
			tr, err := decisionlog.EncodeTaskResult(r.Task, r.Outcome, r.Diagnostics, r.Readout, true)
			if err != nil {
				return err
			}
			results = append(results, tr)
		}
		input := map[string]any{"fixture": rec.Fixture, "lane": rec.Lane, "laneVersion": rec.LaneVersion, "configuration": rec.Configuration,
			"stage": rec.Stage, "repetition": rec.Repetition, "record": map[string]any{"file": rec.File, "line": rec.Line}}
		res := maps.Clone(input)
		res["profile"], res["results"] = in.Options().Profile, results
		events = append(events, DecisionEvent(fmt.Sprintf("id-%d", len(events)), map[string]any{
			"input": input, "erased": []any{"/input/carrier"}, "result": res, "labels": map[string]any{"id": "opa-1"},
		}))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 {
		t.Fatal("no captured record: nothing to log")
	}
	return events
}

// DropEvery is events without every n-th one from index at (those whose index is at modulo n), as
// OPA's decision-log buffer drops decisions when it is full: what a collector then lacks. events
// is left as it was.
func DropEvery[E any](events []E, n, at int) []E {
	var out []E
	for i, ev := range events {
		if i%n != at {
			out = append(out, ev)
		}
	}
	return out
}

// ConsoleLog is events as OPA's console decision logger writes them: one JSON object per line.
func ConsoleLog(t testing.TB, events []map[string]any) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, ev := range events {
		line, err := strictjson.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// GzipBatch is events as OPA's decision-log plugin uploads them: a JSON array, gzip-compressed.
func GzipBatch(t testing.TB, events []map[string]any) []byte {
	t.Helper()
	arr := make([]any, len(events))
	for i, e := range events {
		arr[i] = e
	}
	data, err := strictjson.Marshal(arr)
	if err != nil {
		t.Fatal(err)
	}
	return Gzip(t, data)
}

// Gzip is data gzip-compressed.
func Gzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// GunzipFile is the content of the gzip-compressed file (an uploaded batch, as Gzip or a stock
// OPA's decision-log plugin writes it); t fails when file cannot be read or is not gzip.
func GunzipFile(t testing.TB, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return text
}

// DecisionEvent is an event OPA logs for a decision of contractcheck/decision: id and members
// besides the path, level and message every such event has.
func DecisionEvent(id string, members map[string]any) map[string]any {
	ev := map[string]any{"decision_id": id, "path": decisionlog.Path, "level": "info", "msg": "Decision Log"}
	maps.Copy(ev, members)
	return ev
}

// Render is the report r in format, as the check report's registered formatter for it writes it.
func Render(t testing.TB, r *result.Report, format string) string {
	t.Helper()
	return string(RenderWith(t, r, format, report.Options{}))
}

// RenderWith is Render with the formatter's options (--details, the style).
func RenderWith(t testing.TB, r *result.Report, format string, opts report.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.Outputters().Write(&b, format, opts, r); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return b.Bytes()
}

// EveryFormat is the report r in every registered format, with and without --details, keyed
// "<format> details=<bool>": what a test holds byte for byte against another way of making r.
func EveryFormat(t testing.TB, r *result.Report) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, format := range report.Outputters().Names() {
		for _, details := range []bool{false, true} {
			out[fmt.Sprintf("%s details=%v", format, details)] = RenderWith(t, r, format, report.Options{Details: details})
		}
	}
	return out
}

// SameAsCheck holds got, a report read from decision logs (from says where: "the decision logs",
// "collect's directory"), to check's report want of the same records: byte for byte in each
// format, a difference shown by its first line (LineDiff).
func SameAsCheck(t testing.TB, from string, got, want *result.Report, formats ...string) {
	t.Helper()
	for _, format := range formats {
		if g, w := Render(t, got, format), Render(t, want, format); g != w {
			t.Errorf("%s report from %s differs from check's:\n%s", format, from, LineDiff(g, w))
		}
	}
}

// LineDiff shows the first line where a rendered report from decision logs (got) and check's
// (want) differ, or their lengths in lines.
func LineDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d:\n  decision logs: %s\n  check:         %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(gl), len(wl))
}

// ReportSchemaError is why the JSON report data does not validate against the built-in report
// schema, or nil when it does; t fails when data is not strict JSON or the schemas do not load.
func ReportSchemaError(t testing.TB, data []byte) error {
	t.Helper()
	return Schemas(t).ValidateReport(JSONDoc(t, "report.json", data))
}

// JSONDoc is data decoded as strict JSON (name names it in the error), the tree the schema
// validators take; t fails at once when data is not strict JSON.
func JSONDoc(t testing.TB, name string, data []byte) any {
	t.Helper()
	doc, err := strictjson.Decode(name, data, strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Schemas is the validator of the built-in schemas, which holds every report format's schema
// (check, compare, study); t fails at once when they do not load.
func Schemas(t testing.TB) *schema.Validator {
	t.Helper()
	sfs, err := fs.Sub(contractcheck.Builtin, "schemas")
	if err != nil {
		t.Fatal(err)
	}
	v, err := schema.New(sfs)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
