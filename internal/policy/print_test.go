package policy

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown/print"
)

// TestPrintLog: the print output of concurrent evaluations comes out the same whatever the
// order it was printed in: sorted by position and text, each distinct line once with its count,
// escaped for the terminal, the first maxPrintLines distinct lines and a count of the rest.
func TestPrintLog(t *testing.T) {
	type line struct {
		row int
		msg string
	}
	tests := []struct {
		name  string
		lines []line // printed, each three times
		want  string
	}{
		{name: "sorted and counted", lines: []line{{7, "b"}, {3, "z"}, {7, "a"}},
			want: "print: p.rego:3:2: z (3 times)\nprint: p.rego:7:2: a (3 times)\nprint: p.rego:7:2: b (3 times)\n"},
		{name: "escaped", lines: []line{{1, "\x1b[31mred\u202e\n::error::x"}},
			want: `print: p.rego:1:2: \u001b[31mred\u202e\n::error::x (3 times)` + "\n"},
		{name: "long", lines: []line{{1, strings.Repeat("é", 3000)}},
			want: "print: p.rego:1:2: " + strings.Repeat("é", maxPrintLineBytes/2) + "… (3 times)\n"},
	}
	many := make([]line, maxPrintLines+5)
	var want strings.Builder
	for i := range many {
		many[i] = line{1, fmt.Sprintf("%05d", i)}
		if i < maxPrintLines {
			fmt.Fprintf(&want, "print: p.rego:1:2: %05d (3 times)\n", i)
		}
	}
	fmt.Fprintf(&want, "print: 15 more printed lines not shown (only the first %d distinct lines, by position and text)\n", maxPrintLines)
	tests = append(tests, struct {
		name  string
		lines []line
		want  string
	}{name: "more than the lines kept", lines: many, want: want.String()})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(3) {
				var all []line
				for range 3 {
					all = append(all, tc.lines...)
				}
				rand.New(rand.NewPCG(seed, seed)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
				p := &printLog{}
				var wg sync.WaitGroup
				for w := range 4 {
					wg.Go(func() {
						for i := w; i < len(all); i += 4 {
							loc := &ast.Location{File: "p.rego", Row: all[i].row, Col: 2}
							if err := p.Print(print.Context{Context: context.Background(), Location: loc}, all[i].msg); err != nil {
								t.Error(err)
							}
						}
					})
				}
				wg.Wait()
				var out bytes.Buffer
				if err := p.write(&out); err != nil {
					t.Fatal(err)
				}
				if out.String() != tc.want {
					t.Fatalf("seed %d:\n%s\nwant:\n%s", seed, out.String(), tc.want)
				}
			}
		})
	}
}

// TestPrintTo: print() in a task policy goes to the collector PrintTo installs, and the
// evaluation's verdict is the same with and without it.
func TestPrintTo(t *testing.T) {
	src := "package pr\n\ndiagnostics contains {\"atom\": \"x\", \"n\": input.n} if {\n\tprint(\"n is\", input.n)\n\tinput.n > 1\n}\n"
	q := prepare(t, map[string]string{"pr.rego": src}, "pr")
	eval := func(ctx context.Context, n int) Verdict {
		v, err := q.Eval(ctx, ast.NewObject(ast.Item(ast.StringTerm("n"), ast.IntNumberTerm(n))))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	quiet := fmt.Sprint(eval(context.Background(), 2), eval(context.Background(), 1))
	var out bytes.Buffer
	ctx, flush := PrintTo(context.Background(), &out)
	loud := fmt.Sprint(eval(ctx, 2), eval(ctx, 1), eval(ctx, 2))
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	eval(ctx, 3)                  // after the flush: not collected
	eval(context.Background(), 4) // another context: not collected
	if want := "print: mine/pr.rego:4:2: n is 1\nprint: mine/pr.rego:4:2: n is 2 (2 times)\n"; out.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", out.String(), want)
	}
	if !strings.HasPrefix(loud, quiet) {
		t.Errorf("verdicts differ with print output collected: %s, %s", quiet, loud)
	}
}
