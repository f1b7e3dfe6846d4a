package result

// Views gives a format what a Report does not carry: the canonical views a binding's policy
// compared and the lane's compartment binding. The check's instrument implements it
// (check.Views); without one the HTML report (internal/report) shows everything but
// the views and the binding rules, and says so.
type Views interface {
	// SourceView is the fixture's W0 result through the canonical binding: the policy input's
	// source.
	SourceView(fixture string) (any, error)
	// ObservedView is the policy input's observed view at a binding: the carrier of the
	// binding's first record through the compartment its task reads at the lane stage. ok is
	// false when the binding has no captured record (not_applicable, execution_failed, …).
	ObservedView(r *Result) (view any, ok bool, err error)
	// Binding describes how a lane stage binds a compartment; ok is false when the lane or the
	// stage is unknown.
	Binding(lane, stage, compartment string) (b CompartmentBinding, ok bool)
}

// CompartmentBinding is a lane stage's compartment binding as the drill-down shows it (the
// glossary's binding, sense 2).
type CompartmentBinding struct {
	// Exposure is observed, not_observable or not_applicable.
	Exposure string `json:"exposure"`
	// SharedWith names the stage whose carrier this stage shares, if any.
	SharedWith string `json:"sharedWith,omitempty"`
	// Doc is the stage's and the compartment's documentation.
	Doc string `json:"doc,omitempty"`
	// Rule is the compartment binding (root, content mapping, structured, isError, raised, meta)
	// as JSON; nil when the stage leaves the compartment unbound.
	Rule any `json:"rule,omitempty"`
	// Unbound says why the carrier has no place for the compartment, when it has none.
	Unbound string `json:"unbound,omitempty"`
	// Basis cites the framework source the binding follows.
	Basis []Basis `json:"basis,omitempty"`
}

// Basis is one framework source a binding follows: a rule and the file and function it rests on.
type Basis struct {
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Function string `json:"function"`
	Version  string `json:"version"`
}
