// Command contractcheck checks MCP tool results against consumer contracts, stage by stage, and
// gates CI on a profile. Each verb is one file in this directory, a thin shell over a package
// function that the tests call directly.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/result"
)

// exitError carries an exit code out of a command; the message, if any, has been printed already
// or is printed by main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// exitWith is what a verb's RunE returns for the exit code and error its run gave: nil when the
// run is satisfied without an error, else an exitError carrying both.
func exitWith(code int, err error) error {
	if err != nil || code != result.ExitSatisfied {
		return &exitError{code: code, err: err}
	}
	return nil
}

// exitOn is exitWith for a run that gives only its error: the exit code is the one an exitError
// in it carries (a usage error), else result.ExitCode's.
func exitOn(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return &exitError{code: result.ExitCode(err), err: err}
}

// inputError is err as a usage or input error (exit 2).
func inputError(err error) error {
	return &exitError{code: result.ExitInputError, err: err}
}

// usage is an input error (exit 2) saying format with args as fmt.Errorf does.
func usage(format string, args ...any) error {
	return inputError(fmt.Errorf(format, args...))
}

// init turns the runtime's heap profiling off unless CONTRACTCHECK_MEMPROFILE asks for a
// profile: by default the runtime samples an allocation every 512 KiB and keeps a bucket for every
// distinct stack it samples, and OPA's and CUE's deep stacks made those buckets 2–2.5 MiB of the
// process's memory by the middle of a 1M check (runtime/metrics,
// /memory/classes/profiling/buckets:bytes), for a profile no one reads. It runs before main and
// before the contracts are loaded, which is where most of those stacks were sampled.
func init() {
	if os.Getenv("CONTRACTCHECK_MEMPROFILE") == "" {
		runtime.MemProfileRate = 0
	}
}

func main() {
	stop := cpuProfile(os.Getenv("CONTRACTCHECK_CPUPROFILE"))
	stopHeap := heapProfile(os.Getenv("CONTRACTCHECK_MEMPROFILE"))
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stopHeap()
	stop()
	os.Exit(code)
}

// cpuProfile writes a CPU profile of the whole run to file when it is set (the environment
// variable CONTRACTCHECK_CPUPROFILE, for `go tool pprof`; docs/design.md). It is for the people
// who work on contractcheck, so a profile that cannot be written is a warning, not a failure.
func cpuProfile(file string) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contractcheck: CONTRACTCHECK_CPUPROFILE:", escape.Terminal(err.Error()))
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "contractcheck: CONTRACTCHECK_CPUPROFILE:", escape.Terminal(err.Error()))
		}
	}
}

// heapProfile writes a heap profile taken at the run's highest live heap to file when it is set
// (the environment variable CONTRACTCHECK_MEMPROFILE, for `go tool pprof`; docs/design.md): every
// half second it reads the live heap the last collection left, and each time that passes the
// highest seen by an eighth it writes the profile again (the allocations live at that collection,
// and where they were made). At the end the profile is written once more if the live heap then is
// the highest. Like cpuProfile it is for the people who work on contractcheck: a profile that
// cannot be written is a warning.
func heapProfile(file string) (stop func()) {
	if file == "" {
		return func() {}
	}
	warn := func(err error) {
		fmt.Fprintln(os.Stderr, "contractcheck: CONTRACTCHECK_MEMPROFILE:", escape.Terminal(err.Error()))
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
	var high uint64
	write := func() {
		f, err := os.Create(file)
		if err == nil {
			err = pprof.Lookup("heap").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			warn(err)
		}
	}
	check := func(by uint64) {
		if l := live(); l > high+high/by {
			high = l
			write()
		}
	}
	check(8) // a profile exists even for a run shorter than the first tick
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				check(8)
			}
		}
	}()
	return func() {
		close(done)
		<-ended
		check(1 << 62) // any new high, however small
	}
}

// run executes the command line and returns the process exit code: 0 satisfied, 1 a required
// contract unmet, 2 usage, input or output error, 3 the instrument failed (repetitions disagree,
// or a policy or the contracts stopped at a time limit or the memory budget).
func run(args []string, stdout, stderr io.Writer) int {
	return runWithStdin(args, os.Stdin, stdout, stderr)
}

// runWithStdin is run with standard input read from stdin (`validate -`, `--observations -`).
// Everything written to stderr goes through an escape.LogWriter, so that no line of it starts a
// CI runner's command, and an error's text through escape.TerminalLines, so that no control or
// bidi character of the data it names reaches the terminal. Standard output is each verb's: its
// text formats write through a LogWriter of their own, and the formats that are not text for
// a log (--format github, json, …) write as they are.
func runWithStdin(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	errs := newLogStream(stderr)
	defer errs.Flush()
	root := newRootCommand()
	stop := addLimitFlags(root)
	defer stop()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(errs)
	err := root.Execute()
	if err == nil {
		return result.ExitSatisfied
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			printError(errs, ee.err)
		}
		return ee.code
	}
	printError(errs, err)
	return result.ExitCode(err)
}

// printError writes err as the command's last words: "contractcheck: " and its text, each line
// escape.TerminalLines (line breaks and tabs kept, every other control or bidi character shown
// escaped).
func printError(w io.Writer, err error) {
	fmt.Fprintln(w, "contractcheck: "+escape.TerminalLines(err.Error()))
}

// logStream is an escape.LogWriter that several goroutines may write to at once, as they may to
// stderr (a probe's progress beside the output of the agent it runs).
type logStream struct {
	mu sync.Mutex
	lw *escape.LogWriter
	w  io.Writer // what lw writes to: a progress bar draws on it when it is a terminal
}

func newLogStream(w io.Writer) *logStream { return &logStream{lw: escape.NewLogWriter(w), w: w} }

// Write implements io.Writer.
func (s *logStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lw.Write(p)
}

// Flush writes what is held of an unfinished last line.
func (s *logStream) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lw.Flush()
}

// groupCommand makes cmd a verb that only groups subs: run without one of them (and with no
// argument), it is a usage error saying missing.
func groupCommand(cmd *cobra.Command, missing string, subs ...*cobra.Command) *cobra.Command {
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(*cobra.Command, []string) error { return usage("%s", missing) }
	cmd.AddCommand(subs...)
	return cmd
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "contractcheck",
		Short:         "Check MCP tool results against consumer contracts, stage by stage",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newCheckCommand(), newValidateCommand(), newTestCommand(), newVersionCommand(), newMutateCommand(), newChallengeCommand())
	root.AddCommand(newCompareCommand(), newInitCommand(), newExportCommand(), newLockCommand(), newCapabilitiesCommand())
	root.AddCommand(newBundleCommand(), newReproduceCommand(), newProbeCommand(), newRecordCommand(), newServeCommand(), newInspectCommand())
	root.AddCommand(newStudyCommand(), newCaptureCommand(), newCollectCommand())
	return root
}
