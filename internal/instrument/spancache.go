package instrument

import (
	"bytes"
	"hash/maphash"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
)

// spanSize is how many entries a spanCache keeps, the most recently used. Repetitions of a
// position come within a few hundred records of each other in capture files, so the recent
// carriers are the ones seen again; this many hold a megabyte or two of carrier bytes and views.
// An entry is kept while fewer than spanSize others were used after it: the window the cache's
// two generations of 1,024 gave before it was an LRU. Twice that (the most the generations held)
// would keep 3 MB more to the end of a run of 100,000 distinct records (BenchmarkCheckMatrix/
// unique's report-B/binding 164 bytes against 125 at this size, 132 with the generations), for
// the same evaluations and no CPU saved.
const spanSize = 1 << 10

// spanCache remembers what was computed from a carrier's bytes (validating it against a schema,
// projecting it through a compartment), so a carrier that repeats byte for byte (the repetitions
// of a capture, the stages that share one carrier) is read once. Entries are keyed by what the
// computation depends on besides the bytes (K) and by the bytes themselves, compared exactly: a
// hash collision is a miss, never a wrong answer. It keeps the spanSize most recently used
// entries (an LRU, like the verdict memo), so its size is bounded whatever the number of records.
// Safe for concurrent use; the zero value is empty.
type spanCache[K comparable, V any] struct {
	lru atomic.Pointer[spanLRU[K, V]] // made on first use (cache), and again after a drop
}

// spanLRU is a spanCache's entries and the seed of their hashes.
type spanLRU[K comparable, V any] struct {
	seed    maphash.Seed
	entries *lru.Cache[spanKey[K], spanEntry[V]]
}

type spanKey[K comparable] struct {
	k    K
	hash uint64
}

type spanEntry[V any] struct {
	span []byte
	v    V
}

// cache is the cache's LRU and hash seed, made on first use.
func (c *spanCache[K, V]) cache() (*lru.Cache[spanKey[K], spanEntry[V]], maphash.Seed) {
	l := c.lru.Load()
	if l == nil {
		c.lru.CompareAndSwap(nil, &spanLRU[K, V]{seed: maphash.MakeSeed(), entries: newLRU[spanKey[K], spanEntry[V]](spanSize)})
		l = c.lru.Load()
	}
	return l.entries, l.seed
}

// drop forgets every entry: the LRU is let go (garbage, not purged: a purged one keeps the room
// its map grew to), and made again on the next use.
func (c *spanCache[K, V]) drop() { c.lru.Store(nil) }

// len is how many entries the cache holds.
func (c *spanCache[K, V]) len() int {
	entries, _ := c.cache()
	return entries.Len()
}

// get returns what was stored for k and these bytes. No bytes (nil) is never found.
func (c *spanCache[K, V]) get(k K, span []byte) (V, bool) {
	var zero V
	if span == nil {
		return zero, false
	}
	entries, seed := c.cache()
	if e, ok := entries.Get(spanKey[K]{k, maphash.Bytes(seed, span)}); ok && bytes.Equal(e.span, span) {
		return e.v, true
	}
	return zero, false
}

// put stores v for k and these bytes (which the cache keeps: they must not change).
func (c *spanCache[K, V]) put(k K, span []byte, v V) {
	if span == nil {
		return
	}
	entries, seed := c.cache()
	entries.Add(spanKey[K]{k, maphash.Bytes(seed, span)}, spanEntry[V]{span, v})
}
