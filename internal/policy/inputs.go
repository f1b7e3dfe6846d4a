package policy

import (
	"crypto/sha256"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// inputReads is what a query's rules may read of the input: the top-level keys named by
// input.<key> refs, or everything (all) when a rule reads the input any other way (a bare
// `input`, input[k] with a variable key, `with input as …`).
type inputReads struct {
	all  bool
	keys map[string]bool
	// views are the view members read as input.source.<m> or input.observed.<m> with m a
	// constant: what a declaration of the view members a policy reads must list at least.
	views map[string]*ast.Location
}

// readsOf collects the input reads of the rules at refs and of every rule they may depend on,
// following the compiler's rule dependency graph (which holds, for a ref with a variable, every
// rule the ref might select). It over-approximates: a rule reachable from the query is counted
// even when no evaluation reaches it.
func readsOf(c *ast.Compiler, refs ...ast.Ref) inputReads {
	r := inputReads{keys: map[string]bool{}, views: map[string]*ast.Location{}}
	seen := map[util.T]bool{}
	var queue []util.T
	enqueue := func(rule util.T) {
		if !seen[rule] {
			seen[rule] = true
			queue = append(queue, rule)
		}
	}
	for _, ref := range refs {
		for _, rule := range c.GetRules(ref) {
			enqueue(rule)
		}
	}
	var visit func(t *ast.Term) bool
	visit = func(t *ast.Term) bool {
		switch v := t.Value.(type) {
		case ast.Ref:
			if !v[0].Equal(ast.InputRootDocument) {
				return false
			}
			if len(v) < 2 {
				r.all = true
				return true
			}
			if s, ok := v[1].Value.(ast.String); ok {
				r.keys[string(s)] = true
				if len(v) > 2 && (s == "source" || s == "observed") {
					if m, ok := v[2].Value.(ast.String); ok {
						if _, seen := r.views[string(m)]; !seen {
							r.views[string(m)] = t.Location // the first place it is read (nil when unknown)
						}
					}
				}
			} else {
				r.all = true
			}
			for _, x := range v[1:] {
				ast.WalkTerms(x, visit)
			}
			return true
		case ast.Var:
			if v.Equal(ast.InputRootDocument.Value) {
				r.all = true
			}
		}
		return false
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		ast.WalkTerms(n.(*ast.Rule), visit)
		for d := range c.Graph.Dependencies(n) {
			enqueue(d)
		}
	}
	return r
}

// MayRead reports whether an evaluation of the query may read the input's top-level member
// key: some rule the query may reach reads input.<key>, or reads the input in a way that does not
// name its key. When it reports false for a key, two inputs that differ only in that member get
// the same verdict (the policies are pure functions of their input), which lets check share a
// verdict across lanes, versions and configurations that observed the same view.
func (q *Query) MayRead(key string) bool {
	return q.reads.all || q.reads.keys[key]
}

// Class is the class of the constant part of the query's inputs, doc (the members every input of
// one task, stage and fixture shares, the source view apart), given the hash of the source view:
// the sha256 of the canonical encoding (strictjson.Marshal) of the members of doc the query may
// read (MayRead), followed by source when it may read "source". Two constant parts of one class
// are the same input to the query, whatever else they hold: its verdicts on the same observed
// view are the same, and the instrument shares them (its verdict memo).
func (q *Query) Class(doc map[string]any, source [sha256.Size]byte) ([sha256.Size]byte, error) {
	read := map[string]any{}
	for k, v := range doc {
		if q.MayRead(k) {
			read[k] = v
		}
	}
	enc, err := strictjson.Marshal(read)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	h := sha256.New()
	h.Write(enc)
	if q.MayRead("source") {
		h.Write(source[:])
	}
	var class [sha256.Size]byte
	h.Sum(class[:0])
	return class, nil
}
