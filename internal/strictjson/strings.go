package strictjson

// EachString calls f with every string value of the JSON tree v (plain maps and lists, as
// encoding/json or Decode gives them), at any depth; object keys are names, not values, and are
// left out. Maps are walked in no particular order.
func EachString(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		for _, e := range x {
			EachString(e, f)
		}
	case []any:
		for _, e := range x {
			EachString(e, f)
		}
	}
}
