package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/guard"
)

// TestEvalTimeLimit: a rule that would run for hours stops at the per-evaluation time limit with
// a *guard.LimitError naming the package and its file.
func TestEvalTimeLimit(t *testing.T) {
	ctx := guard.WithLimits(context.Background(), guard.Limits{Eval: 200 * time.Millisecond})
	tests := []struct {
		name, src string
	}{
		{name: "iteration over a huge range", src: "package slow\n\ndiagnostics contains {\"atom\": \"x\"} if {\n\tsome i in numbers.range(1, 1000000000000)\n\ti < 0\n}\n"},
		{name: "nested iteration", src: "package slow\n\ndiagnostics contains {\"atom\": \"x\"} if {\n\tsome i in numbers.range(1, 100000)\n\tsome j in numbers.range(1, 100000)\n\ti + j < 0\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := prepare(t, map[string]string{"slow.rego": tc.src}, "slow").Eval(ctx, ast.NewObject())
			var le *guard.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("error %v, want a *guard.LimitError", err)
			}
			if want := "policy slow (mine/slow.rego): stopped at the time limit of 200ms"; err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
		})
	}
}

// TestLocalTimeZoneIsUTC: "Local" in a time builtin is UTC whatever TZ says, so a verdict cannot
// depend on the machine's zone.
func TestLocalTimeZoneIsUTC(t *testing.T) {
	src := `package tz

diagnostics contains {"atom": "clock", "local": time.date([0, "Local"]), "utc": time.date([0, "UTC"])} if {
	time.date([0, "Local"]) != time.date([0, "UTC"])
}

readout := {"clock": time.clock([43200000000000, "Local"])}
`
	v, err := prepare(t, map[string]string{"tz.rego": src}, "tz").Eval(context.Background(), ast.NewObject())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pass() {
		t.Errorf("Local and UTC differ: %v", v.Diagnostics)
	}
	if got := fmt.Sprint(v.Readout["clock"]); got != "[12 0 0]" {
		t.Errorf("time.clock at noon UTC in Local = %v, want [12 0 0]", got)
	}
}

// TestParseErrorShowsTokenOnly: a file that is not Rego (here, a password file named .rego) is
// reported with its position and the offending token, never its line.
func TestParseErrorShowsTokenOnly(t *testing.T) {
	secret := "root:x:0:0:root:/root:/bin/bash s3cr3t-token-do-not-print\n"
	_, err := Load(policyLayer("mine", map[string]string{"passwd.rego": secret}), LoadOptions{Tests: true})
	if err == nil {
		t.Fatal("Load succeeded")
	}
	if !strings.Contains(err.Error(), "mine/passwd.rego:1:") {
		t.Errorf("error %q does not name the file and position", err)
	}
	if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "/bin/bash") {
		t.Errorf("error echoes the file: %q", err)
	}
}
