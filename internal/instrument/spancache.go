package instrument

import (
	"bytes"
	"hash/maphash"
	"sync"

	"github.com/contractcheck/contractcheck/internal/recent"
)

// spanGeneration is how many entries a generation of a spanCache holds. Repetitions of a position
// come within a few hundred records of each other in capture files, so the recent carriers are
// the ones seen again; two generations of this size hold a few megabytes of carrier bytes.
const spanGeneration = 1 << 10

// spanCache remembers what was computed from a carrier's bytes (validating it against a schema,
// projecting it through a compartment), so a carrier that repeats byte for byte (the repetitions
// of a capture, the stages that share one carrier) is read once. Entries are keyed by what the
// computation depends on besides the bytes (K) and by the bytes themselves, compared exactly: a
// hash collision is a miss, never a wrong answer. It keeps two generations (recent.Generations), like
// the verdict memo, so its size is bounded whatever the number of records. Safe for concurrent
// use.
type spanCache[K comparable, V any] struct {
	once    sync.Once
	seed    maphash.Seed
	entries recent.Generations[spanKey[K], spanEntry[V]]
}

type spanKey[K comparable] struct {
	k    K
	hash uint64
}

type spanEntry[V any] struct {
	span []byte
	v    V
}

func (c *spanCache[K, V]) key(k K, span []byte) spanKey[K] {
	c.once.Do(func() { c.seed = maphash.MakeSeed() })
	return spanKey[K]{k, maphash.Bytes(c.seed, span)}
}

// get returns what was stored for k and these bytes. No bytes (nil) is never found.
func (c *spanCache[K, V]) get(k K, span []byte) (V, bool) {
	var zero V
	if span == nil {
		return zero, false
	}
	if e, ok := c.entries.Get(c.key(k, span)); ok && bytes.Equal(e.span, span) {
		return e.v, true
	}
	return zero, false
}

// put stores v for k and these bytes (which the cache keeps: they must not change).
func (c *spanCache[K, V]) put(k K, span []byte, v V) {
	if span == nil {
		return
	}
	c.entries.Put(c.key(k, span), spanEntry[V]{span, v}, spanGeneration)
}
