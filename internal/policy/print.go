package policy

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown/print"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// print() in a policy.
//
// OPA's print(x, ...) writes a line to the evaluation's print hook; without one, the compiler
// drops the statements and the output vanishes. The policies are compiled with print
// statements kept. The Rego test runner shows what each test printed beside the test
// (TestResult.Output), as opa test -v does. A check evaluates the task policies concurrently, on
// many inputs, so its print output is collected while it runs (PrintTo: the collector travels in
// the run's context, so two runs in one process keep theirs apart) and written when it
// ends, in an order that does not depend on the scheduling: sorted by the print statement's
// position and the text, each distinct line once with the number of times it was printed. The
// lines are escaped for the terminal (escape.Terminal: control and bidi characters shown as
// escapes, one line each) and begin with "print: ", never with a CI runner's command. Printing
// changes no verdict and no report: the output goes to standard error only. (A check replayed
// from the result cache evaluates nothing, and prints nothing: --no-cache runs it.)

// Print-output bounds: the distinct lines kept (the first in sort order: which lines are shown
// does not depend on the order they were printed in) and the bytes of one line.
const (
	maxPrintLines     = 1000
	maxPrintLineBytes = 4096
)

// printKey is the context key of the collector Query.Eval hands print output to.
type printKey struct{}

// PrintTo returns a context under which the print() output of every policy evaluation
// (Query.Eval) is collected, and the function that writes it to w, sorted (see above); output
// printed after it is called is dropped. The Rego test runner (RunTests) keeps each test's
// output with the test instead.
func PrintTo(ctx context.Context, w io.Writer) (context.Context, func() error) {
	p := &printLog{}
	p.opts = []rego.EvalOption{rego.EvalPrintHook(p)}
	return context.WithValue(ctx, printKey{}, p), func() error {
		p.done.Store(true)
		return p.write(w)
	}
}

// printEvalOptions are the evaluation options that hand print output to ctx's collector.
func printEvalOptions(ctx context.Context) []rego.EvalOption {
	if p, ok := ctx.Value(printKey{}).(*printLog); ok && !p.done.Load() {
		return p.opts
	}
	return nil
}

// printLine is one distinct printed line: where the print statement is, and its text (escaped).
type printLine struct {
	file     string
	row, col int
	text     string
	count    int64
}

func comparePrintLines(a, b printLine) int {
	return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.row, b.row), cmp.Compare(a.col, b.col), cmp.Compare(a.text, b.text))
}

// printLog is a print.Hook collecting lines.
type printLog struct {
	opts  []rego.EvalOption // the evaluation option handing print output to it
	mu    sync.Mutex
	lines []printLine // sorted, at most maxPrintLines
	total int64       // lines printed, kept or not
	done  atomic.Bool // written: what is printed from then on is dropped
}

// Print records one printed line. It fails once the evaluation is cancelled.
func (p *printLog) Print(ctx print.Context, msg string) error {
	if ctx.Context != nil {
		if err := ctx.Context.Err(); err != nil {
			return err
		}
	}
	l := printLine{text: printText(msg), count: 1}
	if loc := ctx.Location; loc != nil {
		l.file, l.row, l.col = loc.File, loc.Row, loc.Col
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total++
	i, found := slices.BinarySearchFunc(p.lines, l, comparePrintLines)
	switch {
	case found:
		p.lines[i].count++
	case i < maxPrintLines:
		p.lines = slices.Insert(p.lines, i, l)
		if len(p.lines) > maxPrintLines {
			p.lines = p.lines[:maxPrintLines]
		}
	}
	return nil
}

// printText is a printed message as it is shown: escaped for the terminal, at most
// maxPrintLineBytes bytes.
func printText(msg string) string {
	if len(msg) > 4*maxPrintLineBytes {
		msg = msg[:4*maxPrintLineBytes]
	}
	s := escape.Terminal(msg)
	if len(s) > maxPrintLineBytes {
		s = s[:escape.CutPoint(s, maxPrintLineBytes)] + "…"
	}
	return s
}

// write writes the lines collected, sorted, and how many were left out.
func (p *printLog) write(w io.Writer) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	shown := int64(0)
	for _, l := range p.lines {
		at := "print"
		if l.file != "" {
			at = fmt.Sprintf("print: %s:%d:%d", escape.Terminal(l.file), l.row, l.col)
		}
		times := ""
		if l.count > 1 {
			times = fmt.Sprintf(" (%d times)", l.count)
		}
		if _, err := fmt.Fprintf(w, "%s: %s%s\n", at, l.text, times); err != nil {
			return err
		}
		shown += l.count
	}
	if rest := p.total - shown; rest > 0 {
		_, err := fmt.Fprintf(w, "print: %d more printed lines not shown (only the first %d distinct lines, by position and text)\n", rest, maxPrintLines)
		return err
	}
	return nil
}
