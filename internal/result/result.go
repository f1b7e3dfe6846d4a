// Package result is the result model of a run: what the census computes and every format renders,
// stable and versioned (Version), with the exit codes a run maps to and the errors that map to
// them (exit.go), and the views a format may read beside a report (Views). It holds no output
// code: its JSON encoding (lists.go, append.go) is the model's own, which the census writes and the
// json format streams; the formats are in internal/report.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package result

import (
	"fmt"
	"strings"
)

// Version is the reportVersion written into every JSON report; it changes only when the report's
// shape changes incompatibly. Version 3 split the censuses' byFamily (unique divergences per
// family, though it was described as manifestations) into uniqueByFamily and
// manifestationsByFamily and added uniqueByOrigin and manifestationsByOrigin.
const Version = 3

// Report is the outcome of a check: every binding's outcome, the localizations, the divergence
// census and the profile's gate.
type Report struct {
	ReportVersion int    `json:"reportVersion"`
	Profile       string `json:"profile"`
	// NullPolicy is the profile's null policy; absent only in a report whose run failed before
	// the contracts gave it (Failure).
	NullPolicy string `json:"nullPolicy,omitempty"`
	// Scope is what the run was restricted to (check --lane, --stage, …); absent when it was not.
	Scope *Scope `json:"scope,omitempty"`
	// Cohort is the part of the records the profile judges (its cohort: a record must be within
	// it and Scope); absent when the profile has none. A lanes entry may be LANE@CONFIGURATION.
	Cohort        *Scope        `json:"cohort,omitempty"`
	Summary       Summary       `json:"summary"`
	Results       Results       `json:"results"`
	Localizations Localizations `json:"localizations"`
	Divergences   Divergences   `json:"divergences"`
	// CapturedDivergences is the same census over the bindings of captured carriers only: the
	// numbers that do not rest on any reconstruction.
	CapturedDivergences Divergences `json:"capturedDivergences"`
	Upgrades            []Upgrade   `json:"upgrades"`
	Gate                Gate        `json:"gate"`
	// Reported gives, per fixture citing a public report, the buggy and the fixed side's outcome
	// (absent when the run has none).
	Reported []Reported `json:"reported,omitempty"`
	// VisibilityPolicy is the Rego package that judged Visibility (absent when nothing was read).
	VisibilityPolicy string `json:"visibilityPolicy,omitempty"`
	// Visibility is the channel-visibility readout (docs/visibility.md): for each lane, version,
	// configuration and model-facing stage with records of the readout's fixtures, what of their
	// channels reaches the carrier and the category that follows (absent when nothing was read:
	// nil, never an empty list, so that it is absent from the JSON whichever way it is written).
	Visibility Visibilities `json:"visibility,omitempty"`
	// Lacking, in a report built from decision logs (check --decision-logs), says which of the
	// expected bindings the logs hold no decision for: absent when they hold every one, so that
	// such a report is byte for byte check's on the same pairs.
	Lacking *Lacking `json:"lacking,omitempty"`
	// Failure, in a report of a run that failed before it could give a verdict (the instrument
	// failed: a policy's evaluation failed or broke the policy interface, a resource limit was
	// reached), names the failure; such a report has no results and gives no verdict (exit 3).
	// Absent otherwise, so that every other report is as it was.
	Failure *Failure `json:"failure,omitempty"`
}

// Failure is what stopped a run before it could give a verdict: the exit code it ends with and
// the error, as the run prints it on standard error.
type Failure struct {
	Exit  int    `json:"exit"`
	Error string `json:"error"`
}

// Failed is the report of a run that failed with err before it could give a verdict: the
// profile, the run's scope (nil when it was not restricted) and the failure, no result, and the
// gate's verdict instrument_failed (ExitCode 3). Every list is empty, not absent, so that the
// report reads as every report does.
func Failed(profile string, scope *Scope, err error) *Report {
	return &Report{
		ReportVersion: Version, Profile: profile, Scope: scope,
		Results: ResultList{}, Localizations: LocalizationList{},
		Divergences: emptyDivergences(), CapturedDivergences: emptyDivergences(), Upgrades: []Upgrade{},
		Gate:    Gate{Verdict: VerdictInstrumentFailed, Requirements: []RequirementResult{}, Violations: []Violation{}},
		Failure: &Failure{Exit: ExitInstrument, Error: err.Error()},
	}
}

