package challenge

import (
	"errors"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/report"
)

// TestWriteFormats: Write goes through the registry challenge's --format offers: "" is text, an
// unknown name is a *report.UnknownFormatError naming the formats.
func TestWriteFormats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format string
		prefix string
		err    string
	}{
		{name: "text", format: "text", prefix: "Challenge suite s (profile p): 0 cases"},
		{name: "no name is text", format: "", prefix: "Challenge suite s (profile p): 0 cases"},
		{name: "json", format: "json", prefix: "{\n  \"cases\": []"},
		{name: "unknown", format: "xml", err: `unknown format "xml" (want one of json, text)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			err := (&Report{Suite: "s", Profile: "p"}).Write(&b, tc.format)
			if tc.err != "" {
				var uf *report.UnknownFormatError
				if !errors.As(err, &uf) || err.Error() != tc.err {
					t.Errorf("Write(%q): %v, want %q", tc.format, err, tc.err)
				}
				return
			}
			if err != nil || !strings.HasPrefix(b.String(), tc.prefix) {
				t.Errorf("Write(%q): %v\n%s", tc.format, err, b.String())
			}
		})
	}
	if got := strings.Join(outputters.Names(), ", "); got != "json, text" {
		t.Errorf("the formats are %s", got)
	}
}
