package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestMemoryTargetFlag: --memory-target sets the memory target of any verb, over the verb's own
// and the default, "0" turns it off, --memory-budget without it leaves none, and a bad size is
// an input error naming the flag.
func TestMemoryTargetFlag(t *testing.T) {
	tests := []struct {
		name    string
		verb    string // "collect" carries guard.CollectTarget as its own
		args    []string
		want    int64 // Limits.Target: 0 is the default (guard.DefaultTarget, resolved by the guard)
		wantErr string
	}{
		{name: "default", verb: "check", want: 0},
		{name: "the verb's own", verb: "collect", want: guard.CollectTarget},
		{name: "given", verb: "check", args: []string{"--memory-target", "80MiB"}, want: 80 << 20},
		{name: "given over the verb's own", verb: "collect", args: []string{"--memory-target", "96MiB"}, want: 96 << 20},
		{name: "none", verb: "check", args: []string{"--memory-target", "0"}, want: -1},
		{name: "a budget and no target", verb: "check", args: []string{"--memory-budget", "1GiB"}, want: -1},
		{name: "a budget and a target", verb: "check", args: []string{"--memory-budget", "1GiB", "--memory-target", "72MiB"}, want: 72 << 20},
		{name: "not a size", verb: "check", args: []string{"--memory-target", "lots"}, wantErr: `--memory-target: "lots" is not a size`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", "")
			root := &cobra.Command{Use: "contractcheck"}
			lf := newLimitFlags(root)
			verb := &cobra.Command{Use: tc.verb}
			if tc.verb == "collect" {
				verb.Annotations = map[string]string{memoryTargetKey: guard.Size(guard.CollectTarget)}
			}
			root.AddCommand(verb)
			if err := verb.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			l, err := lf.limits(verb)
			if tc.wantErr != "" {
				var ee *exitError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ee) || ee.code != result.ExitInputError {
					t.Fatalf("error %v, want an input error (exit 2) holding %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Target != tc.want {
				t.Errorf("target %d, want %d", l.Target, tc.want)
			}
		})
	}
}