func emptyDivergences() Divergences {
	return Divergences{Unique: []Divergence{}, UniqueByFamily: map[string]int{}, ManifestationsByFamily: map[string]int{},
		Guard: []Divergence{}, Apart: []Divergence{}, LeaveOneOut: map[string]int{}}
}

// Lacking is what a census built from decision logs lacks: the expected bindings (the positions
// of the contract set's matrix within the run's scope that the logs show were posted, or the
// observation records' bindings) the logs hold no decision for, and the decisions that are
// errors, not verdicts. Such a census is incomplete, and its report gives no verdict (ExitCode).
type Lacking struct {
	// Expected counts the expected bindings; Held those the logs hold a decision for.
	Expected int `json:"expected"`
	Held     int `json:"held"`
	// Count is Expected less Held; First lists the first of them in report order (at most
	// MaxLackingListed).
	Count int       `json:"count"`
	First []Binding `json:"first"`
	// Errors, when the logs hold decisions that are errors, not verdicts, lists them: a carrier
	// was posted and not judged.
	Errors *DecisionErrors `json:"errors,omitempty"`
}

// DecisionErrors are the decisions of a decision log that are errors, not verdicts: OPA logged an
// error for the evaluation, the bundle refused the input (a position the contract set does not
// know, no carrier: {"errors": …}), or the verdict is on a fixture that no catalog or --fixtures
// layer holds (a production result never recorded), which the reader cannot place.
type DecisionErrors struct {
	// Count counts them; First lists the first of them in the order read (at most
	// MaxLackingListed).
	Count int             `json:"count"`
	First []DecisionError `json:"first"`
}

// DecisionError is one decision that is an error.
type DecisionError struct {
	// At is where it was logged: "file:line", or "file: event n" in an uploaded batch.
	At string `json:"at"`
	// Decision is OPA's decision id.
	Decision string `json:"decision"`
	// Error is what OPA or the bundle said, as logged (compact JSON), or, for a verdict on an
	// unknown fixture, the reader's message naming it.
	Error string `json:"error"`
}

// MaxLackingListed is how many lacking bindings a report lists.
const MaxLackingListed = 100

// Visibility is the channel-visibility readout of one lane, version, configuration and stage.
type Visibility struct {
	Lane          string `json:"lane"`
	Version       string `json:"version"`
	Configuration string `json:"configuration"`
	Stage         string `json:"stage"`
	// Category is content-only, structured-first, both, fallback or neither (the built-in
	// policy's names), mixed when the fixtures fit no one category, undetermined when they fit
	// several, unread when no fixture of the group was captured and stable.
	Category string `json:"category"`
	// Nearest, for mixed, is the category most fixtures fit; Disagree the fixtures that do not.
	Nearest  string   `json:"nearest,omitempty"`
	Disagree []string `json:"disagree,omitempty"`
	// Candidates, for undetermined, are the categories the fixtures cannot tell apart.
	Candidates []string `json:"candidates,omitempty"`
	// OnError is the shape the error results (isError true) share, "mixed" when they differ;
	// the category rests on the other results. Absent when the group has no error result.
	OnError string `json:"onError,omitempty"`
	// Rendered is the category when a lossy reading (the built-in policy's rendered: every
	// value is in a text the model reads, not as a value it can be read back from) counts as
	// reaching the model; absent when it is the same as Category.
	Rendered string              `json:"rendered,omitempty"`
	Fixtures []VisibilityFixture `json:"fixtures"`
}

