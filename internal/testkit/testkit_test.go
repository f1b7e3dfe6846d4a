package testkit

import (
	"errors"
	"fmt"
	"testing"
)

// recorder is a testing.TB that keeps what a helper fails with and, like testing.T, stops the
// goroutine on Fatal.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	panic(r)
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(r)
}

// call runs f with a recorder and says what f returned, or the message it failed with.
func call(f func(t testing.TB) bool) (done bool, fatal string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	defer func() { fatal = r.fatal }()
	return f(r), ""
}

func TestErrCase(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		want      string
		wantDone  bool
		wantFatal string
	}{
		{name: "no error wanted, none", err: nil, want: "", wantDone: false},
		{name: "no error wanted, one", err: errors.New("boom"), want: "", wantFatal: "boom"},
		{name: "error wanted, it holds want", err: errors.New("a: bad input"), want: "bad", wantDone: true},
		{name: "error wanted, another", err: errors.New("a: other"), want: "bad", wantFatal: `error a: other, want one containing "bad"`},
		{name: "error wanted, none", err: nil, want: "bad", wantFatal: `error <nil>, want one containing "bad"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done, fatal := call(func(r testing.TB) bool { return ErrCase(r, tc.err, tc.want) })
			if fatal != tc.wantFatal {
				t.Errorf("failed with %q, want %q", fatal, tc.wantFatal)
			}
			if tc.wantFatal == "" && done != tc.wantDone {
				t.Errorf("ErrCase = %v, want %v", done, tc.wantDone)
			}
		})
	}
}
