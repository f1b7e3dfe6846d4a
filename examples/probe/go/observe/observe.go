// Package observe reports a carrier from inside an agent run under `contractcheck probe`: a POST
// of {"stage", "carrier", "callId"} to CONTRACTCHECK_OBSERVE_URL. Stdlib only; copy it freely.
package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// Observe reports carrier as the run's stage (A2, M3 or D1). callID attributes it to one tool call
// in batch mode; leave it empty otherwise. Outside probe (no CONTRACTCHECK_OBSERVE_URL) it does
// nothing. A json.RawMessage carrier is sent as it is, numbers spelt as they were.
func Observe(stage string, carrier any, callID string) error {
	url := os.Getenv("CONTRACTCHECK_OBSERVE_URL")
	if url == "" {
		return nil
	}
	msg := map[string]any{"stage": stage, "carrier": carrier}
	if callID != "" {
		msg["callId"] = callID
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("observe %s: %w", stage, err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("observe %s: %w", stage, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		text, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("observe %s: %s: %s", stage, resp.Status, bytes.TrimSpace(text))
	}
	return nil
}