// VisibilityFixture is what one fixture's records show at the group's stage.
type VisibilityFixture struct {
	Fixture string `json:"fixture"`
	// State is captured, unstable (the repetitions read different channels) or the records'
	// state (not_reached, execution_failed, …).
	State string `json:"state"`
	// Shape is what of content and structuredContent reaches the carrier exactly: content,
	// structured or both; else rendered (a value is in a text, not recoverable), rewritten (a
	// text of the framework's own in its place) or nothing.
	Shape string `json:"shape,omitempty"`
	// Channels is how each channel reaches it (content, structured, isError: see
	// docs/visibility.md).
	Channels map[string]string `json:"channels,omitempty"`
	// Record is the first repetition's record, file:line.
	Record string `json:"record"`
}

// Summary is the group's category as one phrase: "content-only", "mixed (nearest both; V02
// differs)" or "undetermined (content-only or fallback)", followed by ", rendered both" when a
// lossy reading gives another category, and ", on error nothing" when the error results show
// another shape than the category gives a result with content.
func (v Visibility) Summary() string {
	s := v.Category
	switch {
	case v.Category == "mixed" && v.Nearest != "":
		verb := "differs"
		if len(v.Disagree) != 1 {
			verb = "differ"
		}
		s = fmt.Sprintf("mixed (nearest %s; %s %s)", v.Nearest, strings.Join(v.Disagree, ", "), verb)
	case len(v.Candidates) > 0:
		s = fmt.Sprintf("%s (%s)", v.Category, strings.Join(v.Candidates, " or "))
	}
	if v.Rendered != "" && v.Rendered != v.Category {
		s += ", rendered " + v.Rendered
	}
	if v.OnError != "" && v.OnError != categoryShape[v.Category] {
		s += ", on error " + v.OnError
	}
	return s
}

// NothingServed reports whether the group's records carry none of what was served: at least one
// fixture was captured and read, and every one of them has the shape nothing or rewritten (the
// built-in policy's words: no reading of the content or the structured value, exact or rendered;
// at most a text of the agent's own, such as its error on a result it could not read). A probe
// that reads so tested the agent's error handling, not what reaches its model.
func (v Visibility) NothingServed() bool {
	read := 0
	for _, f := range v.Fixtures {
		if f.State != "captured" || f.Shape == "" {
			continue
		}
		if f.Shape != "nothing" && f.Shape != "rewritten" {
			return false
		}
		read++
	}
	return read > 0
}

// NothingServedWarning says, unescaped, that the group's records carry none of what was served
// (NothingServed): the agent sent its model something, but nothing of the tool's result.
func (v Visibility) NothingServedWarning() string {
	return fmt.Sprintf("%s %s %s at %s: no record carries anything of what the MCP server served (every fixture reads nothing, or a text of the agent's own): "+
		"the model never saw a tool result; did the agent reject it (an error of its own sent instead)? Look at the records before trusting a category (docs/visibility.md)",
		v.Lane, v.Version, v.Configuration, v.Stage)
}

// categoryShape is the shape each built-in category gives a result with content.
var categoryShape = map[string]string{
	"content-only": "content", "structured-first": "structured", "both": "both", "fallback": "content", "neither": "nothing",
}

// Scope restricts a run to the bindings every listed selector matches (names or globs); an empty
// list restricts nothing.
type Scope struct {
	Lanes          []string `json:"lanes,omitempty"`
	Versions       []string `json:"versions,omitempty"`
	Configurations []string `json:"configurations,omitempty"`
	Stages         []string `json:"stages,omitempty"`
	Suites         []string `json:"suites,omitempty"`
	Fixtures       []string `json:"fixtures,omitempty"`
	Tasks          []string `json:"tasks,omitempty"`
}

// IsZero reports whether the scope restricts nothing: every binding is within it.
func (s Scope) IsZero() bool {
	return len(s.Lanes)+len(s.Versions)+len(s.Configurations)+len(s.Stages)+len(s.Suites)+len(s.Fixtures)+len(s.Tasks) == 0
}

