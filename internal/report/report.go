// Package report is the last step of the pipeline (strict JSON → schema → contract → projector →
// policy → census → report): the report's data model, stable and versioned, and the output formats
// behind one small Outputter interface, one file each.
package report

// Version is the reportVersion written into every JSON report; it changes only when the report's
// shape changes incompatibly.
const Version = 1

// Report is the outcome of a check: every binding's outcome, the localizations, the divergence
// census and the profile's gate.
type Report struct {
	ReportVersion int            `json:"reportVersion"`
	Profile       string         `json:"profile"`
	NullPolicy    string         `json:"nullPolicy"`
	Summary       Summary        `json:"summary"`
	Results       []Result       `json:"results"`
	Localizations []Localization `json:"localizations"`
	Divergences   Divergences    `json:"divergences"`
	Upgrades      []Upgrade      `json:"upgrades"`
	Gate          Gate           `json:"gate"`
}

// Upgrade lists, for one lane and configuration, the bindings whose outcome changed from one
// version to the next (in the lane's declared version order).
type Upgrade struct {
	Lane          string   `json:"lane"`
	Configuration string   `json:"configuration"`
	From          string   `json:"from"`
	To            string   `json:"to"`
	Changes       []Change `json:"changes"`
}

// Change is one binding whose outcome differs between two versions of a lane.
type Change struct {
	Fixture           string       `json:"fixture"`
	Stage             string       `json:"stage"`
	Task              string       `json:"task"`
	Before            string       `json:"before"`
	After             string       `json:"after"`
	DiagnosticsBefore []Diagnostic `json:"diagnosticsBefore,omitempty"`
	DiagnosticsAfter  []Diagnostic `json:"diagnosticsAfter,omitempty"`
}

// Summary counts results by outcome.
type Summary struct {
	Pass            int `json:"pass"`
	Unmet           int `json:"unmet"`
	ExecutionFailed int `json:"execution_failed"`
	NotReached      int `json:"not_reached"`
	NotApplicable   int `json:"not_applicable"`
	NotObservable   int `json:"not_observable"`
	Unstable        int `json:"unstable"`
}

// Add counts one outcome.
func (s *Summary) Add(outcome string) {
	switch outcome {
	case Pass:
		s.Pass++
	case Unmet:
		s.Unmet++
	case ExecutionFailed:
		s.ExecutionFailed++
	case NotReached:
		s.NotReached++
	case NotApplicable:
		s.NotApplicable++
	case NotObservable:
		s.NotObservable++
	case Unstable:
		s.Unstable++
	}
}

// Outcomes of a binding.
const (
	Pass            = "pass"
	Unmet           = "unmet"
	ExecutionFailed = "execution_failed"
	NotReached      = "not_reached"
	NotApplicable   = "not_applicable"
	NotObservable   = "not_observable"
	Unstable        = "unstable"
)

// Position identifies where a carrier was observed: fixture, lane at a version and configuration,
// and stage.
type Position struct {
	Fixture       string `json:"fixture"`
	Lane          string `json:"lane"`
	LaneVersion   string `json:"laneVersion"`
	Configuration string `json:"configuration"`
	Stage         string `json:"stage"`
}

// Less orders positions by fixture, lane, version, configuration and stage (pipeline order).
func (p Position) Less(q Position, stageIndex func(string) int) bool {
	if p.Fixture != q.Fixture {
		return p.Fixture < q.Fixture
	}
	if p.Lane != q.Lane {
		return p.Lane < q.Lane
	}
	if p.LaneVersion != q.LaneVersion {
		return p.LaneVersion < q.LaneVersion
	}
	if p.Configuration != q.Configuration {
		return p.Configuration < q.Configuration
	}
	return stageIndex(p.Stage) < stageIndex(q.Stage)
}

