package reportkit

import (
	"reflect"
	"testing"
)

// TestDropEvery: every n-th element from index at is dropped, the rest kept in order, and the
// input left as it was.
func TestDropEvery(t *testing.T) {
	tests := []struct {
		name  string
		in    []int
		n, at int
		want  []int
	}{
		{name: "every third from the second", in: []int{0, 1, 2, 3, 4, 5, 6}, n: 3, at: 1, want: []int{0, 2, 3, 5, 6}},
		{name: "every second from the first", in: []int{0, 1, 2, 3}, n: 2, at: 0, want: []int{1, 3}},
		{name: "fewer than at", in: []int{0}, n: 3, at: 1, want: []int{0}},
		{name: "none", in: nil, n: 3, at: 1, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]int(nil), tc.in...)
			if got := DropEvery(tc.in, tc.n, tc.at); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DropEvery(%v, %d, %d) = %v, want %v", tc.in, tc.n, tc.at, got, tc.want)
			}
			if !reflect.DeepEqual(tc.in, before) {
				t.Errorf("the input changed: %v, was %v", tc.in, before)
			}
		})
	}
}
