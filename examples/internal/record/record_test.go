package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// TestStages: a carrier is captured; the first stage without one is execution_failed with its
// reason and the run's error, and every later stage not_reached, whatever it holds.
func TestStages(t *testing.T) {
	f := Fixture{ID: "C01", Sha256: "abc"}
	tests := []struct {
		name   string
		stages []Stage
		runErr error
		want   []string // state and error of each record, in order
	}{
		{name: "every stage captured", stages: []Stage{{"A2", json.RawMessage(`{"a":1}`), "no a2"}, {"H4", json.RawMessage(`[]`), "no h4"}},
			want: []string{"captured", "captured"}},
		{name: "a missing stage ends the run", stages: []Stage{{"A2", json.RawMessage(`{}`), "no a2"}, {"M3", nil, "no m3"}, {"H4", json.RawMessage(`[]`), "no h4"}},
			want: []string{"captured", "execution_failed no m3", "not_reached"}},
		{name: "the run's error follows the reason", stages: []Stage{{"A2", nil, "no a2"}, {"H4", nil, "no h4"}}, runErr: errors.New("boom"),
			want: []string{"execution_failed no a2: boom", "not_reached"}},
		{name: "the run's error alone without a reason", stages: []Stage{{"A2", nil, ""}}, runErr: errors.New("boom"),
			want: []string{"execution_failed boom"}},
		{name: "neither reason nor error", stages: []Stage{{"A2", nil, ""}},
			want: []string{"execution_failed execution failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := &Writer{W: &buf, Lane: "l", LaneVersion: "v", Configuration: "default", Repetition: 1}
			if err := w.Stages(f, tc.stages, tc.runErr); err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(&buf)
			var got []string
			for i := 0; dec.More(); i++ {
				var r Record
				if err := dec.Decode(&r); err != nil {
					t.Fatal(err)
				}
				if r.Stage != tc.stages[i].Stage {
					t.Errorf("record %d is of stage %s, want %s", i, r.Stage, tc.stages[i].Stage)
				}
				if (r.State == "captured") != (r.Carrier != nil) || r.State == "captured" && !bytes.Equal(r.Carrier, tc.stages[i].Carrier) {
					t.Errorf("record %d: state %s, carrier %s; want %s's carrier kept only when captured", i, r.State, r.Carrier, tc.stages[i].Carrier)
				}
				s := r.State
				if r.Error != "" {
					s += " " + r.Error
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
