package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
)

// writeInspectionText writes each record's inspection for a reader: the record's place and position,
// then per task its policy, outcome, diagnostics, readout and input as indented JSON. Every line
// is escape.Terminal'd (JSON strings may hold bidi and other format characters) and the whole
// goes through an escape.LogWriter (no line may start a CI workflow command).
func writeInspectionText(b *strings.Builder, ins inspection) error {
	block := func(label string, v any) error {
		var j bytes.Buffer
		if err := report.WriteJSON(&j, v); err != nil {
			return err
		}
		fmt.Fprintf(b, "    %s:\n", label)
		for _, line := range strings.Split(strings.TrimRight(j.String(), "\n"), "\n") {
			fmt.Fprintf(b, "      %s\n", escape.Terminal(line))
		}
		return nil
	}
	for i, r := range ins.Records {
		if i > 0 {
			b.WriteString("\n")
		}
		rec := r.Record
		fmt.Fprintf(b, "record %s:%d\n", escape.Terminal(rec.File), rec.Line)
		fmt.Fprintf(b, "  %s %s %s %s %s repetition %d: %s (%s)\n", escape.Terminal(rec.Fixture), escape.Terminal(rec.Lane),
			escape.Terminal(rec.LaneVersion), escape.Terminal(rec.Configuration), escape.Terminal(rec.Stage), rec.Repetition,
			escape.Terminal(rec.State), escape.Terminal(rec.Origin))
		if rec.Error != "" {
			fmt.Fprintf(b, "  error: %s\n", escape.Terminal(rec.Error))
		}
		if len(r.Tasks) == 0 {
			b.WriteString("  no task of the profile is evaluated on this fixture at this stage\n")
		}
		for _, t := range r.Tasks {
			fmt.Fprintf(b, "  task %s [%s] %s (%s): %s\n", escape.Terminal(t.Task), escape.Terminal(t.Compartment),
				escape.Terminal(t.Policy), escape.Terminal(strings.Join(t.Files, ", ")), escape.Terminal(t.Outcome))
			if t.Input == nil {
				continue
			}
			if len(t.Diagnostics) > 0 {
				if err := block("diagnostics", t.Diagnostics); err != nil {
					return fmt.Errorf("write the inspection: %w", err)
				}
			}
			if err := block("readout", t.Readout); err != nil {
				return fmt.Errorf("write the inspection: %w", err)
			}
			if err := block("input", t.Input); err != nil {
				return fmt.Errorf("write the inspection: %w", err)
			}
		}
	}
	return nil
}
