package main

import (
	"strings"

	"github.com/contractcheck/contractcheck/internal/buildinfo"
	"github.com/contractcheck/contractcheck/internal/escape"
)

// writeVersionText writes the description for a reader: escape.TerminalLines (the build's
// strings — module paths and versions, the VCS revision — shown without a control character),
// through an escape.LogWriter (report.TextFormat).
func writeVersionText(b *strings.Builder, info buildinfo.Info) error {
	var raw strings.Builder
	if err := info.WriteText(&raw); err != nil {
		return err
	}
	b.WriteString(escape.TerminalLines(raw.String()))
	return nil
}
