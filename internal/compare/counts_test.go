package compare

import (
	"encoding/json"
	"testing"
)

// TestCounts: a count lists every kind it was made with, read or not, and its total is the
// readouts added; a decoder's Totals encode the decoder and then the count.
func TestCounts(t *testing.T) {
	tests := []struct {
		name string
		add  []string
		want string
	}{
		{name: "nothing read", want: `{"decoder":"d","kinds":{"match":0,"missing":0},"total":0}`},
		{name: "each kind", add: []string{Match, Missing, Match}, want: `{"decoder":"d","kinds":{"match":2,"missing":1},"total":3}`},
		{name: "a kind not listed", add: []string{Wrong}, want: `{"decoder":"d","kinds":{"match":0,"missing":0,"wrong":1},"total":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tot := Totals{Decoder: "d", Counts: NewCounts([]string{Match, Missing})}
			for _, k := range tc.add {
				tot.Add(k)
			}
			got, err := json.Marshal(tot)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
