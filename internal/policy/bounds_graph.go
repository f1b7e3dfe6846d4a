package policy

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
)

// graph.reachable_paths(graph, initial) is every path from the initial vertices that ends where
// the graph does (a vertex without edges, or one outside the graph) or where it would close a
// cycle: exponentially many in the graph's size (a ladder of 60 vertices has 2^30), found in one
// recursive call that OPA cannot cancel. reachablePaths computes the same set as OPA's
// builtinReachablePaths (v1/topdown/reachable.go, Apache License 2.0), checking for
// cancellation at every step and refusing to copy or commit more than MaxArrayElements path
// elements in all.

// pathWalk is one call's state.
type pathWalk struct {
	graph  ast.Object
	result ast.Set
	cancel topdown.Cancel
	steps  int64 // path elements copied or committed so far
}

// errPathLimit stops the walk at the limit; errPathCancel when the evaluation is cancelled.
var (
	errPathLimit  = fmt.Errorf("graph.reachable_paths: past %d path elements", MaxArrayElements)
	errPathCancel = topdown.Halt{Err: &topdown.Error{Code: topdown.CancelErr, Message: ast.ReachablePathsBuiltin.Name + ": timed out before finishing"}}
)

func reachablePaths(bctx topdown.BuiltinContext, operands []*ast.Term, iter func(*ast.Term) error) error {
	graph, err := builtins.ObjectOperand(operands[0].Value, 1)
	if err != nil {
		return err
	}
	var queue []*ast.Term
	switch initial := operands[1].Value.(type) {
	case *ast.Array:
		initial.Foreach(func(t *ast.Term) { queue = append(queue, t) })
	case ast.Set:
		queue = append(queue, initial.Slice()...)
	default:
		return builtins.NewOperandTypeErr(2, initial, "{array, set}")
	}
	w := &pathWalk{graph: graph, result: ast.NewSet(), cancel: bctx.Cancel}
	for _, node := range queue {
		edges := graph.Get(node)
		if edges == nil {
			continue
		}
		if vertexCount(edges) == 0 {
			w.result.Add(ast.ArrayTerm(node))
			continue
		}
		err := eachVertex(edges, func(neighbor *ast.Term) error {
			return w.build(neighbor, []*ast.Term{node}, ast.NewSet(node))
		})
		if err == errPathLimit {
			return refuse(ast.ReachablePathsBuiltin.Name, bctx.Location, &refusal{
				would: fmt.Sprintf("more than %d path elements", MaxArrayElements), limit: elementTxt})
		}
		if err != nil {
			return err
		}
	}
	return iter(ast.NewTerm(w.result))
}

// step counts n path elements, and stops the walk at the limit or when the evaluation is
// cancelled.
func (w *pathWalk) step(n int) error {
	if w.cancel != nil && w.cancel.Cancelled() {
		return errPathCancel
	}
	w.steps += int64(n)
	if w.steps > MaxArrayElements {
		return errPathLimit
	}
	return nil
}

// commit adds a path to the result.
func (w *pathWalk) commit(path []*ast.Term) error {
	if err := w.step(len(path)); err != nil {
		return err
	}
	w.result.Add(ast.ArrayTerm(path...))
	return nil
}

// build extends path (which it owns) by root, as OPA's pathBuilder does.
func (w *pathWalk) build(root *ast.Term, path []*ast.Term, reached ast.Set) error {
	if err := w.step(len(path) + reached.Len()); err != nil {
		return err
	}
	edges := w.graph.Get(root)
	if edges == nil {
		return w.commit(path) // a vertex outside the graph: the path without it
	}
	path = append(path, root)
	if vertexCount(edges) == 0 {
		return w.commit(path)
	}
	reached = reached.Copy()
	reached.Add(root)
	return eachVertex(edges, func(neighbor *ast.Term) error {
		if reached.Contains(neighbor) {
			return w.commit(path) // a cycle: the path so far
		}
		return w.build(neighbor, append([]*ast.Term(nil), path...), reached)
	})
}

// vertexCount is the number of vertices of an array or set of edges, 0 for anything else.
func vertexCount(edges *ast.Term) int {
	switch v := edges.Value.(type) {
	case ast.Set:
		return v.Len()
	case *ast.Array:
		return v.Len()
	}
	return 0
}

// eachVertex calls f on each vertex of an array or set of edges, in their order, until it fails.
func eachVertex(edges *ast.Term, f func(*ast.Term) error) error {
	switch v := edges.Value.(type) {
	case ast.Set:
		return v.Iter(f)
	case *ast.Array:
		return v.Iter(f)
	}
	return nil
}
