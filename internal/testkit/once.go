package testkit

import (
	"sync"
	"testing"
)

// Once is a value the tests of a package compute once and share (the built-in validator, the
// built-in compare's report): the function it returns runs compute on its first call, and every
// call returns compute's value or fails t at once with its error.
func Once[V any](compute func() (V, error)) func(t testing.TB) V {
	get := sync.OnceValues(compute)
	return func(t testing.TB) V {
		t.Helper()
		v, err := get()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// OnceEach computes a value once per key for the tests that share it (an instrument per
// profile, a runtime per lane): the first Get of a key runs compute, a Get of the same key
// meanwhile waits for it, and every Get of the key returns what it returned. Gets of other keys
// run at the same time. The zero OnceEach is ready to use.
type OnceEach[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]func() (V, error)
}

// Get returns key's value and error, running compute for it if no Get of key ran it before.
func (o *OnceEach[K, V]) Get(key K, compute func() (V, error)) (V, error) {
	o.mu.Lock()
	f, ok := o.m[key]
	if !ok {
		if o.m == nil {
			o.m = map[K]func() (V, error){}
		}
		f = sync.OnceValues(compute)
		o.m[key] = f
	}
	o.mu.Unlock()
	return f()
}
