package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rivo/uniseg"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// clusterStarts is the set of byte offsets of s where a grapheme cluster starts, and len(s).
func clusterStarts(s string) map[int]bool {
	starts := map[int]bool{len(s): true}
	at, state := 0, -1
	for rest := s; rest != ""; {
		var c string
		c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		starts[at] = true
		at += len(c)
	}
	return starts
}

// TestFitWidths fits lines holding what a terminal shows wider or narrower than a column a rune —
// CJK, emoji, emoji ZWJ sequences, flags, combining marks, a zero-width joiner — and what the
// terminal sink (escape.Terminal) turns into visible escapes — bidi controls, tabs and other
// controls, and the joiner of a ZWJ sequence in the data — and checks the fitted line and its
// width in columns; then, at every width up to the line's, that the fitted line never takes more
// columns than the width, is a start of the line cut between grapheme clusters and outside any
// escape, and that Style.write keeps every line it writes within the width.
func TestFitWidths(t *testing.T) {
	tests := []struct {
		name      string
		line      string // as the text formats hand it to fit: data through escape.Terminal
		width     int
		ascii     bool
		want      string
		wantWidth int
	}{
		{name: "cjk", line: "lane 漢字テスト pass", width: 10, want: "lane 漢字…", wantWidth: 10},
		{name: "cjk not split at the edge", line: "lane 漢字テスト pass", width: 9, want: "lane 漢…", wantWidth: 8},
		{name: "cjk fits exactly", line: "漢字テスト", width: 10, want: "漢字テスト", wantWidth: 10},
		{name: "hangul", line: "한국어 한국어", width: 6, want: "한국…", wantWidth: 5},
		{name: "emoji", line: "ok 🙂🙂🙂🙂", width: 7, want: "ok 🙂…", wantWidth: 6},
		{name: "emoji with skin tone", line: "👍🏽👍🏽👍🏽", width: 5, want: "👍🏽👍🏽…", wantWidth: 5},
		{name: "emoji presentation selector", line: "❤️❤️❤️", width: 4, want: "❤️…", wantWidth: 3},
		{name: "zwj sequence kept whole", line: "dev 👩‍💻👩‍💻👩‍💻", width: 7, want: "dev 👩‍💻…", wantWidth: 7},
		{name: "family zwj sequence", line: "👨‍👩‍👧‍👦 family of four", width: 9, want: "👨‍👩‍👧‍👦 famil…", wantWidth: 9},
		{name: "zwj sequence through the sink", line: escape.Terminal("dev 👩‍💻"), width: 10, want: "dev 👩…", wantWidth: 7},
		{name: "flag kept whole", line: "jp 🇯🇵🇯🇵🇯🇵", width: 6, want: "jp 🇯🇵…", wantWidth: 6},
		{name: "combining marks kept with their letter", line: "e\u0301e\u0301e\u0301e\u0301e\u0301", width: 3, want: "e\u0301e\u0301…", wantWidth: 3},
		{name: "combining marks take no column", line: "cafe\u0301 cafe\u0301", width: 9, want: "cafe\u0301 cafe\u0301", wantWidth: 9},
		{name: "zero-width joiner between letters", line: "x\u200dy\u200dz\u200dw", width: 3, want: "x\u200dy\u200d…", wantWidth: 3},
		{name: "zero-width joiner through the sink", line: escape.Terminal("x\u200dyz"), width: 8, want: `x\u200d…`, wantWidth: 8},
		{name: "zero-width joiner escape kept whole", line: escape.Terminal("x\u200dyz"), width: 7, want: "x…", wantWidth: 2},
		{name: "bidi control through the sink", line: escape.Terminal("abc\u202edef"), width: 8, want: "abc…", wantWidth: 4},
		{name: "bidi isolate through the sink kept whole", line: escape.Terminal("ab\u2066cdef"), width: 9, want: `ab\u2066…`, wantWidth: 9},
		{name: "tab and escape through the sink", line: escape.Terminal("a\tb\x1bc"), width: 6, want: `a\tb…`, wantWidth: 5},
		{name: "line break through the sink", line: escape.Terminal("ab\ncd"), width: 5, want: `ab\n…`, wantWidth: 5},
		{name: "ascii marks at their spelling", line: "✓ 漢字 → done", width: 10, ascii: true, want: "✓ 漢字...", wantWidth: 9},
		{name: "ascii return mark", line: "a ⏎ b ⏎ c", width: 7, ascii: true, want: "a ⏎...", wantWidth: 7},
		{name: "ascii emoji", line: "🙂🙂🙂🙂", width: 6, ascii: true, want: "🙂...", wantWidth: 5},
		{name: "narrower than the ellipsis", line: "漢字", width: 2, ascii: true, want: "..", wantWidth: 2},
		{name: "no width", line: "🙂", width: 0, want: "", wantWidth: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fit(tc.line, tc.width, tc.ascii)
			if got != tc.want {
				t.Errorf("fit(%q, %d, ascii %v) = %q, want %q", tc.line, tc.width, tc.ascii, got, tc.want)
			}
			if w := textWidth(got, tc.ascii); w != tc.wantWidth {
				t.Errorf("fit(%q, %d, ascii %v) = %q takes %d columns, want %d", tc.line, tc.width, tc.ascii, got, w, tc.wantWidth)
			}
			starts := clusterStarts(tc.line)
			ell := "…"
			if tc.ascii {
				ell = "..."
			}
			for width := 0; width <= textWidth(tc.line, tc.ascii)+1; width++ {
				got := fit(tc.line, width, tc.ascii)
				if w := textWidth(got, tc.ascii); w > width {
					t.Errorf("fit(%q, %d) = %q takes %d columns", tc.line, width, got, w)
				}
				if got == tc.line {
					continue
				}
				head, ok := strings.CutSuffix(got, ell)
				if !ok || !strings.HasPrefix(tc.line, head) {
					if width >= textWidth(ell, tc.ascii) {
						t.Errorf("fit(%q, %d) = %q is no start of the line and an ellipsis", tc.line, width, got)
					}
					continue
				}
				if !starts[len(head)] {
					t.Errorf("fit(%q, %d) = %q cuts inside a grapheme cluster", tc.line, width, got)
				}
				if escape.CutPoint(tc.line, len(head)) != len(head) {
					t.Errorf("fit(%q, %d) = %q cuts inside an escape", tc.line, width, got)
				}
				if width > 0 {
					var b bytes.Buffer
					if err := (Style{Width: width, ASCII: tc.ascii}).write(&b, tc.line+"\n"+tc.line+"\n"); err != nil {
						t.Fatal(err)
					}
					for l := range strings.Lines(b.String()) {
						if w := escape.Width(strings.TrimSuffix(l, "\n")); w > width {
							t.Errorf("Style{Width: %d}.write wrote %q, %d columns", width, l, w)
						}
					}
				}
			}
		})
	}
}

// TestFindingsTableAlignsWideNames: a lane or task named in CJK or with an emoji keeps the
// findings table in line: every row, the header's included, takes the same columns.
func TestFindingsTableAlignsWideNames(t *testing.T) {
	tasks := []string{"T1", "任务"}
	rows := []FindingRow{
		{Lane: "lane", LaneVersion: "1.0", Configuration: "default", Cells: map[string]FindingCell{"T1": {1, 2}, "任务": {3, 4}}},
		{Lane: "漢字レーン", LaneVersion: "1.0", Configuration: "既定", Cells: map[string]FindingCell{"T1": {10, 12}}},
		{Lane: "🙂", LaneVersion: "2.0", Configuration: "cafe\u0301", Cells: map[string]FindingCell{"任务": {1, 1}}},
	}
	var b strings.Builder
	writeFindingsTable(&b, tasks, rows, DefaultWidth)
	lines := strings.Split(strings.TrimPrefix(b.String(), "\n"), "\n")[:1+len(rows)]
	for _, l := range lines[1:] {
		if escape.Width(l) != escape.Width(lines[0]) {
			t.Errorf("row %q takes %d columns, the header %q %d", l, escape.Width(l), lines[0], escape.Width(lines[0]))
		}
	}
}
