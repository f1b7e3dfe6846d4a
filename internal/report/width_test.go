package report

import (
	"bytes"
	"slices"
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

// TestWrapWidths wraps lines holding what a terminal shows wider or narrower than a column a
// rune — CJK, emoji, emoji ZWJ sequences, flags, combining marks, a zero-width joiner — and what
// the terminal sink (escape.Terminal) turns into visible escapes — bidi controls, tabs and other
// controls — and checks the lines given; then, at every width up to the line's, that nothing of
// the line is lost (its text, blanks aside, is the lines' text in order), that every line keeps
// within the width unless it is one unbreakable run, that no line ends inside a grapheme cluster
// or an escape, and that Style.write writes exactly those lines.
func TestWrapWidths(t *testing.T) {
	tests := []struct {
		name  string
		line  string // as the text formats hand it to wrap: data through escape.Terminal
		width int
		ascii bool
		want  []string
	}{
		{name: "at a blank", line: "lane 漢字テスト pass", width: 15, want: []string{"lane 漢字テスト", "    pass"}},
		{name: "cjk between clusters", line: "漢字テスト漢字", width: 5, want: []string{"漢字", " テス", " ト漢", " 字"}},
		{name: "cjk fits exactly", line: "漢字テスト", width: 10, want: []string{"漢字テスト"}},
		{name: "hanging indent", line: "  at builtin:fixtures/observations/agent-framework/1.13.0/default.jsonl:12", width: 40,
			want: []string{"  at", "      builtin:fixtures/observations/agen", "      t-framework/1.13.0/default.jsonl:1", "      2"}},
		{name: "emoji", line: "ok 🙂🙂🙂🙂", width: 7, want: []string{"ok", "  🙂🙂", "  🙂🙂"}},
		{name: "zwj sequence kept whole", line: "dev 👩‍💻👩‍💻👩‍💻", width: 7, want: []string{"dev", "  👩‍💻👩‍💻", "  👩‍💻"}},
		{name: "flag kept whole", line: "jp 🇯🇵🇯🇵🇯🇵", width: 6, want: []string{"jp", "  🇯🇵🇯🇵", "  🇯🇵"}},
		{name: "combining marks kept with their letter", line: "e\u0301e\u0301e\u0301e\u0301e\u0301", width: 3, want: []string{"e\u0301e\u0301e\u0301", " e\u0301e\u0301"}},
		{name: "bidi escape kept whole", line: escape.Terminal("abc\u202edef"), width: 8, want: []string{"abc", `  \u202e`, "  def"}},
		{name: "line break escape kept whole", line: escape.Terminal("ab\ncd"), width: 3, want: []string{"ab", ` \n`, " cd"}},
		{name: "an escape wider than the width", line: escape.Terminal("\u202e"), width: 3, want: []string{`\u202e`}},
		{name: "ascii marks at their spelling", line: "✓ 漢字 → done", width: 10, ascii: true, want: []string{"✓ 漢字 →", "   done"}},
		{name: "no width", line: "🙂 x", width: 0, want: []string{"🙂 x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := wrap(tc.line, tc.width, tc.ascii); !slices.Equal(got, tc.want) {
				t.Errorf("wrap(%q, %d, ascii %v) = %q, want %q", tc.line, tc.width, tc.ascii, got, tc.want)
			}
			starts := clusterStarts(tc.line)
			for width := 1; width <= textWidth(tc.line, tc.ascii)+1; width++ {
				got := wrap(tc.line, width, tc.ascii)
				joined, at := "", 0
				for _, l := range got {
					piece := strings.TrimLeft(l, " ")
					if w := textWidth(l, tc.ascii); w > width && unit(piece) != len(piece) {
						t.Errorf("wrap(%q, %d) gave %q, %d columns", tc.line, width, l, w)
					}
					at = strings.Index(tc.line[at:], piece) + at
					if end := at + len(piece); !starts[end] || escape.CutPoint(tc.line, end) != end {
						t.Errorf("wrap(%q, %d) gave %q, ending inside a cluster or an escape", tc.line, width, l)
					}
					joined += piece
				}
				if strings.ReplaceAll(tc.line, " ", "") != strings.ReplaceAll(joined, " ", "") {
					t.Errorf("wrap(%q, %d) = %q loses text", tc.line, width, got)
				}
				var b bytes.Buffer
				if err := (Style{Width: width, ASCII: tc.ascii}).write(&b, tc.line+"\n"); err != nil {
					t.Fatal(err)
				}
				want := strings.Join(got, "\n") + "\n"
				if tc.ascii {
					want = asciiOf.Replace(want)
				}
				if b.String() != want {
					t.Errorf("Style{Width: %d}.write wrote %q, want %q", width, b.String(), want)
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
