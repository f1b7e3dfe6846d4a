package decisionlog

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/progress"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// testdata/console.log is a stock OPA v1.22.3's console output (opa run --server --bundle
// contracts.tar.gz --bundle mask --set decision_logs.console=true, carriers masked): four
// decisions on the first records of fixtures/observations/direct/v1/default.jsonl, posted with
// their repetition, source digest and place, one decision of another path, and OPA's own lines.

func readAll(t *testing.T, paths []string, stdin []byte) ([]*Decision, Counts, error) {
	t.Helper()
	var out []*Decision
	var in *bytes.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	var r = func() (Counts, error) {
		if in == nil {
			return Read(context.Background(), paths, nil, func(d *Decision) error { out = append(out, d); return nil })
		}
		return Read(context.Background(), paths, in, func(d *Decision) error { out = append(out, d); return nil })
	}
	c, err := r()
	return out, c, err
}

func TestReadConsole(t *testing.T) {
	ds, c, err := readAll(t, []string{"testdata/console.log"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Decisions != 4 || len(ds) != 4 || c.OtherPaths["contractcheck/contracts/profile"] != 1 || c.OtherLines != 16 || c.Files != 1 {
		t.Fatalf("counts %s (%+v), %d decisions", c, c, len(ds))
	}
	d := ds[0]
	if d.At() != "testdata/console.log:5" || d.Fixture != "C01" || d.Lane != "direct" || d.Stage != "D1" || d.Repetition != 1 || d.Profile != "strict" ||
		d.Record == nil || d.Record.Line != 1 || len(d.SourceSha256) != 64 || len(d.Results) != 2 || d.Results[0].Task != "T1" || d.Results[0].Outcome != "pass" {
		t.Errorf("first decision %+v", d)
	}
	if !strings.Contains(c.String(), `1 decisions of other paths not taken ("contractcheck/contracts/profile" 1)`) {
		t.Errorf("counts say %q", c)
	}
}

// TestReadProgress: a meter watching the read (the context's progress.Counter) sees every byte of
// every log, gzip-compressed or not, counted against the files' sizes known before the first is
// read, and one record per decision of the bundle's path; standard input makes the total unknown.
func TestReadProgress(t *testing.T) {
	plain, err := os.ReadFile("testdata/console.log")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	zipped := filepath.Join(dir, "console.log.gz")
	if err := os.WriteFile(zipped, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		paths     []string
		stdin     []byte
		bytes     int64
		decisions int64
		unknown   bool
	}{
		{name: "a file", paths: []string{"testdata/console.log"}, bytes: int64(len(plain)), decisions: 4},
		{name: "a file and its gzip", paths: []string{"testdata/console.log", zipped}, bytes: int64(len(plain) + gz.Len()), decisions: 8},
		{name: "standard input", paths: []string{StdinArg}, stdin: plain, bytes: int64(len(plain)), decisions: 4, unknown: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meter := &progress.Counter{}
			var stdin io.Reader
			if tc.stdin != nil {
				stdin = bytes.NewReader(tc.stdin)
			}
			if _, err := Read(progress.With(context.Background(), meter), tc.paths, stdin, func(*Decision) error { return nil }); err != nil {
				t.Fatal(err)
			}
			s := meter.Snapshot()
			total := tc.bytes
			if tc.unknown {
				total = 0
			}
			if s.Bytes != tc.bytes || s.BytesTotal != total || s.Records != tc.decisions || s.Unknown != tc.unknown {
				t.Errorf("snapshot %+v, want %d bytes of %d, %d decisions, unknown %v", s, tc.bytes, total, tc.decisions, tc.unknown)
			}
		})
	}
}

// TestReadFormats: the same events read as a batch (JSON array, gzip or not), a directory of files
// and standard input give the same decisions.
func TestReadFormats(t *testing.T) {
	log, err := os.ReadFile("testdata/console.log")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := readAll(t, []string{"testdata/console.log"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var events []any
	for _, l := range bytes.Split(log, []byte("\n")) {
		if v, err := strictjson.Decode("", l, strictjson.DefaultLimits); err == nil {
			if m := v.(map[string]any); m["decision_id"] != nil {
				events = append(events, m)
			}
		}
	}
	arr, err := strictjson.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(arr)
	zw.Close()
	dir := t.TempDir()
	lines := bytes.SplitAfter(log, []byte("\n"))
	os.WriteFile(filepath.Join(dir, "2.log"), bytes.Join(lines[10:], nil), 0o600)
	os.WriteFile(filepath.Join(dir, "1.log"), bytes.Join(lines[:10], nil), 0o600)
	write := func(name string, data []byte) string {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, data, 0o600)
		return p
	}
	for _, tc := range []struct {
		name  string
		paths []string
		stdin []byte
		batch bool
	}{
		{"batch", []string{write("batch.json", arr)}, nil, true},
		{"gzip batch", []string{write("batch.json.gz", gz.Bytes())}, nil, true},
		{"gzip console", []string{write("console.log.gz", gzipped(log))}, nil, false},
		{"directory", []string{dir}, nil, false},
		{"stdin", []string{"-"}, log, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, c, err := readAll(t, tc.paths, tc.stdin)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || c.Decisions != 4 {
				t.Fatalf("%d decisions (%s), want %d", len(got), c, len(want))
			}
			for i := range got {
				g, w := *got[i], *want[i]
				if tc.batch && (g.Line != i+1 || !g.Batch || !strings.Contains(g.At(), ": event ")) {
					t.Errorf("batch event %d at %s", i, g.At())
				}
				g.File, g.Line, g.Batch, w.File, w.Line, w.Batch = "", 0, false, "", 0, false
				gj, _ := json.Marshal(g)
				wj, _ := json.Marshal(w)
				if string(gj) != string(wj) {
					t.Errorf("decision %d:\n%s\nwant\n%s", i, gj, wj)
				}
			}
		})
	}
}

func gzipped(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

const good = `{"decision_id":"d1","path":"contractcheck/decision","result":{"profile":"strict","fixture":"C01","lane":"direct","laneVersion":"v1","configuration":"default","stage":"D1","repetition":1,"results":[{"task":"T1","outcome":"pass","diagnostics":[],"readout":{"json":"{}"}}]}}`

// TestReadErrors: an event on the decision path that cannot be taken is an error naming its line
// (or its place in a batch).
func TestReadErrors(t *testing.T) {
	edit := func(old, new string) string { return strings.Replace(good, old, new, 1) }
	for _, tc := range []struct{ name, log, want string }{
		{"no result", `{"decision_id":"d1","path":"contractcheck/decision"}`, `log:2: decision "d1": no result`},
		{"result erased", `{"decision_id":"d1","path":"contractcheck/decision","erased":["/result"]}`, "erased by a mask policy"},
		{"result partly erased", edit(`"path"`, `"erased":["/result/results"],"path"`), "erased part of the result"},
		{"no fixture", edit(`"fixture":"C01",`, ``), "result.fixture is absent or null, want a string"},
		{"bad repetition", edit(`"repetition":1`, `"repetition":0`), "result.repetition is 0, want an integer ≥ 1"},
		{"bad record", edit(`"repetition":1`, `"repetition":1,"record":{"file":"x"}`), `result.record is {"file":"x"}`},
		{"bad outcome", edit(`"outcome":"pass"`, `"outcome":"maybe"`), `results[0]: outcome "maybe" is not pass, unmet or instrument_failed`},
		{"unmet without diagnostics", edit(`"outcome":"pass"`, `"outcome":"unmet"`), "outcome unmet with 0 diagnostics"},
		{"no readout", edit(`,"readout":{"json":"{}"}`, ``), `readout is absent or null, want {"json": the readout's JSON text}`},
		{"a readout as an older bundle logs it", edit(`"readout":{"json":"{}"}`, `"readout":{"count":1}`), "readout is an object, want {\"json\": the readout's JSON text} (a bundle older than this reader"},
		{"a readout that is not an object", edit(`"readout":{"json":"{}"}`, `"readout":{"json":"[1]"}`), "readout holds an array, want an object"},
		{"a readout that is not JSON", edit(`"readout":{"json":"{}"}`, `"readout":{"json":"{"}`), "readout json is not one strict JSON value: column"},
		{"a value as an older bundle logs it", edit(`"outcome":"pass","diagnostics":[]`, `"outcome":"unmet","diagnostics":[{"atom":"a","path":"","kind":"altered","expected":9007199254740993}]`),
			"diagnostics[0].expected is a number, want {\"json\": text} or a description"},
		{"a quoted value with another member", edit(`"outcome":"pass","diagnostics":[]`, `"outcome":"unmet","diagnostics":[{"atom":"a","path":"","kind":"missing","expected":{"json":"1","x":1}}]`),
			`diagnostics[0].expected is {"json":"1","x":1}, want {"json": text}`},
		{"a description of an unknown type", edit(`"outcome":"pass","diagnostics":[]`, `"outcome":"unmet","diagnostics":[{"atom":"a","path":"","kind":"missing","expected":{"type":"date","sha256":"`+strings.Repeat("a", 64)+`"}}]`),
			`diagnostics[0].expected is {"sha256":"aaaa`},
		{"a description without its length", edit(`"outcome":"pass","diagnostics":[]`, `"outcome":"unmet","diagnostics":[{"atom":"a","path":"","kind":"missing","expected":{"type":"string","sha256":"`+strings.Repeat("a", 64)+`"}}]`),
			`want {"json": text} or a description {"type", "length" (of a string, an array or an object), "sha256"}`},
		{"a description with a short digest", edit(`"outcome":"pass","diagnostics":[]`, `"outcome":"unmet","diagnostics":[{"atom":"a","path":"","kind":"missing","expected":{"type":"number","sha256":"abc"}}]`),
			`diagnostics[0].expected is {"sha256":"abc","type":"number"}`},
		{"damaged", good[:80], "log:2: a damaged decision-log event: column"},
		{"decision id not a string", `{"decision_id":1}`, "decision_id is not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "log")
			os.WriteFile(p, []byte(good+"\n"+tc.log+"\n"), 0o600)
			_, _, err := readAll(t, []string{p}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error %v, want %q at %s", err, tc.want, p)
			}
		})
	}
	// A batch is read event by event; what it is refused for is what decoding it whole first
	// gave: not JSON or too large before a bad event.
	noResult := `{"decision_id":"d2","path":"contractcheck/decision"}`
	for _, tc := range []struct {
		name, batch string
		limit       int64  // maxLine, when not the default
		want        string // beside the file's name; "" for strictjson.Decode's error on the whole batch
	}{
		{name: "batch", batch: "[" + good + "," + noResult + "]", want: `batch.json: event 2: decision "d2": no result`},
		{name: "batch: a bad event, then not JSON", batch: "[" + good + "," + noResult + "," + good + ",{]"},
		{name: "batch: a bad event, then not JSON after the array", batch: "[" + good + "," + noResult + "] x"},
		{name: "batch: a bad event, then too large", batch: "[" + noResult + "," + good + "]", limit: int64(len(noResult) + 10), want: "over the limit of " + strconv.Itoa(len(noResult)+10) + " bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.limit > 0 {
				defer func(l int64) { maxLine = l }(maxLine)
				maxLine = tc.limit
			}
			p := filepath.Join(t.TempDir(), "batch.json")
			os.WriteFile(p, []byte(tc.batch), 0o600)
			want := tc.want
			if tc.want == "" {
				_, derr := strictjson.Decode(p, []byte(tc.batch), strictjson.DefaultLimits)
				if derr == nil {
					t.Fatal("the batch decodes whole")
				}
				want = derr.Error()
			}
			_, _, err := readAll(t, []string{p}, nil)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v, want %q and the file's name", err, want)
			}
		})
	}
	t.Run("stdin twice", func(t *testing.T) {
		if _, _, err := readAll(t, []string{"-", "-"}, []byte(good)); err == nil || !strings.Contains(err.Error(), "read once") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("empty directory", func(t *testing.T) {
		if _, _, err := readAll(t, []string{t.TempDir()}, nil); err == nil || !strings.Contains(err.Error(), "holds no file") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestReadErrorDecisions: a decision that is an error, not a verdict (OPA logged an error, or the
// bundle refused the input), is handed on as such, named with its file and line or its place in a
// batch, and the read goes on to the decisions after it.
func TestReadErrorDecisions(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		batch     bool
		at, err   string
		pos       result.Position // the members the logged input names as strings
	}{
		{name: "OPA error", log: `{"decision_id":"d1","path":"/contractcheck/decision","error":{"code":"eval_error"}}`,
			at: "log:2", err: `OPA logged an error: {"code":"eval_error"}`},
		{name: "refused input", log: `{"decision_id":"d1","path":"contractcheck/decision","input":{"fixture":"C01","lane":"x","laneVersion":1,"stage":"D1"},"result":{"errors":["unknown lane \"x\""]}}`,
			at: "log:2", err: `the bundle refused the input: ["unknown lane \"x\""]`, pos: result.Position{Fixture: "C01", Lane: "x", Stage: "D1"}},
		{name: "refused input in a batch", batch: true, log: `{"decision_id":"d1","path":"contractcheck/decision","result":{"errors":["no carrier"]}}`,
			at: "log: event 2", err: `the bundle refused the input: ["no carrier"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "log")
			data := good + "\n" + tc.log + "\n" + strings.Replace(good, `"d1"`, `"d3"`, 1) + "\n"
			if tc.batch {
				data = "[" + good + "," + tc.log + "," + strings.Replace(good, `"d1"`, `"d3"`, 1) + "]"
			}
			os.WriteFile(p, []byte(data), 0o600)
			ds, c, err := readAll(t, []string{p}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != 3 || c.Decisions != 3 {
				t.Fatalf("%d decisions handed on, %d counted, want 3", len(ds), c.Decisions)
			}
			d := ds[1]
			if at := d.At(); at != p+tc.at[len("log"):] || d.ID != "d1" || d.Error != tc.err || d.Results != nil {
				t.Errorf("decision at %s, id %q, error %q, results %v; want at %s, error %q", at, d.ID, d.Error, d.Results, p+tc.at[len("log"):], tc.err)
			}
			if d.Position != tc.pos {
				t.Errorf("position %+v, want %+v", d.Position, tc.pos)
			}
			if ds[0].Error != "" || ds[2].Error != "" || ds[2].ID != "d3" {
				t.Errorf("the decisions around it: %+v, %+v", ds[0], ds[2])
			}
		})
	}
}

// TestHostileStrings: hostile strings as a path, a decision id or a member of the result reach the
// counts and the messages quoted (the terminal sink escapes them again: escape.Terminal).
func TestHostileStrings(t *testing.T) {
	for _, h := range hostile.Strings() {
		if !utf8.ValidString(h) {
			continue // a JSON log cannot hold it; a byte that is not UTF-8 is a damaged line (TestReadErrors)
		}
		path, err := strictjson.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		log := `{"decision_id":"x","path":` + string(path) + `,"result":true}` + "\n" +
			`{"decision_id":` + string(path) + `,"path":"contractcheck/decision"}` + "\n"
		_, c, err := readAll(t, []string{"-"}, []byte(log))
		if c.OtherPaths[h] != 1 && strings.Trim(h, "/") != Path {
			t.Errorf("path %q not counted: %+v", h, c.OtherPaths)
		}
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(h)) {
			t.Errorf("decision id %q: error %v", h, err)
		}
		if s := c.String(); !strings.Contains(s, strconv.Quote(h)) {
			t.Errorf("counts %q do not quote %q", s, h)
		}
	}
}
