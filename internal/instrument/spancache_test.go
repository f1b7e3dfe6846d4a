package instrument

import (
	"fmt"
	"testing"
)

// A spanCache answers only for the same key and the same bytes, and forgets the oldest
// generation once two are full.
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
		{name: "the previous generation still answers", put: func(c *spanCache[string, int]) {
			c.put("s", []byte("first"), 1)
			for i := range spanGeneration {
				c.put("s", []byte(fmt.Sprint(i)), i)
			}
		}, key: "s", span: []byte("first"), want: 1, found: true},
		{name: "two generations later it is gone", put: func(c *spanCache[string, int]) {
			c.put("s", []byte("first"), 1)
			for i := range 2 * spanGeneration {
				c.put("s", []byte(fmt.Sprint(i)), i)
			}
		}, key: "s", span: []byte("first")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c spanCache[string, int]
			tc.put(&c)
			got, found := c.get(tc.key, tc.span)
			if got != tc.want || found != tc.found {
				t.Errorf("get = %d, %v; want %d, %v", got, found, tc.want, tc.found)
			}
			if n := c.entries.Len(); n > 2*spanGeneration {
				t.Errorf("holds %d entries, more than two generations", n)
			}
		})
	}
}
