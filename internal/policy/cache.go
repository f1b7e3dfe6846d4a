package policy

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sort"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/contractcheck/contractcheck/internal/layer"
)

// Compiling the policies is the slowest part of a run's start after the CUE model (a tenth of a
// second for the built-in layer, more under load), and a compiled Engine depends on nothing but
// the files Load read: their display names, their layers, their bytes and whether the tests are
// compiled. An Engine is immutable after Load and safe for concurrent use (RunTests compiles on a
// compiler of its own), so a process that loads the built-in policy set again (a server
// answering many checks, the commands of a test binary, compare beside check) shares the one
// compiled before, looked up by the sha256 of what it read. Only sets made of built-in layers
// are kept: they are few (with or without the tests), while a user's directories rarely come
// twice, and every engine kept is live heap the collector marks on each cycle, close to the
// run's memory target (internal/guard). Only engines that compiled are kept: a set with an error
// is compiled again, and reports its error again, every time. The prepared queries are kept on
// the engine (Engine.Prepare), so they are shared with it.

// enginesKept is how many engines the process's cache keeps, the most recently used: a command
// loads one or two policy sets; a test binary loads many, most of them once. Eight is the most
// the cache held when it kept two generations of four.
const enginesKept = 8

// engines is the process's cache of compiled engines, by engineKey.
var engines = func() *lru.Cache[[sha256.Size]byte, *Engine] {
	c, err := lru.New[[sha256.Size]byte, *Engine](enginesKept)
	if err != nil { // lru.New fails only on a size below one
		panic(fmt.Sprintf("policy: a cache of %d engines: %v", enginesKept, err))
	}
	return c
}()

// builtinOnly reports whether every layer is built into the binary (layer.Dir.Builtin).
func builtinOnly(layers []layer.Dir) bool {
	for _, d := range layers {
		if !d.Builtin {
			return false
		}
	}
	return true
}

// engineKey is the identity of what Load compiles: the options and every file's layer, display
// name and bytes, in name order.
func engineKey(sources map[string][]byte, layer map[string]int, opts LoadOptions) [sha256.Size]byte {
	names := make([]string, 0, len(sources))
	for name := range sources {
		names = append(names, name)
	}
	sort.Strings(names)
	h := sha256.New()
	fmt.Fprintf(h, "tests=%t\n", opts.Tests)
	for _, name := range names {
		fmt.Fprintf(h, "%d %q %d\n", layer[name], name, len(sources[name]))
		h.Write(sources[name])
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// Prepare is prepare, once per package for the engine: a Query is safe for concurrent use and
// depends on nothing but the engine and the package, so every run sharing the engine shares it.
// An error is not kept. Preparations are made one at a time (Engine.prep): OPA's PrepareForEval
// reads the shared compiler, and holding the lock keeps it from ever racing a writer we did not
// see; it costs nothing, since a package is prepared once.
func (e *Engine) Prepare(ctx context.Context, pkg string) (*Query, error) {
	e.prep.Lock()
	defer e.prep.Unlock()
	if q, ok := e.prepared[pkg]; ok {
		return q, nil
	}
	q, err := e.prepare(ctx, pkg)
	if err != nil {
		return nil, err
	}
	if e.prepared == nil {
		e.prepared = map[string]*Query{}
	}
	e.prepared[pkg] = q
	return q, nil
}