// Upgrade lists, for one lane and configuration, the bindings whose outcome changed from one
// version to the next (in the lane's declared version order).
type Upgrade struct {
	Lane          string  `json:"lane"`
	Configuration string  `json:"configuration"`
	From          string  `json:"from"`
	To            string  `json:"to"`
	Changes       Changes `json:"changes"`
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
	Ambiguous       int `json:"ambiguous"`
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
	case Ambiguous:
		s.Ambiguous++
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
	// Ambiguous is a recorded observation whose source is not proved: contractcheck record saw
	// the item reach the model but could not tell which of two or more distinct results of the
	// same tool and arguments it carries (docs/record.md, "Pairing"). Never a pass or an unmet.
	Ambiguous = "ambiguous"
	Unstable  = "unstable"
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

// Less orders positions by fixture, then by their cells (Cell.Less).
func (p Position) Less(q Position, stageIndex func(string) int) bool {
	if p.Fixture != q.Fixture {
		return p.Fixture < q.Fixture
	}
	return p.Cell().Less(q.Cell(), stageIndex)
}

// Cell is a position without its fixture: a lane at a version and configuration, at a stage. It
// is one cell (or row) of a table that counts over fixtures: compare's match matrix and
// differences, the study's tables IV and VI.
type Cell struct {
	Lane          string `json:"lane"`
	LaneVersion   string `json:"laneVersion"`
	Configuration string `json:"configuration"`
	Stage         string `json:"stage"`
}

// Cell is the cell of a table a position falls in.
func (p Position) Cell() Cell {
	return Cell{Lane: p.Lane, LaneVersion: p.LaneVersion, Configuration: p.Configuration, Stage: p.Stage}
}

// Less orders cells by lane, version (CompareVersions), configuration and stage (pipeline
// order).
func (c Cell) Less(d Cell, stageIndex func(string) int) bool {
	if c.Lane != d.Lane {
		return c.Lane < d.Lane
	}
	if c.LaneVersion != d.LaneVersion {
		return LessVersion(c.LaneVersion, d.LaneVersion)
	}
	if c.Configuration != d.Configuration {
		return c.Configuration < d.Configuration
	}
	return stageIndex(c.Stage) < stageIndex(d.Stage)
}

// Result is the collapsed outcome of one binding: a task evaluated at a position.
type Result struct {
	Fixture       string `json:"fixture"`
	Suite         string `json:"suite"`
	Family        string `json:"family"`
	Lane          string `json:"lane"`
	LaneVersion   string `json:"laneVersion"`
	Configuration string `json:"configuration"`
	Stage         string `json:"stage"`
	Task          string `json:"task"`
	Role          string `json:"role"`
	Compartment   string `json:"compartment"`
	Outcome       string `json:"outcome"`
	Origin        string `json:"origin"`
	Repetitions   int    `json:"repetitions"`
	Required      bool   `json:"required"`
	// RequiredBy names the requirements that gate the binding (profiles.<p>.require[<i>]).
	RequiredBy  []string       `json:"requiredBy,omitempty"`
	Readout     map[string]any `json:"readout,omitempty"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	Error       string         `json:"error,omitempty"`
	Variants    []Variant      `json:"variants,omitempty"`
	// Records locates the observation record of each repetition, in repetition order.
	Records []RecordRef `json:"records,omitempty"`
}

// RecordRef locates one observation record: the .jsonl file (as the run named it) and the line.
type RecordRef struct {
	File       string `json:"file"`
	Line       int    `json:"line"`
	Repetition int    `json:"repetition"`
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
// the same stage. Two things are counted, each by fixture family and by origin: unique
// divergences (Unique, one per pair) and manifestations (one per pair and stage where it shows), so
// a divergence that shows at three stages is one unique divergence and three manifestations.
type Divergences struct {
	Unique         []Divergence `json:"unique"`
	Manifestations int          `json:"manifestations"`
	// UniqueByFamily and ManifestationsByFamily count the unique divergences and the
	// manifestations per fixture family (a family with none is absent).
	UniqueByFamily         map[string]int `json:"uniqueByFamily"`
	ManifestationsByFamily map[string]int `json:"manifestationsByFamily"`
	// UniqueByOrigin and ManifestationsByOrigin count them by the origin of the carriers they
	// rest on (OriginCounts).
	UniqueByOrigin         OriginCounts `json:"uniqueByOrigin"`
	ManifestationsByOrigin OriginCounts `json:"manifestationsByOrigin"`
	Guard                  []Divergence `json:"guard"`
	Apart                  []Divergence `json:"apart"`
	// LeaveOneOut is, per lane, the number of unique divergences left when that lane is removed.
	LeaveOneOut map[string]int `json:"leaveOneOut"`
}

// OriginCounts splits a count by the origin of the carriers it rests on. A manifestation is
// Captured when captured carriers alone show it (at its stage a binding of a captured carrier
// passes and another one is unmet) and Reconstructed when it shows only with a reconstructed
// carrier's outcome counted; a unique divergence is Captured when any of its manifestations is.
// The captured counts are therefore the census over captured carriers only
// (Report.CapturedDivergences), and Captured + Reconstructed is the total.
type OriginCounts struct {
	Captured      int `json:"captured"`
	Reconstructed int `json:"reconstructed"`
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
	// Verdict is satisfied, unmet, selected_nothing, instrument_failed or incomplete.
	Verdict string `json:"verdict"`
	// Satisfied is true exactly when the verdict is satisfied.
	Satisfied bool `json:"satisfied"`
	// Requirements says, per requirement of the profile, what it selected.
	Requirements []RequirementResult `json:"requirements"`
	Violations   []Violation         `json:"violations"`
	// FixedBy says, per fixedBy clause of the profile, whether the fix landed (absent when the
	// profile has none).
	FixedBy []FixResult `json:"fixedBy,omitempty"`
	// Reached says, per stage of the profile's visibility.reached, which groups of the
	// visibility readout carry nothing of what was served (absent when the profile lists none).
	Reached []ReachedResult `json:"reached,omitempty"`
}

// ReachedResult is the profile's visibility.reached clause at one stage: how many groups of the
// visibility readout it judged, and those whose records carry nothing of what was served
// (Visibility.NothingServed), each of which makes the gate unmet.
type ReachedResult struct {
	// Name is profiles.<profile>.visibility.reached.
	Name  string `json:"name"`
	Stage string `json:"stage"`
	// Groups counts the readout's groups (lane, version, configuration) at the stage.
	Groups    int              `json:"groups"`
	Unreached []UnreachedGroup `json:"unreached"`
}

// UnreachedGroup is a lane, version and configuration whose records at a stage carry nothing of
// what was served, with the records of its fixtures (file:line).
type UnreachedGroup struct {
	Lane          string   `json:"lane"`
	Version       string   `json:"version"`
	Configuration string   `json:"configuration"`
	Records       []string `json:"records"`
}

// Gated is how many bindings the gate's requirements select, less those they exempt.
func (g Gate) Gated() int {
	n := 0
	for _, q := range g.Requirements {
		n += q.Selected - q.Exempt
	}
	return n
}

// Verdicts of a gate.
const (
	// VerdictSatisfied: every requirement gated at least one binding and none was violated.
	VerdictSatisfied = "satisfied"
	// VerdictUnmet: a required binding's outcome is not allowed.
	VerdictUnmet = "unmet"
	// VerdictSelectedNothing: the profile has no requirement, or a requirement gated no binding; a
	// gate is never satisfied by nothing.
	VerdictSelectedNothing = "selected_nothing"
	// VerdictInstrumentFailed: repetitions disagree somewhere; no verdict can be trusted.
	VerdictInstrumentFailed = "instrument_failed"
	// VerdictIncomplete: a census read from decision logs lacks expected bindings, or some of the
	// logged decisions are errors (Report.Lacking); it gives no verdict (exit 2).
	VerdictIncomplete = "incomplete"
)

// Clause names one clause of the profile's gate, a requirement or a fixedBy clause, as its
// reading in the report leads with it.
type Clause struct {
	// Name is profiles.<profile>.require[<i>] or profiles.<profile>.fixedBy[<i>].
	Name string `json:"name"`
	Doc  string `json:"doc"`
	// Position is where the clause is written, "file:line:col"; absent when CUE knows none.
	Position string `json:"position,omitempty"`
}

// RequirementResult is what one requirement of the profile selected.
type RequirementResult struct {
	// Clause is the requirement: profiles.<profile>.require[<i>].
	Clause
	// Selected counts the bindings its selectors match; Exempt those left out as not_applicable or
	// not_observable; Violations those whose outcome it does not allow.
	Selected   int `json:"selected"`
	Exempt     int `json:"exempt"`
	Violations int `json:"violations"`
	// Unmatched explains a requirement that gated no binding.
	Unmatched string `json:"unmatched,omitempty"`
	// OutOfScope marks a requirement that gated no binding because the run was restricted
	// (check --lane, …): it does not fail the gate while another requirement gates something.
	OutOfScope bool `json:"outOfScope,omitempty"`
}

// Violation is a required binding whose outcome the profile does not allow.
type Violation struct {
	// Position is where the binding was read; its fields lead the JSON object, in its order.
	Position
	Task            string       `json:"task"`
	Outcome         string       `json:"outcome"`
	Requirement     string       `json:"requirement"`
	RequirementName string       `json:"requirementName"`
	Diagnostics     []Diagnostic `json:"diagnostics,omitempty"`
	Records         []RecordRef  `json:"records,omitempty"`
}

// Verdict says in one line what the run found: the gate's verdict and the counts, for a log that
// does not show the report itself.
func (r *Report) Verdict() string {
	s := r.Summary
	return fmt.Sprintf("profile %s %s: %d bindings (%d pass, %d unmet, %d execution_failed, %d not_reached, %d not_applicable, %d not_observable, %d ambiguous, %d unstable), %d violations",
		r.Profile, r.VerdictText(), r.Len(), s.Pass, s.Unmet, s.ExecutionFailed, s.NotReached, s.NotApplicable, s.NotObservable, s.Ambiguous, s.Unstable, len(r.Gate.Violations))
}

// VerdictText is the gate's verdict in words, as Verdict and the formats' summary lines give it:
// "satisfied", "NOT satisfied", "selected nothing (no verdict)", "the instrument failed (no
// verdict)" or "incomplete (no verdict)".
func (r *Report) VerdictText() string {
	if r.Failure != nil {
		return "the instrument failed (no verdict)"
	}
	switch r.Gate.Verdict {
	case VerdictSatisfied:
		return "satisfied"
	case VerdictUnmet:
		return "NOT satisfied"
	case VerdictSelectedNothing:
		return "selected nothing (no verdict)"
	case VerdictInstrumentFailed:
		return "the instrument failed (no verdict)"
	case VerdictIncomplete:
		return "incomplete (no verdict)"
	}
	return r.Gate.Verdict
}

// ScopeText says what a run was restricted to, "" when it was not.
func (r *Report) ScopeText() string { return r.Scope.Text() }

// CohortText says what the profile's cohort selects, "" when the profile has none.
func (r *Report) CohortText() string { return r.Cohort.Text() }

// Text lists a scope's selectors, "lanes a,b; stages A2", "" for a nil or zero scope.
func (s *Scope) Text() string { return s.Join(",") }

// Join lists a scope's selectors as Text does, with sep between the values of one selector:
// Join(", ") is "lanes a, b; stages A2".
func (s *Scope) Join(sep string) string {
	if s == nil {
		return ""
	}
	var parts []string
	for _, f := range []struct {
		name string
		vals []string
	}{{"lanes", s.Lanes}, {"versions", s.Versions}, {"configurations", s.Configurations},
		{"stages", s.Stages}, {"suites", s.Suites}, {"fixtures", s.Fixtures}, {"tasks", s.Tasks}} {
		if len(f.vals) > 0 {
			parts = append(parts, f.name+" "+strings.Join(f.vals, sep))
		}
	}
	return strings.Join(parts, "; ")
}
