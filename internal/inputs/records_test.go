package inputs

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// TestRecords holds RecordFile.Records to the lines of a file decoded in order, each with its
// file, line number and the carrier's bytes as written, and to the first line it cannot decode
// as the error, naming file, line and column, with nothing after it handed on.
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
			want: []string{`obs/r.jsonl:1 a {"x" : 1}`, `obs/r.jsonl:3 b `}},
		{name: "emit stops the stream", data: "{\"lane\":\"a\"}\n{\"lane\":\"b\"}\n", stop: 1,
			want: []string{`obs/r.jsonl:1 a `}},
		{name: "the first bad line is the error", data: "{\"lane\":\"a\"}\n{\"lane\":\"b\",\"lane\":\"c\"}\n{\"lane\":\"d\"}\n",
			want: []string{`obs/r.jsonl:1 a `}, wantErr: "obs/r.jsonl:2:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Dir{FS: fstest.MapFS{"obs/r.jsonl": {Data: []byte(tc.data)}}, Root: ".", Display: "."}
			var got []string
			err := RecordFile{Dir: d, Path: "obs/r.jsonl"}.Records(context.Background(), func(l RecordLine) bool {
				lane, _ := l.Doc.(map[string]any)["lane"].(string)
				got = append(got, l.File+":"+strconv.Itoa(l.Line)+" "+lane+" "+string(l.Carrier))
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
