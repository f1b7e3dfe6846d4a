package instrument

import (
	"fmt"
	"sync"
	"testing"
)

// A spanCache answers only for the same key and the same bytes, keeps the spanSize most recently
// used entries (an entry asked for again is kept, the least recently used goes), and never holds
// more.
func TestSpanCache(t *testing.T) {
	tests := []struct {
		name  string
		put   func(c *spanCache[string, int])
		key   string
		span  []byte
		want  int
		found bool
	}{
		{name: "same key, same bytes", put: func(c *spanCache[string, int]) { c.put("s", []byte(`{"a":1}`), 7) }, key: "s", span: []byte(`{"a":1}`), want: 7, found: true},
		{name: "same key, other bytes", put: func(c *spanCache[string, int]) { c.put("s", []byte(`{"a":1}`), 7) }, key: "s", span: []byte(`{"a":2}`)},
		{name: "other key, same bytes", put: func(c *spanCache[string, int]) { c.put("s", []byte(`{"a":1}`), 7) }, key: "t", span: []byte(`{"a":1}`)},
		{name: "no bytes are never stored", put: func(c *spanCache[string, int]) { c.put("s", nil, 7) }, key: "s", span: nil},
		{name: "kept while it is among the spanSize last put", put: func(c *spanCache[string, int]) {
			c.put("s", []byte("first"), 1)
			putOthers(c, 0, spanSize-1)
		}, key: "s", span: []byte("first"), want: 1, found: true},
		{name: "gone once spanSize others were put after it", put: func(c *spanCache[string, int]) {
			c.put("s", []byte("first"), 1)
			putOthers(c, 0, spanSize)
		}, key: "s", span: []byte("first")},
		{name: "an entry asked for again is kept", put: func(c *spanCache[string, int]) {
			c.put("s", []byte("first"), 1)
			putOthers(c, 0, spanSize-1)
			c.get("s", []byte("first"))
			putOthers(c, spanSize, 2*spanSize-1)
		}, key: "s", span: []byte("first"), want: 1, found: true},
		{name: "nothing is kept after a drop", put: func(c *spanCache[string, int]) {
			c.put("s", []byte("first"), 1)
			c.drop()
		}, key: "s", span: []byte("first")},
		{name: "put after a drop", put: func(c *spanCache[string, int]) {
			c.put("s", []byte("first"), 1)
			c.drop()
			c.put("s", []byte("first"), 2)
		}, key: "s", span: []byte("first"), want: 2, found: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c spanCache[string, int]
			tc.put(&c)
			got, found := c.get(tc.key, tc.span)
			if got != tc.want || found != tc.found {
				t.Errorf("get = %d, %v; want %d, %v", got, found, tc.want, tc.found)
			}
			if n := c.len(); n > spanSize {
				t.Errorf("holds %d entries, more than %d", n, spanSize)
			}
		})
	}
}

// putOthers puts the entries from to to (exclusive), each under key "s" with bytes of its own.
func putOthers(c *spanCache[string, int], from, to int) {
	for i := from; i < to; i++ {
		c.put("s", []byte(fmt.Sprint(i)), i)
	}
}

// TestSpanCacheConcurrent puts and gets from several goroutines, as a run's workers do (run with
// -race): an entry found is the one put (another goroutine may have pushed it out since), and the
// bound holds.
func TestSpanCacheConcurrent(t *testing.T) {
	var c spanCache[int, int]
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range spanSize {
				span := []byte(fmt.Sprint(w, i))
				c.put(w, span, i)
				if v, ok := c.get(w, span); ok && v != i {
					t.Errorf("get(%d, %q) = %d right after put %d", w, span, v, i)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := c.len(); n > spanSize {
		t.Errorf("holds %d entries, more than %d", n, spanSize)
	}
}
