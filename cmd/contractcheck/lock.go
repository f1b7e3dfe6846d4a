package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/lock"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

const lockLong = `Lock writes contractcheck.lock: the tool version, the layer options, and the sha256 of every
contract, policy, schema, source and record file a check with the same flags reads (built-in files
by the hash of the bytes embedded in the binary, named builtin:…). Commit it; then

  contractcheck check --locked        (or --frozen)

computes the same again before it runs and refuses any drift with exit 2, naming each file that
changed, appeared or disappeared, a different tool version, or different layer flags.

The lock is JSON (schemas/contractcheck/lock.schema.json), one file a line, sorted, and written
whole or not at all. It takes the input flags of check; the filters (--lane, --task, …) and the
profile do not change which files a run reads, so they are not part of it.`

const lockExample = `  contractcheck lock
  contractcheck lock --contracts my-layer --policies my-layer --observations captures
  contractcheck check --locked --contracts my-layer --policies my-layer --observations captures`

// lockParams are the flags of lock.
type lockParams struct {
	inputs.Options
	out output[*lock.Lock]
}

func newLockCommand() *cobra.Command {
	var p lockParams
	cmd := &cobra.Command{
		Use:     "lock",
		Short:   "Pin the hashes of every contract, policy, schema, source and record file a check reads",
		Long:    lockLong,
		Example: lockExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitOn(runLock(p, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	addInputFlags(cmd, &p.Options)
	addObservationsFlag(cmd, &p.Options)
	addOutputFlags(cmd, &p.out, lock.Outputters(), outputSpec{what: "lock file", format: "json", file: lock.FileName})
	return cmd
}

// runLock computes the lock and writes it to --output (standard output when that is empty); what
// it wrote is said on stderr, as every verb says what it wrote to an --output file.
func runLock(p lockParams, stdout, stderr io.Writer) error {
	out, err := p.out.resolve(report.Options{}, inputsOf(p.Options))
	if err != nil {
		return err
	}
	l, err := lock.Compute(p.Options, lockToolVersion())
	if err != nil {
		return result.AsInput(err)
	}
	if err := p.out.write(stdout, out, l); err != nil {
		return err
	}
	if !p.out.toFile() {
		return nil
	}
	counts := map[string]int{}
	for _, f := range l.Files {
		counts[f.Kind]++
	}
	fmt.Fprintf(stderr, "wrote %s: %d files (%d contracts, %d policies, %d schemas, %d sources, %d records), contractcheck %s\n",
		escape.Terminal(p.out.File), len(l.Files), counts[lock.Contract], counts[lock.Policy], counts[lock.Schema], counts[lock.Source], counts[lock.Record], l.Tool)
	return nil
}

// addLockFlags binds --locked, its alias --frozen, and --lock FILE (naming one implies --locked).
func addLockFlags(cmd *cobra.Command, locked *bool, file *string) {
	f := cmd.Flags()
	f.BoolVar(locked, "locked", false, "refuse to run (exit 2) when any input file, the tool version or the layer flags differ from the lock file")
	f.BoolVar(locked, "frozen", false, "the same as --locked")
	f.StringVar(file, "lock", lock.FileName, "the lock file --locked compares with (naming one implies --locked)")
}

// lockedRun says whether a command's run is locked: --locked, --frozen, or a --lock file named.
func lockedRun(cmd *cobra.Command, locked bool) bool {
	return locked || cmd.Flags().Changed("lock")
}
