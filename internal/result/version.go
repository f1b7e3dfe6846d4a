package result

import (
	"cmp"
	"strings"

	"golang.org/x/mod/semver"
)

// CompareVersions orders two lane versions, as every report, table and list orders them:
//
//  1. Versions that read as semantic versions (SemVer 2.0.0, with or without a leading "v"; the
//     shorthands v1 and v1.2 read as v1.0.0 and v1.2.0) compare by precedence, so 0.5.4 comes
//     before 0.14.3 and 1.0.0-rc.1 before 1.0.0.
//  2. A semantic version comes before a version that is not one.
//  3. Two other versions compare in natural order: runs of digits by their numeric value, the rest
//     byte by byte (r9 before r10, 2026-07-28 before 2026-11-25).
//
// Versions that compare equal so far (v1.0.0 and 1.0.0, or build metadata) fall back to byte order,
// so the order is total and deterministic. It returns -1, 0 or +1 as cmp.Compare does.
func CompareVersions(a, b string) int {
	if a == b {
		return 0
	}
	sa, sb := semverOf(a), semverOf(b)
	switch {
	case sa != "" && sb != "":
		if n := semver.Compare(sa, sb); n != 0 {
			return n
		}
	case sa != "":
		return -1
	case sb != "":
		return 1
	default:
		if n := compareNatural(a, b); n != 0 {
			return n
		}
	}
	return cmp.Compare(a, b)
}

// LessVersion reports whether version a comes before b in CompareVersions order.
func LessVersion(a, b string) bool { return CompareVersions(a, b) < 0 }

// semverOf is v as x/mod/semver reads it ("v" prepended when it has none), or "" when v is not a
// semantic version.
func semverOf(v string) string {
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	if !semver.IsValid(v) {
		return ""
	}
	return v
}

// compareNatural compares a and b run by run: digit runs by numeric value (leading zeros aside),
// other runs byte by byte.
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		ra, rb := run(a), run(b)
		da, db := isDigit(ra[0]), isDigit(rb[0])
		switch {
		case da && db:
			na, nb := strings.TrimLeft(ra, "0"), strings.TrimLeft(rb, "0")
			if n := cmp.Compare(len(na), len(nb)); n != 0 {
				return n
			}
			if n := cmp.Compare(na, nb); n != 0 {
				return n
			}
		default:
			if n := cmp.Compare(ra, rb); n != 0 {
				return n
			}
		}
		a, b = a[len(ra):], b[len(rb):]
	}
	return cmp.Compare(len(a), len(b))
}

// run is the leading run of s: its digits, or everything up to the next digit.
func run(s string) string {
	d := isDigit(s[0])
	i := 1
	for i < len(s) && isDigit(s[i]) == d {
		i++
	}
	return s[:i]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
