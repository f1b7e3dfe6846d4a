package result

import (
	"encoding/json"
	"testing"
)

// madeOnRead is an Indexed list whose items are made when read, as a census's are.
type madeOnRead int

func (m madeOnRead) Len() int        { return int(m) }
func (m madeOnRead) At(i int) Change { return Change{Fixture: string(rune('A' + i))} }

func TestCollectWritesAnArray(t *testing.T) {
	for _, tc := range []struct {
		name string
		list Indexed[Change]
		want string
	}{
		{"nil list", nil, `[]`},
		{"empty list", ChangeList{}, `[]`},
		{"held as values", ChangeList{{Fixture: "F", Task: "T"}}, `[{"fixture":"F","stage":"","task":"T","before":"","after":""}]`},
		{"made on read", madeOnRead(2), `[{"fixture":"A","stage":"","task":"","before":"","after":""},{"fixture":"B","stage":"","task":"","before":"","after":""}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(Collect(tc.list))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Collect = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestUpgradeWithoutChangesWritesAnArray(t *testing.T) {
	got, err := json.Marshal(Upgrade{Lane: "l", Configuration: "c", From: "1", To: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"lane":"l","configuration":"c","from":"1","to":"2","changes":[]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestVisibilityReadoutIsNilWhenEmpty(t *testing.T) {
	if got := (&Report{}).VisibilityReadout(); got != nil {
		t.Errorf("VisibilityReadout of a report without a readout = %#v, want nil", got)
	}
	r := &Report{Visibility: VisibilityList{{Lane: "l", Stage: "H4"}}}
	if got := r.VisibilityReadout(); len(got) != 1 || got[0].Lane != "l" {
		t.Errorf("VisibilityReadout = %#v, want the one group", got)
	}
}
