package bundle

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
)

// TestRegoLimitsMatchGo holds the depths the bundle's Rego reads to the ones Build enforces in
// Go: a pointer of MaxPointerTokens tokens (checkPointers) is the deepest rego/pointer.rego
// follows, and MaxSchemaDepth (checkProviderSchema) is rego/accept.rego's max_depth, the levels
// its reached() unrolls. Rego has no recursion, so each depth is written out there; this test
// is what ties each to its Go constant.
func TestRegoLimitsMatchGo(t *testing.T) {
	compiler := compileRego(t, "rego/pointer.rego", "rego/accept.rego")
	eval := func(query string) (any, bool) {
		t.Helper()
		rs, err := rego.New(rego.Compiler(compiler), rego.Query("x := "+query)).Eval(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 {
			return nil, false
		}
		return rs[0].Bindings["x"], true
	}
	deep := func(n int) string { return strings.Repeat(`{"a": `, n) + `"x"` + strings.Repeat("}", n) }
	ptr := func(n int) string { return strings.Repeat("/a", n) }
	n := MaxPointerTokens
	if v, ok := eval(`data.contractcheck.bundle.pointer.lookup(` + deep(n) + `, "` + ptr(n) + `")`); !ok || v != "x" {
		t.Errorf("pointer.rego does not follow a pointer of %d tokens (MaxPointerTokens): %v", n, v)
	}
	if v, ok := eval(`data.contractcheck.bundle.pointer.lookup(` + deep(n+1) + `, "` + ptr(n+1) + `")`); ok {
		t.Errorf("pointer.rego follows a pointer of %d tokens, past MaxPointerTokens: %v (raise the constant)", n+1, v)
	}
	for query, want := range map[string]int{"data.contractcheck.bundle.pointer.max_tokens": MaxPointerTokens, "data.contractcheck.bundle.accept.max_depth": MaxSchemaDepth} {
		if v, ok := eval(query); !ok || fmt.Sprint(v) != strconv.Itoa(want) {
			t.Errorf("%s is %v, want %d", query, v, want)
		}
	}
	// reached() holds the nodes of MaxSchemaDepth levels: the root's (l0) and one _next per level
	// below it.
	src, _ := Rego.ReadFile("rego/accept.rego")
	if got := strings.Count(string(src), ":= _next(ctx, "); got != MaxSchemaDepth-1 {
		t.Errorf("accept.rego's reached() follows %d levels below the root, want MaxSchemaDepth-1 = %d", got, MaxSchemaDepth-1)
	}
}
