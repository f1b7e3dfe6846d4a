package result

import (
	"slices"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{name: "semantic, not byte order", in: []string{"0.14.3", "0.5.4", "1.13.0"}, want: []string{"0.5.4", "0.14.3", "1.13.0"}},
		{name: "with a leading v", in: []string{"v1.7.0", "v1.10.0", "v1.0.0", "v1.6.1"}, want: []string{"v1.0.0", "v1.6.1", "v1.7.0", "v1.10.0"}},
		{name: "shorthands", in: []string{"v100", "v10", "v2", "v1", "v0"}, want: []string{"v0", "v1", "v2", "v10", "v100"}},
		{name: "prerelease before release", in: []string{"1.0.0", "1.0.0-rc.2", "1.0.0-rc.10", "1.0.0-alpha"}, want: []string{"1.0.0-alpha", "1.0.0-rc.2", "1.0.0-rc.10", "1.0.0"}},
		{name: "equal precedence falls back to bytes", in: []string{"v1.0.0", "1.0.0", "1.0.0+b"}, want: []string{"1.0.0", "1.0.0+b", "v1.0.0"}},
		{name: "semantic before other", in: []string{"main", "2.0.0", "1.2.3.4"}, want: []string{"2.0.0", "1.2.3.4", "main"}},
		{name: "others in natural order", in: []string{"r10", "r9", "r009", "build-2", "build-10"}, want: []string{"build-2", "build-10", "r009", "r9", "r10"}},
		{name: "dates", in: []string{"2026-11-25", "2026-07-28", "2025-11-25"}, want: []string{"2025-11-25", "2026-07-28", "2026-11-25"}},
		{name: "hostile strings keep a total order", in: []string{"\u202e1", "1\n::error", "<script>", ""}, want: []string{"", "1\n::error", "<script>", "\u202e1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Clone(tt.in)
			slices.SortFunc(got, CompareVersions)
			if !slices.Equal(got, tt.want) {
				t.Errorf("sorted %q, want %q", got, tt.want)
			}
			// A total order: antisymmetric on every pair, and zero only for equal strings.
			for _, a := range tt.in {
				for _, b := range tt.in {
					if ab, ba := CompareVersions(a, b), CompareVersions(b, a); ab != -ba || (ab == 0) != (a == b) {
						t.Errorf("CompareVersions(%q, %q) = %d, reversed %d", a, b, ab, ba)
					}
				}
			}
		})
	}
}
