package report

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// jsonLine is one line of a JSON value laid out for reading: its indentation, the RFC 6901
// pointer of the member or element it shows (an object's or array's closing line carries the
// pointer of its opening one) and its text.
type jsonLine struct {
	indent  int
	pointer string
	text    string
}

// jsonLines lays a JSON-shaped value (maps, slices, strings, booleans, nil, json.Number) out one
// member per line, keys sorted, numbers exactly as spelled: the drill-down highlights lines by
// pointer, and a number is shown with the digits the policy compared.
func jsonLines(v any) []jsonLine {
	var out []jsonLine
	layoutJSON(&out, v, "", "", 0, false)
	return out
}

func layoutJSON(out *[]jsonLine, v any, ptr, label string, indent int, comma bool) {
	end := ""
	if comma {
		end = ","
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			*out = append(*out, jsonLine{indent, ptr, label + "{}" + end})
			return
		}
		*out = append(*out, jsonLine{indent, ptr, label + "{"})
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			layoutJSON(out, x[k], ptr+"/"+strictjson.EscapeToken(k), compactJSON(k)+": ", indent+1, i < len(keys)-1)
		}
		*out = append(*out, jsonLine{indent, ptr, "}" + end})
	case []any:
		if len(x) == 0 {
			*out = append(*out, jsonLine{indent, ptr, label + "[]" + end})
			return
		}
		*out = append(*out, jsonLine{indent, ptr, label + "["})
		for i, e := range x {
			layoutJSON(out, e, ptr+"/"+strconv.Itoa(i), "", indent+1, i < len(x)-1)
		}
		*out = append(*out, jsonLine{indent, ptr, "]" + end})
	default:
		*out = append(*out, jsonLine{indent, ptr, label + compactJSON(x) + end})
	}
}

// compactJSON writes a JSON-shaped value (or, as a fallback, any value) on one line without HTML
// escaping, keys sorted; json.Number keeps its spelling.
func compactJSON(v any) string {
	b, err := strictjson.MarshalGo(v)
	if err != nil {
		return fmt.Sprintf("%q", fmt.Sprint(v))
	}
	return string(b)
}

// HTMLStyle is the style sheet of the HTML reports, for the other verbs' html formats (compare)
// so that every page contractcheck writes reads alike.
func HTMLStyle() string { return htmlCSS }
