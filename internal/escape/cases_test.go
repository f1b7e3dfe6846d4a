package escape

import "testing"

// fnCase is a table case of a function of one argument: its name, the argument and the result
// wanted.
type fnCase[In, Out comparable] struct {
	name string
	in   In
	want Out
}

// checkCases runs each case as a subtest in which fn (fname in a failure's message) must give the
// case's want for its in.
func checkCases[In, Out comparable](t *testing.T, fname string, fn func(In) Out, tests []fnCase[In, Out]) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fn(tc.in); got != tc.want {
				t.Errorf("%s(%#v) = %#v, want %#v", fname, tc.in, got, tc.want)
			}
		})
	}
}
