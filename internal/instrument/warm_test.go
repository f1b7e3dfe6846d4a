package instrument

import (
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/inputs"
)

// TestFirstLane: the warm-up reads the lane of a file's first record only, and a file it cannot
// read that far names no lane (the run reports what is wrong with it).
func TestFirstLane(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{name: "first record's lane", data: `{"lane":"go-sdk","stage":"D1"}` + "\n" + `{"lane":"adk-go"}` + "\n", want: "go-sdk"},
		{name: "blank lines first", data: "\n\n" + `{"lane":"adk-go"}` + "\n", want: "adk-go"},
		{name: "empty file", data: "", want: ""},
		{name: "malformed first line", data: `{"lane":` + "\n" + `{"lane":"adk-go"}` + "\n", want: ""},
		{name: "duplicate key", data: `{"lane":"a","lane":"b"}` + "\n", want: ""},
		{name: "lane not a string", data: `{"lane":7}` + "\n", want: ""},
		{name: "not an object", data: `["go-sdk"]` + "\n", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := inputs.Dir{FS: fstest.MapFS{"obs/x.jsonl": {Data: []byte(tc.data)}}, Root: "obs", Display: "obs"}
			if got := firstLane(inputs.RecordFile{Dir: d, Path: "obs/x.jsonl"}); got != tc.want {
				t.Errorf("firstLane = %q, want %q", got, tc.want)
			}
		})
	}
}
