package policy

import (
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// OPA compares numbers exactly (int64, a decimal fast path for up to 15
// significant digits, else big.Rat) except for one float64 shortcut in
// ast.NumberCompare: when both numbers contain a '.' and trailing '.'/'0'
// characters, and still contain a '.' once those are trimmed, it calls them
// equal as soon as both round to the same float64. So
// 0.10000000000000000000010 == 0.10 is true in Rego, while
// 0.1000000000000000000001 == 0.10 is (correctly) false.
//
// The engine therefore respells such numbers before a policy sees them (in
// the input and in contractcheck.json_text results): without the trailing
// zeros, or, when an exponent is present, as digits and exponent without a
// '.'. The respelling denotes the same decimal and keeps OPA off the
// shortcut, so Rego's == is exact on everything a policy reads. Only numbers
// OPA's decimal fast path cannot take (more than 15 significant digits, or an
// exponent) are respelled, so ordinary spellings such as 1.50 are kept.

// respell returns a spelling of the JSON number s that OPA compares exactly,
// and whether it differs from s.
func respell(s string) (string, bool) {
	if strings.IndexByte(s, '.') < 0 {
		return s, false
	}
	if t := strings.TrimRight(s, ".0"); t == s || strings.IndexByte(t, '.') < 0 {
		return s, false
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	ip, fp, _ := strings.Cut(mant, ".")
	sig := strings.TrimLeft(ip+fp, "0")
	if !hasExp && len(sig) <= 15 {
		return s, false // OPA's exact decimal fast path applies
	}
	if !hasExp {
		return sign + ip + "." + strings.TrimRight(fp, "0"), true
	}
	e, err := strconv.ParseInt(strings.TrimPrefix(exp, "+"), 10, 64)
	if err != nil || e < -(1<<62) || e > 1<<62 {
		return s, false // beyond any comparison OPA can make anyway
	}
	digits := strings.TrimRight(sig, "0")
	if digits == "" {
		return "0", true
	}
	e = e - int64(len(fp)) + int64(len(sig)-len(digits))
	return sign + digits + "e" + strconv.FormatInt(e, 10), true
}

// needsRespell reports whether v holds a number respell would change.
func needsRespell(v ast.Value) bool {
	switch x := v.(type) {
	case ast.Number:
		_, changed := respell(string(x))
		return changed
	case *ast.Array:
		for i := 0; i < x.Len(); i++ {
			if needsRespell(x.Elem(i).Value) {
				return true
			}
		}
	case ast.Object:
		found := false
		x.Until(func(_, t *ast.Term) bool {
			found = needsRespell(t.Value)
			return found
		})
		return found
	}
	return false
}

// respellValue returns v with every number respelled (see respell). It copies
// only when needed.
func respellValue(v ast.Value) ast.Value {
	if !needsRespell(v) {
		return v
	}
	switch x := v.(type) {
	case ast.Number:
		s, _ := respell(string(x))
		return ast.Number(s)
	case *ast.Array:
		elems := make([]*ast.Term, x.Len())
		for i := range elems {
			elems[i] = ast.NewTerm(respellValue(x.Elem(i).Value))
		}
		return ast.NewArray(elems...)
	case ast.Object:
		pairs := make([][2]*ast.Term, 0, x.Len())
		x.Foreach(func(k, t *ast.Term) {
			pairs = append(pairs, [2]*ast.Term{k, ast.NewTerm(respellValue(t.Value))})
		})
		return ast.NewObject(pairs...)
	}
	return v
}

// Respell returns v with every number respelled as the engine respells the policy input (see
// respell): the bundle writer (internal/bundle) writes the source views so, ready for a policy.
func Respell(v ast.Value) ast.Value { return respellValue(v) }
