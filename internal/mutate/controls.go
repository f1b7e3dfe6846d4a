package mutate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
)

func controlOperators() []*Operator {
	return []*Operator{
		{Name: "key-order", Kind: Control, Doc: "Reverse the member order of every object in the carrier.", apply: keyOrder},
		{Name: "whitespace", Kind: Control, Doc: "Write the record with indentation and spaces: the same JSON, other whitespace.", apply: whitespace},
		{Name: "unicode-escape", Kind: Control, Doc: "Write every letter of the carrier's strings and keys as a \\u escape (surrogate pairs beyond the BMP): the same characters.", apply: unicodeEscape},
		{Name: "escape-solidus", Kind: Control, Doc: "Write every '/' in the carrier's strings as \"\\/\": the same characters.", apply: escapeSolidus},
		{Name: "number-exponent", Kind: Control, Doc: "Respell every number of the carrier with an exponent and no fraction (100 as 1e2, 2.35 as 235e-2): the same values.", apply: numberExponent},
		{Name: "number-trailing-zeros", Kind: Control, Doc: "Append zeros to the fraction of every decimal number of the carrier (2.35 as 2.350): the same values.", apply: numberTrailingZeros},
		{Name: "base64-unpadded", Kind: Control, Doc: "Write base64 payloads without their '=' padding, where the carrier allows it: the same bytes.", apply: unpadded("base64")},
		{Name: "dataurl-vs-base64", Kind: Control, Doc: "Carry a data URL payload whose body is not the source's base64 text (re-encoded without padding): the payload is the bytes, whatever their spelling.", apply: unpadded("dataurl-payload")},
	}
}

func keyOrder(m *M) error {
	changed := 0
	m.Carrier.Walk("", func(_ string, n *Node) {
		if n.Kind == Object && len(n.Keys) > 1 {
			for i, j := 0, len(n.Keys)-1; i < j; i, j = i+1, j-1 {
				n.Keys[i], n.Keys[j] = n.Keys[j], n.Keys[i]
				n.Vals[i], n.Vals[j] = n.Vals[j], n.Vals[i]
			}
			changed++
		}
	})
	if changed == 0 {
		return na("the carrier has no object with two members")
	}
	m.Params["objects"] = changed
	m.What = fmt.Sprintf("reversed the member order of %d objects", changed)
	return nil
}

var indents = []string{"  ", "\t", "    "}

func whitespace(m *M) error {
	i := m.Rand.IntN(len(indents))
	m.Record = Style{Indent: indents[i], Colon: " "}
	m.Style = m.Record
	m.Params["indent"] = indents[i]
	m.What = fmt.Sprintf("wrote the record indented by %q with a space after each colon", indents[i])
	return nil
}

func unicodeEscape(m *M) error {
	m.Style.EscapeLetters = true
	m.What = "wrote the letters of the carrier's strings and keys as \\u escapes"
	return nil
}

func escapeSolidus(m *M) error {
	found := false
	m.Carrier.Walk("", func(_ string, n *Node) {
		found = found || n.Kind == String && strings.Contains(n.Text, "/")
	})
	if !found {
		return na("no string of the carrier holds a '/'")
	}
	m.Style.EscapeSolidus = true
	m.What = "wrote every '/' in the carrier's strings as \\/"
	return nil
}

func numberExponent(m *M) error {
	n := 0
	m.Carrier.Walk("", func(_ string, x *Node) {
		if x.Kind == Number {
			x.Text = exponentForm(x.Text)
			n++
		}
	})
	if n == 0 {
		return na("the carrier holds no number")
	}
	m.Params["numbers"] = n
	m.What = fmt.Sprintf("respelled %d numbers with an exponent", n)
	return nil
}

func numberTrailingZeros(m *M) error {
	n := 0
	zeros := strings.Repeat("0", 1+m.Rand.IntN(2))
	m.Carrier.Walk("", func(_ string, x *Node) {
		if x.Kind != Number {
			return
		}
		mant, exp := x.Text, ""
		if i := strings.IndexAny(mant, "eE"); i >= 0 {
			mant, exp = mant[:i], mant[i:]
		}
		if strings.Contains(mant, ".") {
			x.Text = mant + zeros + exp
			n++
		}
	})
	if n == 0 {
		return na("the carrier holds no decimal number")
	}
	m.Params["numbers"] = n
	m.Params["zeros"] = len(zeros)
	m.What = fmt.Sprintf("appended %d zero(s) to the fraction of %d numbers", len(zeros), n)
	return nil
}

// unpadded strips the '=' padding of every payload bound with decoder dec (in any compartment of
// the stage) that has padding.
func unpadded(dec string) func(m *M) error {
	return func(m *M) error {
		seen := map[*Node]bool{}
		var idx []int
		sd := m.Env.Model.Lanes[m.Env.Lane].Stages[m.Env.Stage]
		for _, name := range contract.SortedKeys(sd.Compartments) {
			for _, b := range blocks(m.Carrier, sd.Compartments[name]) {
				f, v, ok := b.field("payload")
				if !ok || f.Decode != dec || v.Kind != String || seen[v] || !strings.HasSuffix(v.Text, "=") {
					continue
				}
				if _, _, ok := decodePayload(f, v.Text); !ok {
					continue
				}
				seen[v] = true
				v.Text = strings.TrimRight(v.Text, "=")
				idx = append(idx, b.index)
			}
		}
		if len(idx) == 0 {
			return na("no payload bound with decoder %s carries padding", dec)
		}
		m.Blocks = idx
		m.Params["blocks"] = idx
		m.What = fmt.Sprintf("removed the base64 padding of the payloads of content items %v", idx)
		return nil
	}
}

// exponentForm spells a JSON number as digits and an exponent, without a fraction: 100 → 1e2,
// 2.35 → 235e-2, 16 → 16e0, 2.5E-7 → 25e-8; a number already in that form moves one zero into the
// digits (1e2 → 10e1).
func exponentForm(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	mant, expPart := s, "0"
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expPart = s[:i], strings.TrimPrefix(s[i+1:], "+")
	}
	exp, err := strconv.ParseInt(expPart, 10, 64)
	if err != nil {
		return sign + s
	}
	ip, fp, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(ip+fp, "0")
	exp -= int64(len(fp))
	if digits == "" {
		return sign + "0e0"
	}
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	out := sign + digits + "e" + strconv.FormatInt(exp, 10)
	if out == sign+s {
		out = sign + digits + "0e" + strconv.FormatInt(exp-1, 10)
	}
	return out
}
