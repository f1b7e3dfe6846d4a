package strictjson

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// Equal reports whether two trees denote the same JSON value. It is the
// comparison the checker needs, not Go's: numbers are compared as exact
// decimals, so 1e2 equals 100 and 1.0 equals 1 (and -0 equals 0), while
// 12345678901234567891 differs from 12345678901234567000 even though both
// round to the same float64. Object key order is irrelevant, array order
// matters, and JSON types are distinct (the string "1" is not the number 1,
// null is not false, an empty array is not an empty object).
//
// It accepts the same types as Marshal, comparing them as the JSON Marshal
// would write (an int and a json.Number can be equal). A json.Number that is
// not valid JSON, a NaN or infinite float64, or an unsupported type is equal
// to nothing.
func Equal(a, b any) bool {
	a, b = normalize(a), normalize(b)
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numberEqual(string(x), string(y))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// normalize maps the convenience types onto the decoded-tree types, one level
// deep (Equal recurses); unsupported types become a value equal to nothing.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return json.Number(strconv.Itoa(x))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = s
		}
		return out
	case nil:
		return nil
	case bool, string, json.Number, []any, map[string]any:
		return v
	}
	return unsupported{}
}

type unsupported struct{}

// decimal is a number as sign × digits × 10^exp with digits free of leading
// and trailing zeros; zero has empty digits and no sign. That form is unique
// per value, so comparing it is comparing values. Only the exponent uses
// math/big: the digits stay a string, because big.Rat or big.Float on an input
// like 1e999999999 would try to materialise a billion digits.
type decimal struct {
	neg    bool
	digits string
	exp    big.Int
}

func numberEqual(a, b string) bool {
	var x, y decimal
	if !x.parse(a) || !y.parse(b) {
		return false
	}
	return x.neg == y.neg && x.digits == y.digits && x.exp.Cmp(&y.exp) == 0
}

// parse reads a JSON number into canonical form; it reports false when s is
// not a JSON number.
func (d *decimal) parse(s string) bool {
	if !validNumber(s) {
		return false
	}
	if s[0] == '-' {
		d.neg = true
		s = s[1:]
	}
	mant, expPart := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expPart = s[:i], s[i+1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if expPart != "" {
		// The grammar guarantees an optional sign and digits, which
		// big.Int accepts ("+5" included).
		d.exp.SetString(expPart, 10)
	}
	d.exp.Sub(&d.exp, big.NewInt(int64(len(frac))))
	digits := strings.TrimLeft(intPart+frac, "0")
	trimmed := strings.TrimRight(digits, "0")
	if trimmed == "" {
		*d = decimal{} // zero: sign and exponent are irrelevant
		return true
	}
	d.exp.Add(&d.exp, big.NewInt(int64(len(digits)-len(trimmed))))
	d.digits = trimmed
	return true
}

// TypeName names the JSON type of a decoded value: "null", "boolean", "string", "array", "object"
// or "number" (json.Number and the numeric convenience types).
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}
