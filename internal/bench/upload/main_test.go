package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/collect"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// TestPrepareAndPost prepares more decisions than one pass over the built-in captured records
// holds and posts them to an in-process collect: every batch is taken, every decision is its own
// (decision id, and record and repetition), no stand-in is left in an event, and the driver's
// failures (a wrong token, another contract set, a directory its set.json does not describe) are
// errors naming the cause, never a rate.
func TestPrepareAndPost(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "batches")
	templates, err := builtinTemplates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 2*len(templates) + 100 // three passes
	const size = 2000
	if err := prepareBatches(ctx, dir, n, size); err != nil {
		t.Fatal(err)
	}
	if err := prepareBatches(ctx, dir, n, size); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("preparing into %s again: %v, want it refused", dir, err)
	}
	events := decode(t, dir)
	if len(events) != n {
		t.Fatalf("%d events in the batches, want %d", len(events), n)
	}
	ids, readings := map[string]bool{}, map[string]bool{}
	for i, ev := range events {
		if ids[ev.ID] {
			t.Errorf("event %d: decision id %s twice", i, ev.ID)
		}
		ids[ev.ID] = true
		key := fmt.Sprintf("%s:%d #%d", ev.Input.Record.File, ev.Input.Record.Line, ev.Input.Repetition)
		if readings[key] {
			t.Errorf("event %d: record and repetition %s twice", i, key)
		}
		readings[key] = true
		if ev.Result.Repetition != ev.Input.Repetition {
			t.Errorf("event %d: repetition %d in the input, %d in the result", i, ev.Input.Repetition, ev.Result.Repetition)
		}
	}
	builtin, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := instrument.Load(ctx, inputs.Options{Profile: "reported-fixes"})
	if err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("right\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wrong := filepath.Join(t.TempDir(), "wrong")
	if err := os.WriteFile(wrong, []byte("wrong"), 0o600); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(t.TempDir(), "short")
	if err := os.MkdirAll(short, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(short, "set.json"), []byte(`{"decisions":1,"batches":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		in        *instrument.Instrument
		dir       string
		tokenFile string
		want      string // the error, "" for every decision taken
	}{
		{name: "every batch taken", in: builtin, dir: dir, tokenFile: token},
		{name: "a wrong token", in: builtin, dir: dir, tokenFile: wrong, want: "HTTP 401"},
		{name: "another contract set", in: other, dir: dir, tokenFile: token, want: "HTTP 422"},
		{name: "set.json names batches the directory lacks", in: builtin, dir: short, tokenFile: token, want: "holds 0 batches, its set.json says 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := collect.New(tc.in, collect.Options{Dir: filepath.Join(t.TempDir(), "collected"), Token: "right"})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			srv := httptest.NewServer(c)
			defer srv.Close()
			res, err := postBatches(tc.dir, srv.URL+collect.DefaultPath, 3, tc.tokenFile)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantBatches := (n + size - 1) / size
			if res.Decisions != n || res.Batches != wantBatches || res.DecisionsPerSecond <= 0 {
				t.Errorf("result %+v, want %d decisions in %d batches", res, n, wantBatches)
			}
			if st := c.Status(); st.Accepted.Decisions != int64(n) || st.Accepted.Batches != int64(wantBatches) {
				t.Errorf("collect took %+v, want %d decisions in %d batches", st.Accepted, n, wantBatches)
			}
		})
	}
}

// event is what the test reads of an event.
type event struct {
	ID    string `json:"decision_id"`
	Input struct {
		Repetition int `json:"repetition"`
		Record     struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"record"`
	} `json:"input"`
	Result struct {
		Repetition int `json:"repetition"`
	} `json:"result"`
}

// decode is every event of the batches in dir, in order; no stand-in may be left in one.
func decode(t *testing.T, dir string) []event {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var all []event
	for _, name := range names {
		text := reportkit.GunzipFile(t, name)
		for _, s := range []string{idSentinel, repetitionSentinel, timeSentinel, timerSentinel} {
			if bytes.Contains(text, []byte(s)) {
				t.Errorf("%s holds the stand-in %s", name, s)
			}
		}
		var events []event
		if err := json.Unmarshal(text, &events); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all = append(all, events...)
	}
	return all
}
