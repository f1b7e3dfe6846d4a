package result

import (
	"crypto/sha256"
	"strings"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Binding is a task evaluated at a position: the unit that has one outcome (the glossary's
// binding, sense 1). A report names one, in JSON, as its position's members and "task".
type Binding struct {
	Position
	Task string `json:"task"`
}

// String is the binding as a message names it: "fixture lane version configuration stage task".
func (b Binding) String() string {
	return strings.Join([]string{b.Fixture, b.Lane, b.LaneVersion, b.Configuration, b.Stage, b.Task}, " ")
}

// Reading is one repetition's reading of one binding: what the instrument makes of a record
// (internal/instrument Evaluate), an OPA decision log or a census directory says, and what the
// census collapses.
type Reading struct {
	Binding
	Repetition  int
	Origin      string
	Outcome     string
	Readout     map[string]any
	Diagnostics []Diagnostic
	Error       string
	// File and Line locate the observation record the reading came from.
	File string
	Line int
	// Fingerprint is Fingerprint of the reading's outcome, readout and diagnostics when the
	// caller computed it already (check computes it once per verdict, on its workers, however
	// many readings share the verdict); the census computes it when it is zero.
	Fingerprint [sha256.Size]byte
}

// Observation is an observation record's envelope as the checker reads it: where the record lies
// (File, the .jsonl file's display name, and Line), the position it observed its fixture at, its
// repetition, state (captured, not_observable, …), origin and an execution failure's message.
// The instrument's records carry one beside the carrier (internal/instrument Record), and the
// visibility readout reads one (internal/visibility Reader.Read).
type Observation struct {
	File string
	Line int
	Position
	Repetition int
	State      string
	Origin     string
	Error      string
}

// Fingerprint is what repetitions must agree on: the outcome, the readout and the diagnostics,
// hashed in their canonical encoding. Readings with the same fingerprint are one variant. A census
// on disk holds each reading's (internal/censusdir), and a merge takes it as written: changing
// what it hashes changes the census format (censusdir.Version).
func Fingerprint(outcome string, readout map[string]any, diagnostics []Diagnostic) ([sha256.Size]byte, error) {
	if readout == nil {
		readout = map[string]any{}
	}
	b, err := strictjson.Marshal(map[string]any{"o": outcome, "r": readout, "d": diagnosticsValue(diagnostics)})
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b), nil
}

// MarshalDiagnostics is the canonical encoding of a list of diagnostics (strictjson), as
// Fingerprint hashes it: "[]" for none.
func MarshalDiagnostics(ds []Diagnostic) ([]byte, error) {
	return strictjson.Marshal(diagnosticsValue(ds))
}

// diagnosticsValue is the diagnostics as a list of values, never nil.
func diagnosticsValue(ds []Diagnostic) []any {
	out := make([]any, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}
