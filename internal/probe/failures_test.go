package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestFailuresTellTheTruth: with or without --provider, a failing agent gives execution_failed
// records, the output directory is written so the user can look, and the records fail the probe
// profile; a failure says what the fake provider received when it understood no model request,
// a refused request is never "no model request", and a --provider the agent did not speak fails
// the run naming both APIs.
func TestFailuresTellTheTruth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mode, provider string
		env                  []string
		wantProvider         string   // the API the lane's H4 follows ("": unknown, bound to nothing)
		want                 []string // in the H4 record's error
		notWant              []string
		wantLog              string
	}{
		{name: "no model request, no --provider", mode: "silent",
			want: []string{"sent no model request"}, wantLog: "the provider API is unknown"},
		{name: "no model request, --provider", mode: "silent", provider: "anthropic", wantProvider: "anthropic",
			want: []string{"sent no model request"}},
		{name: "a refused model request", mode: "agent", env: []string{"TESTAGENT_MODE=raw-request", "TESTAGENT_REQUEST=POST /v1/responses", `TESTAGENT_REQUEST_BODY={"model":"m","input":"hi","tools":[{"type":"function","name":"other_tool"}]}`},
			wantProvider: "openai-responses",
			want:         []string{"POST /v1/responses (request 1: API openai-responses, refused)", "no model request was understood"},
			notWant:      []string{"sent no model request"}},
		{name: "a side call and nothing else", mode: "agent", env: []string{"TESTAGENT_MODE=raw-request", "TESTAGENT_REQUEST=POST /v1/responses", `TESTAGENT_REQUEST_BODY={"model":"m","input":"hi"}`},
			wantProvider: "openai-responses",
			want:         []string{"never got to call the tool", "POST /v1/responses (request 1: API openai-responses, side-call)"}},
		{name: "a route of no API", mode: "agent", env: []string{"TESTAGENT_MODE=raw-request", "TESTAGENT_REQUEST=POST /v2/generate"},
			want: []string{"POST /v2/generate (request 1: API unknown, refused)"}, wantLog: "the provider API is unknown"},
		{name: "a --provider the agent did not speak", mode: "agent", provider: "anthropic", env: []string{"TESTAGENT_API=openai-chat"},
			wantProvider: "anthropic",
			want:         []string{"--provider is anthropic, but the command spoke openai-chat", "POST /v1/chat/completions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := probeOpts(t, tt.mode, tt.env, "C09")
			o.Provider = tt.provider
			res, log := runLogged(t, o)
			if res.Failed != 1 || res.Captured != 0 || res.Provider != tt.wantProvider {
				t.Fatalf("result %+v, want provider %q\n%s", res, tt.wantProvider, log)
			}
			h4 := h4Of(t, readRecords(t, o), "C09", 1)
			if h4.State != "execution_failed" {
				t.Fatalf("H4 %+v", h4)
			}
			for _, w := range tt.want {
				if !strings.Contains(h4.Error, w) {
					t.Errorf("error %q lacks %q", h4.Error, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(h4.Error, w) {
					t.Errorf("error %q says %q", h4.Error, w)
				}
			}
			if tt.wantLog != "" && !strings.Contains(log, tt.wantLog) {
				t.Errorf("log lacks %q:\n%s", tt.wantLog, log)
			}
			for _, f := range []string{ManifestFile, LaneFile} {
				if _, err := os.Stat(filepath.Join(o.Output, f)); err != nil {
					t.Error(err)
				}
			}
			// check reads the directory and fails the gate on the records: never green.
			rep, err := check.Run(context.Background(), JudgeOptions(o, nil))
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			if code := rep.ExitCode(); code != result.ExitUnmet {
				t.Errorf("check exit %d, want %d", code, result.ExitUnmet)
			}
		})
	}
}
