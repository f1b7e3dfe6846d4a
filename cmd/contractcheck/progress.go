package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/progress"
)

// progressFlags are --progress and --quiet, shared by the verbs whose runs can be long (check,
// compare, challenge, probe).
type progressFlags struct {
	force, quiet bool
	// after is how long a run goes before progress is shown (--progress-after, hidden: tests
	// show it at once).
	after time.Duration
}

// addProgressFlags binds --progress and --quiet.
func addProgressFlags(cmd *cobra.Command, f *progressFlags) {
	cmd.Flags().BoolVar(&f.force, "progress", false, "show progress on standard error also when it is not a terminal: a plain line every few seconds, for a CI log (default: on a terminal, for a run longer than a second)")
	cmd.Flags().BoolVar(&f.quiet, "quiet", false, "show no progress on standard error")
	cmd.MarkFlagsMutuallyExclusive("progress", "quiet")
	cmd.Flags().DurationVar(&f.after, "progress-after", progress.DefaultDelay, "show progress once a run has gone this long (0: at once)")
	_ = cmd.Flags().MarkHidden("progress-after")
}

// start starts the progress meter of a run on stderr (progress.Start): label names the verb, what
// the things counted. Stop the meter before the report is written.
func (f progressFlags) start(ctx context.Context, stderr io.Writer, label, what string) (context.Context, *progress.Meter) {
	if ctx == nil {
		ctx = context.Background()
	}
	mode := progress.Auto
	switch {
	case f.quiet:
		mode = progress.Off
	case f.force:
		mode = progress.On
	}
	// Standard error is a log stream over the terminal (runWithStdin): the bar is drawn on the
	// terminal itself, its carriage returns and its clearing not held back as the start of a
	// line. The bar's text is the verb's and numbers, nothing of the data.
	w, tty := stderr, progress.IsTerminal(stderr)
	if ls, ok := stderr.(*logStream); ok && progress.IsTerminal(ls.w) {
		w, tty = ls.w, true
	}
	return progress.Start(ctx, w, progress.Options{
		Mode: mode, Terminal: tty, Label: label, What: what,
		Delay: f.after,
	})
}
