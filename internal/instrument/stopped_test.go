package instrument

import (
	"context"
	"errors"
	"testing"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestStoppedRunEvaluatesNothing holds ReadRecord and Evaluate to the run's context: once the
// run is stopped at a limit (the memory watchdog cancels the run's context with its
// *guard.LimitError), a record's carrier is neither validated nor projected, and the error is the
// limit's, naming the record, the instrument failing (exit 3).
func TestStoppedRunEvaluatesNothing(t *testing.T) {
	// An instrument of its own (on the shared base): its view cache is empty.
	in, err := Load(context.Background(), inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := in.Options().RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	var rec *Record
	var line inputs.RecordLine
	for _, f := range files {
		if err := f.Records(context.Background(), func(l inputs.RecordLine) bool {
			r, err := in.ReadRecord(context.Background(), l)
			if err != nil {
				t.Fatal(err)
			}
			if r != nil && r.State == "captured" {
				rec, line = r, l
			}
			return rec == nil
		}); err != nil {
			t.Fatalf("read the built-in records: %v", err)
		}
		if rec != nil {
			break
		}
	}
	limit := &guard.LimitError{What: "the run", Limit: "the memory budget of 1 MiB"}
	stopped, cancel := context.WithCancelCause(context.Background())
	cancel(limit)
	tests := []struct {
		name string
		run  func() error
	}{
		{name: "ReadRecord", run: func() error {
			_, err := in.ReadRecord(stopped, line)
			return err
		}},
		{name: "Evaluate", run: func() error {
			_, err := in.Evaluate(stopped, rec)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var le *guard.LimitError
			if !errors.As(err, &le) || le != limit || !result.IsInstrumentFailure(err) {
				t.Fatalf("got %v, want the run's *guard.LimitError (the instrument failing)", err)
			}
			if n := in.views.len(); n != 0 {
				t.Errorf("the stopped run projected %d views", n)
			}
		})
	}
	if _, err := in.Evaluate(context.Background(), rec); err != nil {
		t.Fatalf("a live run evaluates the record: %v", err)
	}
}
