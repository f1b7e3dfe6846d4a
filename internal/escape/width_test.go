package escape

import "testing"

func TestWidth(t *testing.T) {
	checkCases(t, "Width", Width, []fnCase[string, int]{
		{name: "ascii", in: "lane 1.0", want: 8},
		{name: "cjk", in: "漢字テスト", want: 10},
		{name: "emoji", in: "🙂", want: 2},
		{name: "zwj sequence", in: "👨‍👩‍👧‍👦", want: 2},
		{name: "flag", in: "🇯🇵", want: 2},
		{name: "combining mark", in: "e\u0301", want: 1},
		{name: "zero-width joiner", in: "a\u200db", want: 2},
		{name: "raw bidi control", in: "\u202e", want: 0},
		{name: "raw tab and escape", in: "\t\x1b", want: 0},
		{name: "escaped by Terminal", in: Terminal("a\tb\u202ec"), want: 11},
		{name: "report marks", in: "✓✗·–→…⏎", want: 7},
	})
}

func TestCut(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		tail string
		want string
	}{
		{name: "fits", in: "漢字", n: 4, tail: "…", want: "漢字"},
		{name: "cjk", in: "漢字テスト", n: 6, tail: "…", want: "漢字…"},
		{name: "wide character not split at the edge", in: "漢字テスト", n: 5, tail: "…", want: "漢字…"},
		{name: "zwj sequence whole", in: "👩‍💻👩‍💻", n: 3, tail: "…", want: "👩‍💻…"},
		{name: "flag whole", in: "🇯🇵🇯🇵", n: 3, tail: "…", want: "🇯🇵…"},
		{name: "combining mark kept", in: "e\u0301e\u0301e\u0301", n: 2, tail: "…", want: "e\u0301…"},
		{name: "escape whole", in: `ab\u202ecd`, n: 6, tail: "…", want: "ab…"},
		{name: "three dots", in: "abcdefgh", n: 5, tail: "...", want: "ab..."},
		{name: "tail wider than n", in: "abcdefgh", n: 2, tail: "...", want: ".."},
		{name: "no width", in: "a", n: 0, tail: "…", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Cut(tc.in, tc.n, tc.tail)
			if got != tc.want {
				t.Errorf("Cut(%q, %d, %q) = %q, want %q", tc.in, tc.n, tc.tail, got, tc.want)
			}
			if Width(got) > tc.n {
				t.Errorf("Cut(%q, %d, %q) = %q takes %d columns", tc.in, tc.n, tc.tail, got, Width(got))
			}
		})
	}
}