// Result is the collapsed outcome of one binding: a task evaluated at a position.
type Result struct {
	Fixture       string         `json:"fixture"`
	Suite         string         `json:"suite"`
	Family        string         `json:"family"`
	Lane          string         `json:"lane"`
	LaneVersion   string         `json:"laneVersion"`
	Configuration string         `json:"configuration"`
	Stage         string         `json:"stage"`
	Task          string         `json:"task"`
	Role          string         `json:"role"`
	Compartment   string         `json:"compartment"`
	Outcome       string         `json:"outcome"`
	Origin        string         `json:"origin"`
	Repetitions   int            `json:"repetitions"`
	Required      bool           `json:"required"`
	Readout       map[string]any `json:"readout,omitempty"`
	Diagnostics   []Diagnostic   `json:"diagnostics,omitempty"`
	Error         string         `json:"error,omitempty"`
	Variants      []Variant      `json:"variants,omitempty"`
}

// Position returns the result's position.
func (r *Result) Position() Position {
	return Position{r.Fixture, r.Lane, r.LaneVersion, r.Configuration, r.Stage}
}

// Diagnostic says why a binding is unmet: which atom, where, and what was expected and observed.
// Expected and Observed hold JSON values; a nil pointer means the side has no value (absent),
// which is not the same as a JSON null.
type Diagnostic = map[string]any

// Variant is one of the disagreeing readings of an unstable binding.
type Variant struct {
	Repetitions []int          `json:"repetitions"`
	Outcome     string         `json:"outcome"`
	Readout     map[string]any `json:"readout,omitempty"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
}

// Localization bounds where a required distinction stopped being recoverable.
type Localization struct {
	Fixture       string `json:"fixture"`
	Lane          string `json:"lane"`
	LaneVersion   string `json:"laneVersion"`
	Configuration string `json:"configuration"`
	Task          string `json:"task"`
	From          string `json:"from"`
	To            string `json:"to"`
	Kind          string `json:"kind"`
}

// Localization kinds.
const (
	Transformation   = "transformation"
	Interval         = "interval"
	CompartmentBound = "compartment"
)

// Divergences is the census of (fixture, task) pairs where one lane passes and another is unmet at
// the same stage.
type Divergences struct {
	Unique         []Divergence   `json:"unique"`
	Manifestations int            `json:"manifestations"`
	ByFamily       map[string]int `json:"byFamily"`
	Guard          []Divergence   `json:"guard"`
	Apart          []Divergence   `json:"apart"`
	LeaveOneOut    map[string]int `json:"leaveOneOut"`
}

// Divergence is one unique (fixture, task) divergence and the stages where it manifests.
type Divergence struct {
	Fixture string   `json:"fixture"`
	Task    string   `json:"task"`
	Family  string   `json:"family"`
	Stages  []string `json:"stages"`
}

// Gate is the profile's verdict.
type Gate struct {
	Satisfied  bool        `json:"satisfied"`
	Violations []Violation `json:"violations"`
}

// Violation is a required binding whose outcome the profile does not allow.
type Violation struct {
	Fixture       string `json:"fixture"`
	Lane          string `json:"lane"`
	LaneVersion   string `json:"laneVersion"`
	Configuration string `json:"configuration"`
	Stage         string `json:"stage"`
	Task          string `json:"task"`
	Outcome       string `json:"outcome"`
	Requirement   string `json:"requirement"`
}

// Exit codes of a check, as SPEC §5 defines them.
const (
	ExitSatisfied  = 0
	ExitUnmet      = 1
	ExitInputError = 2
	ExitInstrument = 3
)

// ExitCode is a property of the report: 3 when the instrument failed (unstable repetitions), 1
// when a required contract is unmet, 0 otherwise.
func (r *Report) ExitCode() int {
	switch {
	case r.Summary.Unstable > 0:
		return ExitInstrument
	case !r.Gate.Satisfied:
		return ExitUnmet
	}
	return ExitSatisfied
}

// Outputter writes a check report in one format.
type Outputter = Formatter[*Report]

// outputters are the check report's formats.
var outputters = Registry[*Report]{
	"text":     Text{},
	"json":     JSON{},
	"markdown": Markdown{},
}

// Formats lists the check report's formats, sorted.
func Formats() []string { return outputters.Names() }

// Get returns the outputter for a format.
func Get(format string) (Outputter, error) { return outputters.Get(format) }
