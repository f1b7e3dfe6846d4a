package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

// The one output path of every verb that prints a result (check, compare, study, challenge,
// test, inspect fixture, inspect record, inspect traffic, version, validate, capabilities, lock,
// bundle). Each registers its formats in a report.Registry of its result's type (those of the
// verbs whose results have no package of formats in formats.go), binds --format and --output with addOutputFlags, and
// resolves them with output.resolve before any work, so that the two flags mean the same in every
// verb:
//
//   - --format is one of the verb's formats, listed in the help; any other name is a usage error
//     (exit 2) that names the flag, the name and the formats to choose from;
//   - --output FILE receives the result instead of standard output (nothing of the result is
//     written there), replaced whole or not at all (safeio.WriteFile), and is refused (exit 2),
//     before anything runs, when it is or lies in an input of the run (safeio.CheckOutputFile).

// outputSpec is how a verb offers its result.
type outputSpec struct {
	// what names the result in the help and in messages: "report", "lock file", "bundle".
	what string
	// format is the default --format.
	format string
	// file is the default --output; "" is standard output.
	file string
	// required says --output must be given: the result is not for a terminal (a .tar.gz).
	required bool
}

// output is a verb's --format and --output, bound to the formats the verb registered.
type output[R any] struct {
	// Format is --format; File is --output ("" is standard output).
	Format, File string
	formats      report.Registry[R]
	spec         outputSpec
	verb         string
}

// addOutputFlags binds --format (one of formats, which the help lists) and --output to o.
func addOutputFlags[R any](cmd *cobra.Command, o *output[R], formats report.Registry[R], spec outputSpec) {
	o.formats, o.spec, o.verb = formats, spec, cmd.Name()
	o.Format, o.File = spec.format, spec.file
	f := cmd.Flags()
	f.StringVar(&o.Format, "format", o.Format, "output format: "+strings.Join(formats.Names(), ", "))
	usage := "write the " + spec.what + " to `FILE` instead of standard output"
	switch {
	case spec.required:
		usage = "write the " + spec.what + " to `FILE` (required)"
	case spec.file != "":
		usage = "write the " + spec.what + " to `FILE`"
	}
	f.StringVar(&o.File, "output", o.File, usage+"; written whole or not at all, never over an input of the run")
}

// formatter returns the formatter --format names, made with opts; an unknown name is a usage
// error naming the flag, the name and the verb's formats.
func (o *output[R]) formatter(opts report.Options) (report.Formatter[R], error) {
	f, err := o.formats.Get(o.Format, opts)
	var uf *report.UnknownFormatError
	if errors.As(err, &uf) {
		return nil, &result.InputError{Err: fmt.Errorf("--format: %w", err)}
	}
	return f, err
}

// resolve checks both flags before any work: it returns the formatter --format names, and
// refuses an --output that is missing when required, or that is or lies in one of inputs. Every
// error it returns is a usage error (exit 2).
func (o *output[R]) resolve(opts report.Options, inputs []string) (report.Formatter[R], error) {
	f, err := o.formatter(opts)
	if err != nil {
		return nil, err
	}
	if o.spec.required && o.File == "" {
		return nil, &result.InputError{Err: fmt.Errorf("--output is required (see contractcheck %s --help)", o.verb)}
	}
	if err := checkOutput(o.File, inputs); err != nil {
		return nil, &result.InputError{Err: err}
	}
	return f, nil
}

// write writes r in format f to --output, or to stdout when there is none.
func (o *output[R]) write(stdout io.Writer, f report.Formatter[R], r R) error {
	return writeOutput(o.File, stdout, func(w io.Writer) error { return f.Output(w, r) })
}

// toFile says whether the result goes to a file: what a verb says of it then goes to stderr.
func (o *output[R]) toFile() bool { return o.File != "" }

// checkOutput refuses, before any work, an --output that is an input of the run or lies inside
// an input directory (safeio.CheckOutputFile). No --output means standard output.
func checkOutput(output string, inputs []string) error {
	if output == "" {
		return nil
	}
	return safeio.CheckOutputFile(output, inputs)
}

// writeOutput writes a result to the file at path, or to stdout when path is empty. The file is
// replaced whole or not at all (safeio.WriteFile): a failed write leaves the previous file.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	if err := safeio.WriteFile(path, write); err != nil {
		return &result.InputError{Err: fmt.Errorf("write report %s: %w", path, err)}
	}
	return nil
}
