package spill

import "container/heap"

// Merge merges sorted runs: it calls yield with every item of the runs in the order cmp gives,
// an item of an earlier run before an equal item (cmp 0) of a later one, so that a merge is stable
// as a sort of the runs' concatenation is. Each run is a function that returns its next item, false
// at its end; a run's error, or yield's, ends the merge and is returned as it is.
func Merge[T any](runs []func() (T, bool, error), cmp func(a, b T) int, yield func(T) error) error {
	h := &mergeHeap[T]{cmp: cmp}
	for i, next := range runs {
		v, ok, err := next()
		if err != nil {
			return err
		}
		if ok {
			h.heads = append(h.heads, head[T]{v: v, run: i, next: next})
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		top := &h.heads[0]
		if err := yield(top.v); err != nil {
			return err
		}
		v, ok, err := top.next()
		if err != nil {
			return err
		}
		if ok {
			top.v = v
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// head is a run's next item in a merge.
type head[T any] struct {
	v    T
	run  int
	next func() (T, bool, error)
}

// mergeHeap orders the runs by their heads, then by their places.
type mergeHeap[T any] struct {
	heads []head[T]
	cmp   func(a, b T) int
}

func (h *mergeHeap[T]) Len() int { return len(h.heads) }
func (h *mergeHeap[T]) Less(i, j int) bool {
	if d := h.cmp(h.heads[i].v, h.heads[j].v); d != 0 {
		return d < 0
	}
	return h.heads[i].run < h.heads[j].run
}
func (h *mergeHeap[T]) Swap(i, j int) { h.heads[i], h.heads[j] = h.heads[j], h.heads[i] }
func (h *mergeHeap[T]) Push(x any)    { h.heads = append(h.heads, x.(head[T])) }
func (h *mergeHeap[T]) Pop() any {
	x := h.heads[len(h.heads)-1]
	h.heads = h.heads[:len(h.heads)-1]
	return x
}
