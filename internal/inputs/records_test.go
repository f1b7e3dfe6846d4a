package inputs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// TestRecords holds RecordFile.Records and Envelopes to the lines of a file decoded in order, each
// with its file, line number, the carrier's bytes as written and its value (CarrierValue: built
// at once by Records, when asked by Envelopes), and to the first line they cannot decode as the
// error, naming file, line and column, with nothing after it handed on: Envelopes leaves a carrier
// unbuilt, not unchecked.
func TestRecords(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		stop    int // emit returns false at this line (0: never)
		want    []string
		wantErr string
	}{
		{name: "lines in order, the carrier's bytes as written",
			data: "{\"lane\":\"a\",\"carrier\": {\"x\" : 1}}\n\n{\"lane\":\"b\"}\n",
			want: []string{`obs/r.jsonl:1 a {"x" : 1} {"x":1}`, `obs/r.jsonl:3 b  null`}},
		{name: "a carrier that is null", data: "{\"lane\":\"a\",\"carrier\":null}\n",
			want: []string{`obs/r.jsonl:1 a null null`}},
		{name: "emit stops the stream", data: "{\"lane\":\"a\"}\n{\"lane\":\"b\"}\n", stop: 1,
			want: []string{`obs/r.jsonl:1 a  null`}},
		{name: "the first bad line is the error", data: "{\"lane\":\"a\"}\n{\"lane\":\"b\",\"lane\":\"c\"}\n{\"lane\":\"d\"}\n",
			want: []string{`obs/r.jsonl:1 a  null`}, wantErr: "obs/r.jsonl:2:"},
		{name: "a bad carrier is the error", data: "{\"lane\":\"a\"}\n{\"lane\":\"b\",\"carrier\":{\"x\":[1,2e999999]}}\n",
			want: []string{`obs/r.jsonl:1 a  null`}, wantErr: "obs/r.jsonl:2:33: number exponent 999999 is beyond the limit"},
	}
	for _, tc := range tests {
		for _, read := range []string{"Records", "Envelopes"} {
			t.Run(tc.name+"/"+read, func(t *testing.T) {
				d := Dir{FS: fstest.MapFS{"obs/r.jsonl": {Data: []byte(tc.data)}}, Root: ".", Display: "."}
				f := RecordFile{Dir: d, Path: "obs/r.jsonl"}
				stream := f.Records
				if read == "Envelopes" {
					stream = f.Envelopes
				}
				var got []string
				err := stream(context.Background(), func(l RecordLine) bool {
					lane, _ := l.Doc.(map[string]any)["lane"].(string)
					v, err := l.CarrierValue()
					if err != nil {
						t.Fatal(err)
					}
					b, err := strictjson.Marshal(v)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, l.File+":"+strconv.Itoa(l.Line)+" "+lane+" "+string(l.Carrier)+" "+string(b))
					return l.Line != tc.stop
				})
				if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			})
		}
	}
}

// BenchmarkDecodeRecord decodes the built-in records' lines whole (DecodeRecord: a run on every
// record) and envelope first (DecodeEnvelope: a run whose scope may leave them out, each
// carrier checked and not built).
func BenchmarkDecodeRecord(b *testing.B) {
	var lines []strictjson.Line
	var size int64
	err := fs.WalkDir(contractcheck.Builtin, "fixtures/observations", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := fs.ReadFile(contractcheck.Builtin, path)
		if err != nil {
			return err
		}
		size += int64(len(data))
		lr := strictjson.NewLineReader(path, bytes.NewReader(data), strictjson.DefaultLimits)
		for {
			l, err := lr.NextLine()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			lines = append(lines, l)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		decode func(*strictjson.LineDecoder, string, strictjson.Line) (RecordLine, error)
	}{{"whole", DecodeRecord}, {"envelope", DecodeEnvelope}} {
		b.Run(bc.name, func(b *testing.B) {
			dec := strictjson.NewLineDecoder(strictjson.DefaultLimits)
			b.SetBytes(size)
			for b.Loop() {
				for _, l := range lines {
					if _, err := bc.decode(dec, "f", l); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
