package observe

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestObserve(t *testing.T) {
	var got map[string]json.RawMessage
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("body %s: %v", b, err)
		}
		if strings.Contains(string(b), `"stage":"X9"`) {
			http.Error(w, "unknown stage X9", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	t.Setenv("CONTRACTCHECK_OBSERVE_URL", srv.URL)
	for _, tc := range []struct {
		name, stage, callID, wantErr string
		carrier                      any
		want                         map[string]string
	}{
		{name: "raw carrier and call id", stage: "A2", callID: "call_1", carrier: json.RawMessage(`{"n":1.0}`),
			want: map[string]string{"stage": `"A2"`, "carrier": `{"n":1.0}`, "callId": `"call_1"`}},
		{name: "no call id", stage: "M3", carrier: []string{"x"},
			want: map[string]string{"stage": `"M3"`, "carrier": `["x"]`}},
		{name: "refused", stage: "X9", carrier: 1, wantErr: "unknown stage X9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			err := Observe(tc.stage, tc.carrier, tc.callID)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d members, want %d", len(got), len(tc.want))
			}
			for k, v := range tc.want {
				if string(got[k]) != v {
					t.Errorf("%s = %s, want %s", k, got[k], v)
				}
			}
		})
	}
	t.Run("outside probe", func(t *testing.T) {
		t.Setenv("CONTRACTCHECK_OBSERVE_URL", "")
		if err := Observe("A2", 1, ""); err != nil {
			t.Fatal(err)
		}
	})
}
