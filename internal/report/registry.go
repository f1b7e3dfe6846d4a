package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Formatter writes one kind of report (check, compare, …) in one format.
type Formatter[R any] interface {
	Output(w io.Writer, r R) error
}

// Options tunes how a report is written; each format reads what applies to it.
type Options struct {
	// Details writes everything a format can show (text: the matrices and every diagnostic;
	// table: every binding).
	Details bool
	// Style lays text out for its reader (colour, ASCII, width).
	Style Style
	// ToolVersion names the contractcheck build in formats that record it (SARIF).
	ToolVersion string
	// Views gives the html format the canonical views and binding rules (nil: left out).
	Views result.Views
}

// Factory makes a format's writer for a set of options.
type Factory[R any] func(Options) Formatter[R]

// Fixed is the factory of a format that takes no options.
func Fixed[R any](f Formatter[R]) Factory[R] { return func(Options) Formatter[R] { return f } }

// Registry holds the formats of one kind of report by name: adding a format is one new file and
// one entry. It is the one way a verb offers formats: every verb that prints a result registers
// its formats in a Registry of its result's type — check's here, compare's, study's, challenge's,
// lock's and bundle's in their packages; test's, inspect's, version's, validate's and
// capabilities' in cmd/contractcheck/formats.go, one file per format beside it (policy, inspect,
// validate and the instrument hold no output code) — and cmd/contractcheck binds --format and --output to it the same way for all of them
// (cmd/contractcheck/output.go). The helpers they share are here, written once: WriteJSON and
// JSONFormat, WriteLog, Columns, CodeList, the HTML funcs. probe has no format: it writes
// records (internal/laneout), which check then reads.
type Registry[R any] map[string]Factory[R]

// Names lists the formats, sorted; it also feeds a --format flag's help.
func (g Registry[R]) Names() []string {
	out := make([]string, 0, len(g))
	for f := range g {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Get returns the formatter for a format name, made with the options. It writes within the
// run's memory budget (budgeted).
func (g Registry[R]) Get(format string, o Options) (Formatter[R], error) {
	f, err := g.Resolve(format)
	if err != nil {
		return nil, err
	}
	return f.New(o), nil
}

// Write writes r to w in a format, made with the options, as Get's formatter does; an unknown
// format is an *UnknownFormatError.
func (g Registry[R]) Write(w io.Writer, format string, o Options, r R) error {
	out, err := g.Get(format, o)
	if err != nil {
		return err
	}
	return out.Output(w, r)
}

// Unbudgeted returns the formatter for a format name as Get does, but not held to the run's memory
// budget: for the report of a run that failed before it could give one (result.Failed), which may
// have failed at the budget, and is a few kilobytes at most.
func (g Registry[R]) Unbudgeted(format string, o Options) (Formatter[R], error) {
	f, err := g.Resolve(format)
	if err != nil {
		return nil, err
	}
	return f.Unbudgeted(o), nil
}

// Resolve returns the format of that name, to be made into a formatter once its options are
// known: a verb whose options come from its run (html's views) resolves its format first, so
// that an unknown name is refused before the run rather than after it.
func (g Registry[R]) Resolve(format string) (Resolved[R], error) {
	f, ok := g[format]
	if !ok {
		return Resolved[R]{}, &UnknownFormatError{Format: format, Known: g.Names()}
	}
	return Resolved[R]{name: format, factory: f}, nil
}

// Resolved is a format of a Registry, found by its name (Registry.Resolve).
type Resolved[R any] struct {
	name    string
	factory Factory[R]
}

// New is the format's formatter made with the options, writing within the run's memory budget
// (as Registry.Get's).
func (f Resolved[R]) New(o Options) Formatter[R] { return budgeted[R]{f: f.factory(o), format: f.name} }

// Unbudgeted is the format's formatter made with the options, not held to the memory budget (as
// Registry.Unbudgeted's).
func (f Resolved[R]) Unbudgeted(o Options) Formatter[R] { return f.factory(o) }

// UnknownFormatError is a format name a Registry does not hold; it names the formats it does.
type UnknownFormatError struct {
	// Format is the name asked for.
	Format string
	// Known are the registry's formats, sorted.
	Known []string
}

// Error returns the message: the name and the formats to choose from.
func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q (want one of %s)", e.Format, strings.Join(e.Known, ", "))
}

// budgeted writes a report within the run's memory budget (internal/guard): through a
// guard.Writer, so that once the memory watchdog has stopped the run nothing more is written,
// and Output then returns the *guard.LimitError naming the budget, also when the format had made
// its whole report before writing it (a run that went past its budget fails, exit 3).
type budgeted[R any] struct {
	f      Formatter[R]
	format string
}

// Output implements Formatter.
func (b budgeted[R]) Output(w io.Writer, r R) error {
	if err := guard.Err(); err != nil {
		return fmt.Errorf("%s report: %w", b.format, err)
	}
	err := b.f.Output(guard.Writer(w), r)
	if lerr := guard.Err(); lerr != nil {
		return fmt.Errorf("%s report: %w", b.format, lerr)
	}
	return err
}

// WriteJSON writes v as indented JSON without HTML escaping (strictjson.EncodeIndented): maps
// come out with sorted keys and json.Number values verbatim, so the same report always gives the
// same bytes. Every report's JSON format writes through it.
func WriteJSON(w io.Writer, v any) error { return strictjson.EncodeIndented(w, v) }

// JSONFormat is the json format of a verb whose result is its own JSON document: the result
// written by WriteJSON. Every such verb's registry holds it rather than a type of its own.
type JSONFormat[R any] struct{}

// Output implements Formatter.
func (JSONFormat[R]) Output(w io.Writer, r R) error { return WriteJSON(w, r) }

// WriteLog writes a text format's whole text through an escape.LogWriter and flushes it: no line
// of it can start a CI workflow command (a line that would is neutralized). It is the last guard
// of the text formats of every verb that build their text before writing it.
func WriteLog(w io.Writer, text string) error {
	return writeLog(w, func(lw io.Writer) error {
		_, err := io.WriteString(lw, text)
		return err
	})
}

// TextFormat is a text format that builds its whole text before it is written: the function
// writes the text of r into b (every string of the data escaped for a terminal), and Output writes
// it through WriteLog. The text formats of the verbs that print a short result use it rather than
// a type and a LogWriter of their own.
type TextFormat[R any] func(b *strings.Builder, r R) error

// Output implements Formatter.
func (f TextFormat[R]) Output(w io.Writer, r R) error {
	var b strings.Builder
	if err := f(&b, r); err != nil {
		return err
	}
	return WriteLog(w, b.String())
}

// TextAndJSON is the registry of a verb that prints one short result, the same whatever the
// options: text built by text (TextFormat) and json (JSONFormat).
func TextAndJSON[R any](text TextFormat[R]) Registry[R] {
	return Registry[R]{"text": Fixed[R](text), "json": Fixed[R](JSONFormat[R]{})}
}
