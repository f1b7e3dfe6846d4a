package strictjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDigitLimit: a number may have DefaultLimits.MaxDigits mantissa digits and not one more;
// the error points at the first digit past the limit. The traps that made OPA panic
// (0.000…0001 with a million zeros) or spend 15 s (a million-digit integer) fail here at once.
func TestDigitLimit(t *testing.T) {
	max := DefaultLimits.MaxDigits
	tests := []struct {
		name    string
		in      string
		wantErr string // "" means the number is kept verbatim
	}{
		{name: "integer at the limit", in: "1" + strings.Repeat("0", max-1)},
		{name: "integer one past", in: "1" + strings.Repeat("0", max), wantErr: "in.json:1:4301: number exceeds the limit of 4300 digits here"},
		{name: "negative integer at the limit", in: "-" + strings.Repeat("9", max)},
		{name: "negative integer one past", in: "-" + strings.Repeat("9", max+1), wantErr: "in.json:1:4302: number exceeds the limit of 4300 digits here"},
		{name: "fraction at the limit", in: "0." + strings.Repeat("0", max-2) + "1"},
		{name: "fraction one past", in: "0." + strings.Repeat("0", max-1) + "1", wantErr: "in.json:1:4302: number exceeds the limit of 4300 digits here"},
		{name: "fraction with exponent at both limits", in: "0." + strings.Repeat("0", max-2) + "1e-10000"},
		{name: "exponent digits do not count", in: "1." + strings.Repeat("5", max-2) + "e+10000"},
		{name: "in an array, at line 2", in: "[1,\n " + strings.Repeat("7", max+5) + "]", wantErr: "in.json:2:4302: number exceeds the limit of 4300 digits here"},
		{name: "the OPA panic trap: a million fraction zeros", in: "{\"t\": 0." + strings.Repeat("0", 1000000) + "1}", wantErr: "in.json:1:4308: number exceeds the limit of 4300 digits here"},
		{name: "the slow trap: a million-digit integer", in: "[1" + strings.Repeat("0", 1000000) + "]", wantErr: "in.json:1:4302: number exceeds the limit of 4300 digits here"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode("in.json", []byte(tc.in), DefaultLimits)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if n, ok := v.(json.Number); !ok || string(n) != tc.in {
					t.Errorf("got %v, want the number verbatim", v)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestDigitLimitLineReader: the record reader applies the same bound, with the record's line.
func TestDigitLimitLineReader(t *testing.T) {
	in := "{\"a\": 1}\n{\"a\": " + strings.Repeat("3", DefaultLimits.MaxDigits+1) + "}\n"
	lr := NewLineReader("r.jsonl", strings.NewReader(in), DefaultLimits)
	if _, _, err := lr.Next(); err != nil {
		t.Fatal(err)
	}
	_, _, err := lr.Next()
	if want := "r.jsonl:2:4307: number exceeds the limit of 4300 digits here"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
