package result

// FixResult is the gate's reading of one fixedBy clause of the profile: from one version of a
// lane to another, did the named atoms' diagnostics disappear, and did nothing that passed
// become unmet.
type FixResult struct {
	// Clause is the fixedBy clause: profiles.<profile>.fixedBy[<i>].
	Clause
	Lane string `json:"lane"`
	From string `json:"from"`
	To   string `json:"to"`
	// Atoms are the atoms the fix removes.
	Atoms []string `json:"atoms"`
	// Status is "fixed", "unmet" or "selected_nothing".
	Status string `json:"status"`
	// Compared counts the selected bindings present at both versions; Before those naming one of
	// the atoms at From (what there is to fix).
	Compared int `json:"compared"`
	Before   int `json:"before"`
	// Remaining are the bindings that still name an atom at To (or that failed to run there),
	// Regressions those that passed at From and do not pass at To.
	Remaining   []FixBinding `json:"remaining"`
	Regressions []FixBinding `json:"regressions"`
	// Unmatched explains a clause that selected nothing, or one with nothing to fix.
	Unmatched string `json:"unmatched,omitempty"`
	// OutOfScope marks a clause that selected nothing because the run was restricted.
	OutOfScope bool `json:"outOfScope,omitempty"`
}

// FixStatus values.
const (
	FixFixed           = "fixed"
	FixUnmet           = "unmet"
	FixSelectedNothing = "selected_nothing"
)

// FixBinding is one binding compared by a fixedBy clause: its outcome at both versions and the
// clause's atoms it names at each.
type FixBinding struct {
	Fixture       string   `json:"fixture"`
	Configuration string   `json:"configuration"`
	Stage         string   `json:"stage"`
	Task          string   `json:"task"`
	Before        string   `json:"before"`
	After         string   `json:"after"`
	AtomsBefore   []string `json:"atomsBefore,omitempty"`
	AtomsAfter    []string `json:"atomsAfter,omitempty"`
}
