package escape

import "github.com/rivo/uniseg"

// Width returns the number of terminal columns s takes, measured by grapheme cluster
// (github.com/rivo/uniseg): a wide or full-width East Asian character, an emoji shown as an
// emoji, a flag (a pair of regional indicators) and an emoji ZWJ sequence take 2 columns; a
// combining mark, a zero-width character and a control character take none (they join the
// cluster before them or show nothing); every other character takes 1, East Asian ambiguous
// ones included. It is meant for text Terminal wrote, where every control, format and bidi
// character is already an escape of ASCII characters; it does not depend on the locale.
func Width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return uniseg.StringWidth(s)
		}
	}
	return len(s) // printable ASCII, the common case: a column a byte
}

// Cut returns s when it takes at most n columns (Width); else the longest start of s that takes
// at most n columns together with tail, followed by tail (an ellipsis, say). It cuts only
// between grapheme clusters, so a character keeps its combining marks and an emoji sequence or
// flag is kept whole or left out, and never inside an escape of this package (CutPoint), so
// that no value ends in half an escape. When tail alone is wider than n, Cut returns the start
// of tail that fits: the result never takes more than n columns.
func Cut(s string, n int, tail string) string {
	if Width(s) <= n {
		return s
	}
	room := n - Width(tail)
	if room < 0 {
		return Cut(tail, n, "")
	}
	end, used, state := 0, 0, -1
	for rest := s; rest != ""; {
		var cluster string
		var w int
		cluster, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if used+w > room {
			break
		}
		used += w
		end += len(cluster)
	}
	return s[:CutPoint(s, end)] + tail
}
