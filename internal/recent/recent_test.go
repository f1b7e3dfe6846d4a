package recent

import (
	"sync"
	"testing"
)

// TestGenerations: an entry is found while it is in one of the two generations and gone two
// generations after it was put; the cache never holds more than two generations; Clear empties it.
func TestGenerations(t *testing.T) {
	const size = 4
	tests := []struct {
		name  string
		after int // entries put after "k"
		found bool
	}{
		{name: "just put", after: 0, found: true},
		{name: "its generation is the previous one", after: size, found: true},
		{name: "two generations later it is gone", after: 2 * size, found: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g Generations[string, int]
			g.Put("k", 7, size)
			for i := range tc.after {
				g.Put(string(rune('a'+i)), i, size)
				if n := g.Len(); n > 2*size {
					t.Fatalf("holds %d entries, more than two generations of %d", n, size)
				}
			}
			v, ok := g.Get("k")
			if ok != tc.found || (ok && v != 7) {
				t.Errorf("Get(k) = %d, %v; want found %v", v, ok, tc.found)
			}
			g.Clear()
			if _, ok := g.Get("k"); ok || g.Len() != 0 {
				t.Errorf("after Clear: %d entries", g.Len())
			}
		})
	}
}

// TestGenerationsConcurrent puts and gets from several goroutines (run with -race): an entry found
// is the one put (another goroutine may have pushed it out since), and the bound holds.
func TestGenerationsConcurrent(t *testing.T) {
	var g Generations[int, int]
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				g.Put(w*1000+i, i, 64)
				if v, ok := g.Get(w*1000 + i); ok && v != i {
					t.Errorf("Get(%d) = %d, %v right after Put", w*1000+i, v, ok)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := g.Len(); n > 128 {
		t.Errorf("holds %d entries, more than two generations of 64", n)
	}
}
