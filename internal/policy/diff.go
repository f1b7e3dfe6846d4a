package policy

import (
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"
)

// DiffBuiltin is the name of the custom builtin behind views.diff:
// contractcheck.diff(expected, observed, base) is the set of minimal
// differences between two JSON values, each an object
// {"path", "kind", "expected"?, "observed"?} with path an RFC 6901 pointer
// under base (see diffImpl).
const DiffBuiltin = "contractcheck.diff"

var diffFunc = &rego.Function{
	Name: DiffBuiltin,
	Decl: types.NewFunction(
		types.Args(
			types.Named("expected", types.A).Description("the expected JSON value"),
			types.Named("observed", types.A).Description("the observed JSON value"),
			types.Named("base", types.S).Description("the JSON pointer the paths are under"),
		),
		types.Named("diffs", types.NewSet(types.NewObject(nil, types.NewDynamicProperty(types.S, types.A)))).
			Description("the minimal differences"),
	),
	// Not memoized here: views.diff, the Rego function wrapping it, is
	// memoized by OPA like any function, exactly as before.
	Memoize: false,
}

var (
	diffPathKey     = ast.StringTerm("path")
	diffKindKey     = ast.StringTerm("kind")
	diffExpectedKey = ast.StringTerm("expected")
	diffObservedKey = ast.StringTerm("observed")
	diffMissing     = ast.StringTerm("missing")
	diffAdded       = ast.StringTerm("added")
	diffAltered     = ast.StringTerm("altered")
)

// diffImpl implements contractcheck.diff(expected, observed, base) on JSON
// values:
//
//   - equal values (compared as OPA's == does: key order ignored, array order
//     kept, types distinct, numbers exactly as decimals through ast.Compare,
//     never float64) give the empty set;
//   - two objects are compared member by member: a key only in expected is
//     {"kind": "missing", "expected": value}, only in observed
//     {"kind": "added", "observed": value}, and members on both sides are
//     compared in turn;
//   - two arrays are compared index by index, the longer side's extra indices
//     being missing or added;
//   - any other two values that differ (two scalars, or values of different
//     types, object vs array included) are one
//     {"kind": "altered", "expected": x, "observed": y}, their members not
//     reported.
//
// Each value in a diagnostic is the subterm of its own side, so it keeps that
// side's number spelling. Paths are base followed by "/" and one RFC 6901
// token per step: object keys with "~" as "~0" and "/" as "~1", array
// indices in decimal. Sets are compared as whole values; members under
// object keys that are not strings (which JSON has not) are not reported.
func diffImpl(_ rego.BuiltinContext, a, b, base *ast.Term) (*ast.Term, error) {
	s, ok := base.Value.(ast.String)
	if !ok {
		return nil, builtins.NewOperandTypeErr(3, base.Value, "string")
	}
	d := differ{path: []byte(s)}
	d.walk(a, b)
	return ast.SetTerm(d.out...), nil
}

type differ struct {
	path []byte // the JSON pointer of the values being compared
	out  []*ast.Term
}

func (d *differ) emit(kind *ast.Term, x, y *ast.Term) {
	pairs := make([][2]*ast.Term, 0, 4)
	pairs = append(pairs, [2]*ast.Term{diffPathKey, ast.StringTerm(string(d.path))}, [2]*ast.Term{diffKindKey, kind})
	if x != nil {
		pairs = append(pairs, [2]*ast.Term{diffExpectedKey, x})
	}
	if y != nil {
		pairs = append(pairs, [2]*ast.Term{diffObservedKey, y})
	}
	d.out = append(d.out, ast.ObjectTerm(pairs...))
}

// walk appends the differences between x and y at d.path.
func (d *differ) walk(x, y *ast.Term) {
	switch xv := x.Value.(type) {
	case ast.Object:
		if yv, ok := y.Value.(ast.Object); ok {
			d.objects(xv, yv)
			return
		}
	case *ast.Array:
		if yv, ok := y.Value.(*ast.Array); ok {
			d.arrays(xv, yv)
			return
		}
	}
	if ast.Compare(x.Value, y.Value) != 0 {
		d.emit(diffAltered, x, y)
	}
}

func (d *differ) objects(x, y ast.Object) {
	n := len(d.path)
	x.Foreach(func(k, xt *ast.Term) {
		if !d.pushKey(k) {
			return
		}
		if yt := y.Get(k); yt != nil {
			d.walk(xt, yt)
		} else {
			d.emit(diffMissing, xt, nil)
		}
		d.path = d.path[:n]
	})
	y.Foreach(func(k, yt *ast.Term) {
		if x.Get(k) != nil || !d.pushKey(k) {
			return
		}
		d.emit(diffAdded, nil, yt)
		d.path = d.path[:n]
	})
}

func (d *differ) arrays(x, y *ast.Array) {
	n := len(d.path)
	for i := 0; i < max(x.Len(), y.Len()); i++ {
		d.path = strconv.AppendInt(append(d.path, '/'), int64(i), 10)
		switch {
		case i >= y.Len():
			d.emit(diffMissing, x.Elem(i), nil)
		case i >= x.Len():
			d.emit(diffAdded, nil, y.Elem(i))
		default:
			d.walk(x.Elem(i), y.Elem(i))
		}
		d.path = d.path[:n]
	}
}

// pushKey appends "/" and the RFC 6901 token of the object key k to d.path,
// and reports false (appending nothing) when k is not a string.
func (d *differ) pushKey(k *ast.Term) bool {
	s, ok := k.Value.(ast.String)
	if !ok {
		return false
	}
	d.path = append(d.path, '/')
	if !strings.ContainsAny(string(s), "~/") {
		d.path = append(d.path, s...)
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			d.path = append(d.path, '~', '0')
		case '/':
			d.path = append(d.path, '~', '1')
		default:
			d.path = append(d.path, s[i])
		}
	}
	return true
}
