package decisionlog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// What a decision of the bundle logs of a task's verdict (internal/bundle rego/decision.rego,
// logged_diagnostic and logged_value; docs/opa.md, "The decision"): a decision holds no number
// from the user's data, because OPA's upload to a log service re-encodes events through float64
// (OPA v1.22 v1/plugins/logs/encoder.go), and no value of the user's data unless the bundle was
// built to quote it.
//
//   - a diagnostic's atom, path, kind and block are the policy's;
//   - every other member of a diagnostic (expected, observed) is a logged value: {"json": its JSON
//     text} in a bundle built with --quote-data, else its description {"type", "length"?,
//     "sha256"} (Describe);
//   - the readout is {"json": its JSON text}.
//
// EncodeTaskResult writes a verdict so; the reader (Read) takes it back, quoted values as the
// values they quote (numbers exact), descriptions as they are.

// plainMembers are the members of a diagnostic a decision gives as the policy gave them.
var plainMembers = map[string]bool{"atom": true, "path": true, "kind": true, "block": true}

// describedTypes are the types a description names.
var describedTypes = map[string]bool{"string": true, "number": true, "boolean": true, "null": true, "array": true, "object": true}

// digest is a description's sha256: 64 lowercase hexadecimal digits.
var digest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// jsonText is a value's JSON text as OPA's json.marshal writes it: encoding/json's, with HTML
// escaping and sorted keys, numbers as spelt (json.Number).
func jsonText(v any) ([]byte, error) {
	return json.Marshal(v)
}

// Describe is what a decision of a bundle built without --quote-data says of a value of the user's
// data: its JSON type, its length (characters of a string, items of an array, members of an
// object) and the sha256 of its JSON text, so that equal values have equal descriptions and
// the value itself is not in the log.
func Describe(v any) (map[string]any, error) {
	text, err := jsonText(v)
	if err != nil {
		return nil, err
	}
	doc, err := strictjson.Decode("", text, strictjson.DefaultLimits)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(text)
	d := map[string]any{"sha256": hex.EncodeToString(sum[:])}
	n := -1
	switch x := doc.(type) {
	case nil:
		d["type"] = "null"
	case bool:
		d["type"] = "boolean"
	case json.Number:
		d["type"] = "number"
	case string:
		d["type"], n = "string", utf8.RuneCountInString(x)
	case []any:
		d["type"], n = "array", len(x)
	case map[string]any:
		d["type"], n = "object", len(x)
	default:
		return nil, fmt.Errorf("%T is not a JSON value", doc)
	}
	if n >= 0 {
		d["length"] = json.Number(strconv.Itoa(n))
	}
	return d, nil
}

// loggedValue is v as a decision logs it: quoted ({"json": text}) or described.
func loggedValue(v any, quote bool) (map[string]any, error) {
	if !quote {
		return Describe(v)
	}
	text, err := jsonText(v)
	if err != nil {
		return nil, err
	}
	return map[string]any{"json": string(text)}, nil
}

// EncodeTaskResult is a task's verdict (a pass or an unmet outcome, its diagnostics in order and
// its readout) as a decision of the bundle logs it, quote saying whether the bundle quotes the
// user's data (--quote-data): what rego/decision.rego's result gives for the same verdict.
func EncodeTaskResult(task, outcome string, diagnostics []result.Diagnostic, readout map[string]any, quote bool) (map[string]any, error) {
	ds := make([]any, 0, len(diagnostics))
	for i, d := range diagnostics {
		out := make(map[string]any, len(d))
		for k, v := range d {
			if plainMembers[k] {
				out[k] = v
				continue
			}
			lv, err := loggedValue(v, quote)
			if err != nil {
				return nil, fmt.Errorf("%s: diagnostics[%d].%s: %w", task, i, k, err)
			}
			out[k] = lv
		}
		ds = append(ds, out)
	}
	if readout == nil {
		readout = map[string]any{}
	}
	text, err := jsonText(readout)
	if err != nil {
		return nil, fmt.Errorf("%s: readout: %w", task, err)
	}
	return map[string]any{"task": task, "outcome": outcome, "diagnostics": ds, "readout": map[string]any{"json": string(text)}}, nil
}

// olderBundle is said of a task result in the shape a bundle older than this reader logs.
const olderBundle = "(a bundle older than this reader logs values as they are, which OPA's upload may round: build it again with contractcheck bundle)"

// readValue reads a logged value: a quoted one as the value its JSON text holds (numbers exact),
// a description as it is.
func readValue(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("is %s, want {\"json\": text} or a description {\"type\", \"length\", \"sha256\"} %s", kind(v), olderBundle)
	}
	if text, has := m["json"]; has {
		s, ok := text.(string)
		if !ok || len(m) != 1 {
			return nil, fmt.Errorf("is %s, want {\"json\": text}", compact(v))
		}
		doc, err := strictjson.Decode("", []byte(s), strictjson.DefaultLimits)
		if err != nil {
			return nil, fmt.Errorf("json is not one strict JSON value: %s", shortErr(err))
		}
		return doc, nil
	}
	typ, _ := m["type"].(string)
	sum, _ := m["sha256"].(string)
	_, hasLength := m["length"]
	wantLength := slices.Contains([]string{"string", "array", "object"}, typ)
	members := 2
	if hasLength {
		members = 3
	}
	bad := !describedTypes[typ] || !digest.MatchString(sum) || hasLength != wantLength || len(m) != members
	if !bad && hasLength {
		n, isNumber := m["length"].(json.Number)
		i, err := strconv.Atoi(n.String())
		bad = !isNumber || err != nil || i < 0
	}
	if bad {
		return nil, fmt.Errorf("is %s, want {\"json\": text} or a description {\"type\", \"length\" (of a string, an array or an object), \"sha256\"} %s", compact(v), olderBundle)
	}
	return m, nil
}
