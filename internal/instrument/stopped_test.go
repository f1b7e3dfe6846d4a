package instrument

import (
	"context"
	"errors"
	"testing"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestStoppedRunEvaluatesNothing holds Evaluate to the run's context: once the
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
	if err := in.ReadRecords(context.Background(), files, func(r *Record) error {
		if r.State == "captured" {
			rec = r
			return errStop
		}
		return nil
	}); !errors.Is(err, errStop) {
		t.Fatalf("read the built-in records: %v", err)
	}
	limit := &guard.LimitError{What: "the run", Limit: "the memory budget of 1 MiB"}
	stopped, cancel := context.WithCancelCause(context.Background())
	cancel(limit)
	tests := []struct {
		name string
		run  func() error
	}{
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
			if n := in.views.entries.Len(); n != 0 {
				t.Errorf("the stopped run projected %d views", n)
			}
		})
	}
	if _, err := in.Evaluate(context.Background(), rec); err != nil {
		t.Fatalf("a live run evaluates the record: %v", err)
	}
}

var errStop = errors.New("stop")
