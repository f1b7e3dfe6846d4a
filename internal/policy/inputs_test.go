package policy

import (
	"context"
	"testing"
)

// MayRead must never say no to a key an evaluation can read: check shares verdicts across
// lanes on that answer. Each case is a policy package p beside a library package lib that it may
// call; the question is always whether p may read input.lane.
func TestMayRead(t *testing.T) {
	const lib = `package lib

reads_lane(_) if input.lane == "x"

pure(v) := v

unused_lane if input.lane
`
	tests := []struct {
		name   string
		policy string
		want   bool
	}{
		{name: "reads other members only", policy: `diagnostics contains d if { d := input.observed.x; input.source != d }`, want: false},
		{name: "reads it directly", policy: `diagnostics contains "d" if input.lane == "x"`, want: true},
		{name: "reads it in the readout only", policy: "diagnostics := set()\nreadout := {\"l\": input.lane}", want: true},
		{name: "through a library function", policy: `diagnostics contains "d" if data.lib.reads_lane(1)`, want: true},
		{name: "a library function that does not read it", policy: `diagnostics contains d if d := data.lib.pure(input.source)`, want: false},
		{name: "a library rule it never reaches", policy: `diagnostics contains "d" if input.source`, want: false},
		{name: "through a helper rule", policy: "_l := input.lane\ndiagnostics contains \"d\" if _l", want: true},
		{name: "in an else branch", policy: "_l := 1 if input.source else := input.lane\ndiagnostics contains \"d\" if _l", want: true},
		{name: "the whole input", policy: `diagnostics contains "d" if { x := input; x.source }`, want: true},
		{name: "the input passed to a builtin", policy: `diagnostics contains "d" if object.get(input, "source", 0)`, want: true},
		{name: "walked", policy: `diagnostics contains p if walk(input, [p, _])`, want: true},
		{name: "a variable key", policy: `diagnostics contains k if { some k; input[k] }`, want: true},
		{name: "a computed key", policy: `diagnostics contains "d" if input[concat("", ["la", "ne"])]`, want: true},
		{name: "replaced with as", policy: `diagnostics contains "d" if { data.lib.pure(1) with input as {} }`, want: true},
		{name: "imported", policy: "import input.lane as l\n\ndiagnostics contains \"d\" if l", want: true},
		{name: "a dynamic ref into the library", policy: `diagnostics contains "d" if { some f; data.lib[f] }`, want: true},
		{name: "in a comprehension", policy: `diagnostics contains x if { some x in [y | y := input.lane] }`, want: true},
		{name: "in every", policy: `diagnostics contains "d" if { every x in [1] { x != input.lane } }`, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := prepare(t, map[string]string{"lib.rego": lib, "p.rego": "package p\n\n" + tc.policy + "\n"}, "p")
			if got := q.MayRead("lane"); got != tc.want {
				t.Errorf("MayRead(lane) = %v, want %v (reads %+v)", got, tc.want, q.reads)
			}
		})
	}
}

// The built-in task policies read no position member: a verdict is shared by every lane,
// version and configuration that observed the same view. A change that makes one read them is
// allowed, but it costs the built-in check most of its shared verdicts, so it should be seen.
func TestBuiltinTasksReadNoPosition(t *testing.T) {
	e := loadReal(t)
	for _, pkg := range []string{"t1", "t2", "t3", "t4", "t5", "tm", "tp"} {
		q, err := e.Prepare(context.Background(), "contractcheck.tasks."+pkg)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"lane", "laneVersion", "configuration"} {
			if q.MayRead(key) {
				t.Errorf("%s may read input.%s", pkg, key)
			}
		}
		if !q.MayRead("observed") {
			t.Errorf("%s does not read the observed view: the analysis lost its reads", pkg)
		}
	}
}

// TestClass holds Query.Class to what the query may read: constant parts that differ only in a
// member it cannot read (or in the source, for a query that reads no source) are one class;
// a difference in a member it reads, or in the source it reads, is another.
func TestClass(t *testing.T) {
	base := map[string]any{"task": "t", "stage": "M3", "fixture": map[string]any{"id": "F1"}}
	with := func(k string, v any) map[string]any {
		out := map[string]any{}
		for key, val := range base {
			out[key] = val
		}
		out[k] = v
		return out
	}
	src1, src2 := [32]byte{1}, [32]byte{2}
	tests := []struct {
		name      string
		policy    string
		a, b      map[string]any
		srcA      [32]byte
		srcB      [32]byte
		sameClass bool
	}{
		{name: "a member it does not read differs", policy: `diagnostics contains "d" if input.fixture.id == "F1"`,
			a: base, b: with("stage", "H4"), srcA: src1, srcB: src1, sameClass: true},
		{name: "a member it reads differs", policy: `diagnostics contains "d" if input.stage == "M3"`,
			a: base, b: with("stage", "H4"), srcA: src1, srcB: src1},
		{name: "the source differs, unread", policy: `diagnostics contains "d" if input.stage == "M3"`,
			a: base, b: base, srcA: src1, srcB: src2, sameClass: true},
		{name: "the source differs, read", policy: `diagnostics contains "d" if input.source.x`,
			a: base, b: base, srcA: src1, srcB: src2},
		{name: "nothing differs", policy: `diagnostics contains "d" if { x := input; x.stage }`,
			a: base, b: with("stage", "M3"), srcA: src1, srcB: src1, sameClass: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := prepare(t, map[string]string{"p.rego": "package p\n\n" + tc.policy + "\n"}, "p")
			a, err := q.Class(tc.a, tc.srcA)
			if err != nil {
				t.Fatal(err)
			}
			b, err := q.Class(tc.b, tc.srcB)
			if err != nil {
				t.Fatal(err)
			}
			if (a == b) != tc.sameClass {
				t.Errorf("same class = %v, want %v", a == b, tc.sameClass)
			}
		})
	}
}
