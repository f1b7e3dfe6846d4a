package policy

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// TestNumbersAtTheReaderLimits: every number strictjson lets through (at most
// strictjson.DefaultLimits.MaxDigits digits, exponent within ±MaxExponent) is compared exactly
// by the task policies, without an OPA panic, whatever the spelling.
func TestNumbersAtTheReaderLimits(t *testing.T) {
	e := loadReal(t)
	q, err := e.Prepare(context.Background(), "contractcheck.tasks.t2")
	if err != nil {
		t.Fatal(err)
	}
	d, x := strictjson.DefaultLimits.MaxDigits, strictjson.DefaultLimits.MaxExponent
	zeros := func(n int) string { return strings.Repeat("0", n) }
	tests := []struct {
		name      string
		src, obs  string
		wantEqual bool
	}{
		{name: "smallest at both limits, two spellings", src: "0." + zeros(d-2) + "1e-" + fmt.Sprint(x), obs: "0." + zeros(d-2) + "1E-" + fmt.Sprint(x), wantEqual: true},
		{name: "smallest at both limits against twice it", src: "0." + zeros(d-2) + "1e-" + fmt.Sprint(x), obs: "0." + zeros(d-2) + "2e-" + fmt.Sprint(x), wantEqual: false},
		{name: "largest at both limits against one unit less", src: strings.Repeat("9", d) + fmt.Sprintf("e%d", x), obs: strings.Repeat("9", d-1) + "8" + fmt.Sprintf("e%d", x), wantEqual: false},
		{name: "integer at the limit against its exponent spelling", src: "1" + zeros(d-1), obs: fmt.Sprintf("1e%d", d-1), wantEqual: true},
		{name: "trailing fraction zeros at the limit", src: "0.1" + zeros(d-2), obs: "0.10", wantEqual: true},
		{name: "last of the digits differs", src: "0." + strings.Repeat("3", d-1), obs: "0." + strings.Repeat("3", d-2) + "4", wantEqual: false},
		{name: "negative against positive", src: "-" + strings.Repeat("7", d), obs: strings.Repeat("7", d), wantEqual: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := input(t, "strict", "", `{"structured": {"n": `+tc.src+`}}`, `{"structured": {"n": `+tc.obs+`}}`)
			v, err := q.Eval(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if v.Pass() != tc.wantEqual {
				t.Errorf("pass = %v, want %v (diagnostics %v)", v.Pass(), tc.wantEqual, v.Diagnostics)
			}
		})
	}
}

// BenchmarkNumberDigits measures a T2 evaluation whose structured slot holds one number of n
// digits that differs from the source's in its last digit, the comparison OPA makes exactly
// through big rationals. ns/digit is the cost per digit: it falls as the evaluation's fixed cost
// is spread over more digits, and at the reader's limit of 4300 digits it is still below that of a
// 100-digit number; past about 5000 the quadratic conversion takes over (docs/design.md, "Limits").
func BenchmarkNumberDigits(b *testing.B) {
	e := loadReal(b)
	q, err := e.Prepare(context.Background(), "contractcheck.tasks.t2")
	if err != nil {
		b.Fatal(err)
	}
	lim := strictjson.DefaultLimits
	lim.MaxDigits = 1 << 30
	for _, n := range []int{16, 100, 1000, 4300, 10000, 43000} {
		src := "0." + strings.Repeat("3", n-1)
		obs := "0." + strings.Repeat("3", n-2) + "4"
		tree, err := strictjson.Decode("in", []byte(`{"task": "T2", "fixture": {"id": "C00", "family": "test"}, "contract": `+
			strings.NewReplacer("%NP%", "strict", "%META%", `{"mode": "preserve"}`).Replace(contractAll)+
			`, "source": {"structured": `+src+`}, "observed": {"structured": `+obs+`}}`), lim)
		if err != nil {
			b.Fatal(err)
		}
		in, err := Input(tree)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("digits=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := q.Eval(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/digit")
		})
	}
}
