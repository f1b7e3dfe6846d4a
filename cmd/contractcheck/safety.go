package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/policy"
)

// memoryTargetKey is the annotation of a verb that keeps the Go runtime under a memory target of
// its own (guard.Limits.ForVerb), a size as --memory-budget takes it: collect's
// (guard.CollectTarget).
const memoryTargetKey = "contractcheck/memory-target"

// limitFlags are the global flags bounding what a user's policies and contracts may spend.
type limitFlags struct {
	eval, load     time.Duration
	memory, target string
}

// addLimitFlags binds the resource limits as global flags of root, and starts the guard before
// any verb runs: the verb's context carries the limits (guard.WithLimits) and the memory watchdog
// watches it; what the policies print() is collected, and written to stderr when the verb is done
// (policy.PrintTo). The returned function writes it and stops the watchdog.
func addLimitFlags(root *cobra.Command) (stop func()) {
	lf := newLimitFlags(root)
	stops := []func(){}
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		l, err := lf.limits(cmd)
		if err != nil {
			return err
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, stopWatch := guard.Watch(guard.WithLimits(ctx, l))
		stops = append(stops, stopWatch)
		ctx, flushPrint := policy.PrintTo(ctx, cmd.ErrOrStderr()) // what the policies print(), once the verb is done
		stops = append(stops, func() { _ = flushPrint() })
		cmd.SetContext(ctx)
		return nil
	}
	return func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
}

// newLimitFlags binds the limit flags as persistent flags of root, with their defaults.
func newLimitFlags(root *cobra.Command) *limitFlags {
	f := root.PersistentFlags()
	d := guard.DefaultLimits()
	lf := &limitFlags{eval: d.Eval, load: d.Load, memory: guard.Size(d.Memory)}
	f.DurationVar(&lf.eval, "eval-timeout", lf.eval, "time limit of one policy evaluation (or one Rego test); over it the instrument fails (exit 3)")
	f.DurationVar(&lf.load, "load-timeout", lf.load, "time limit of evaluating the CUE contracts; over it the instrument fails (exit 3)")
	f.StringVar(&lf.memory, "memory-budget", lf.memory, "memory budget of the whole run (KiB, MiB, GiB); over it the instrument fails (exit 3)")
	f.StringVar(&lf.target, "memory-target", "", fmt.Sprintf("memory the collector keeps the Go runtime under while the live heap allows (KiB, MiB, GiB; 0: none): more spends less CPU (default %s, collect %s; none with GOMEMLIMIT or --memory-budget)", guard.Size(guard.DefaultTarget), guard.Size(guard.CollectTarget)))
	return lf
}

// limits is the guard's limits for a run of cmd: the flags' time limits and budget, and the
// memory target the user gave (--memory-target, "0" for none), else the verb's own
// (memoryTargetKey), else the default; a user who chose the memory the run may hold
// (--memory-budget, GOMEMLIMIT) and no target gets none below it.
func (lf *limitFlags) limits(cmd *cobra.Command) (guard.Limits, error) {
	mem, err := guard.ParseSize(lf.memory)
	if err != nil {
		return guard.Limits{}, inputError(err)
	}
	var target int64 // the verb's own memory target (memoryTargetKey), if it has one
	if s, ok := cmd.Annotations[memoryTargetKey]; ok {
		if target, err = guard.ParseSize(s); err != nil {
			return guard.Limits{}, fmt.Errorf("%s: memory target %q: %w", cmd.Name(), s, err)
		}
	}
	l := guard.Limits{Eval: lf.eval, Load: lf.load, Memory: mem}.ForVerb(target, cmd.Flags().Changed("memory-budget"))
	if cmd.Flags().Changed("memory-target") {
		if strings.TrimSpace(lf.target) == "0" {
			l.Target = -1
		} else if l.Target, err = guard.ParseSize(lf.target); err != nil {
			return guard.Limits{}, inputError(fmt.Errorf("--memory-target: %w", err))
		}
	}
	return l, nil
}

// inputsOf lists the directories a run of the contract set reads (the user's layers; built-in ones
// are inside the binary) and any other input paths, for the --output check.
func inputsOf(o inputs.Options, more ...string) []string {
	var out []string
	for _, d := range o.Inputs() {
		if d.Local != "" {
			out = append(out, d.Local)
		}
	}
	for _, m := range more {
		if m != "" {
			out = append(out, m)
		}
	}
	return out
}

// existingDir returns p when it names a directory, else "" (a built-in suite's name).
func existingDir(p string) string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return p
	}
	return ""
}
