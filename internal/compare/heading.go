package compare

import (
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
)

// metaPolicy describes a profile's result _meta policy: preserve, or withhold the private keys at
// the stages named (esc escapes each stage for the sink).
func metaPolicy(w *contract.Withhold, esc func(string) string) string {
	if w == nil {
		return "preserve"
	}
	if len(w.Stages) == 0 {
		return "withhold private keys"
	}
	st := make([]string, len(w.Stages))
	for i, s := range w.Stages {
		st[i] = esc(s)
	}
	return "withhold private keys at " + strings.Join(st, " ")
}

func sameWithhold(a, b *contract.Withhold) bool {
	if a == nil || b == nil {
		return a == b
	}
	return strings.Join(a.Stages, "\x00") == strings.Join(b.Stages, "\x00")
}

// Heading names what the two profiles of a sensitivity run change, for the section's heading:
// "Null-policy sensitivity: strict vs optional-null (null policy strict → optional)" when only
// the null policy differs, "_meta-policy sensitivity: … (the result _meta policy: preserve →
// withhold private keys at M1)" when only the _meta policy does, "Profile sensitivity: …" with
// both, or with neither ("null and _meta policies the same"). esc escapes every string of the
// data for the sink the heading is written to.
func (ns NullSensitivity) Heading(esc func(string) string) string {
	a, b := ns.Base, ns.Other
	var changes []string
	null := a.NullPolicy != b.NullPolicy
	meta := !sameWithhold(a.WithholdPrivateMeta, b.WithholdPrivateMeta)
	if null {
		changes = append(changes, "null policy "+esc(a.NullPolicy)+" → "+esc(b.NullPolicy))
	}
	if meta {
		changes = append(changes, "the result _meta policy: "+metaPolicy(a.WithholdPrivateMeta, esc)+" → "+metaPolicy(b.WithholdPrivateMeta, esc))
	}
	title := "Profile sensitivity"
	switch {
	case null && !meta:
		title = "Null-policy sensitivity"
	case meta && !null:
		title = "_meta-policy sensitivity"
	case !null && !meta:
		changes = append(changes, "null and _meta policies the same")
	}
	return title + ": " + esc(a.Profile) + " vs " + esc(b.Profile) + " (" + strings.Join(changes, "; ") + ")"
}
