package compare

import (
	"encoding/json"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Version is the compareVersion written into every JSON compare report; it changes only when the
// report's shape changes incompatibly (the schema is closed: a member a reader of the earlier
// version does not know is incompatible). Version 2 added Visibility; version 3 Differences,
// WholeValue and each null run's WithholdPrivateMeta; version 4 renamed each null run's byFamily
// (which counted unique divergences) uniqueByFamily and added manifestationsByFamily.
const Version = 4

// Readout kinds a decoder policy returns (SPEC §3).
const (
	Match       = "match"
	Missing     = "missing"
	Wrong       = "wrong"
	Ambiguous   = "ambiguous"
	Unparseable = "unparseable"
	Introduced  = "introduced"
)

// Kinds lists the readout kinds in report order.
var Kinds = []string{Match, Missing, Wrong, Ambiguous, Unparseable, Introduced}

// Report is the outcome of a compare: decoder policies and null policies side by side on the same
// captured carriers.
type Report struct {
	CompareVersion int    `json:"compareVersion"`
	Profile        string `json:"profile"`
	// Scope is what the comparison was restricted to (--lane, --stage, …); absent when it was not.
	Scope    *result.Scope `json:"scope,omitempty"`
	Decoders []Decoder     `json:"decoders"`
	Summary  Summary       `json:"summary"`
	Readouts []Reading     `json:"readouts"`
	Matches  []MatchCell   `json:"matches"`
	Totals   []Totals      `json:"totals"`
	// WholeValue counts each decoder's readouts by kind of the whole structured value (target "")
	// over the framework lanes: one readout per captured fixture, lane, version, configuration and
	// stage in the run's scope, beside Totals' per-field count. It is the study's decoder unit only
	// when the scope is the study's (paper suite, its lanes and configurations, stages A2 M3 H4).
	WholeValue []Totals `json:"wholeValue"`
	// Differences counts, per lane, version, configuration and stage, the captured readings
	// where the decoders differ (Differs), and the lane losses apart (LaneLoss).
	Differences    []DifferenceCell    `json:"differences"`
	Configurations []ConfigurationDiff `json:"configurations"`
	// NullPolicies is absent only in a report whose run failed (Failure).
	NullPolicies NullSensitivity `json:"nullPolicies,omitzero"`
	// Visibility is the channel-visibility readout of the same records, one row per lane,
	// version, configuration and model-facing stage in the readout's order, each with what every
	// decoder recovers there (absent when the readout read nothing).
	Visibility []VisibilityRow `json:"visibility,omitempty"`
	// Failure, in the report of a compare that failed before it could compare (the instrument
	// failed: a policy, a resource limit), names the failure; such a report holds nothing else
	// but the profile and the scope (exit 3). Absent otherwise.
	Failure *result.Failure `json:"failure,omitempty"`
}

// Failed is the report of a compare that failed with err, an instrument failure, before it could
// compare: the profile, the scope (nil when it was not restricted) and the failure, every list
// empty, and no null-policy runs.
func Failed(profile string, scope *result.Scope, err error) *Report {
	return &Report{CompareVersion: Version, Profile: profile, Scope: scope, Decoders: []Decoder{}, Readouts: []Reading{},
		Matches: []MatchCell{}, Totals: []Totals{}, WholeValue: []Totals{}, Differences: []DifferenceCell{}, Configurations: []ConfigurationDiff{},
		Failure: &result.Failure{Exit: result.ExitInstrument, Error: err.Error()}}
}

// VisibilityRow is one group of the channel-visibility readout (what of a tool result's channels
// reaches the model at one lane, version, configuration and stage, and its category) with, per
// selected decoder, how many declared targets it recovers there.
type VisibilityRow struct {
	result.Visibility
	// Recovered holds one count per selected decoder, in the report's decoder order.
	Recovered []Recovery `json:"recovered"`
}

// Recovery counts, for one decoder and one visibility group, the declared targets of the group's
// results that are not errors (its fixtures captured and stable whose channels have no isError)
// read at the group's position, and the matches among them.
type Recovery struct {
	Decoder string `json:"decoder"`
	// Match is how many of the targets the decoder recovers (readout kind match).
	Match int `json:"match"`
	// Targets is how many target readings were captured (and stable) there.
	Targets int `json:"targets"`
}

// Decoder is one selected decoder policy: its name and its Rego package.
type Decoder struct {
	Name    string `json:"name"`
	Package string `json:"package"`
}

// Summary counts the target readings and the positions whose repetitions disagree.
type Summary struct {
	Readings int `json:"readings"` // (position, target) pairs
	Captured int `json:"captured"` // of which captured and stable
	Unstable int `json:"unstable"` // of which repetitions disagree
	// CheckUnstable counts the unstable task bindings of the two check runs.
	CheckUnstable int `json:"checkUnstable"`
}

// Value is a JSON value that may be null; a nil *Value is absent.
type Value struct{ V any }

// MarshalJSON writes the value itself.
func (v Value) MarshalJSON() ([]byte, error) { return json.Marshal(v.V) }

// Reading is one declared target field of a structured fixture read at one position by every
// selected decoder policy, repetitions collapsed.
type Reading struct {
	result.Position
	Family      string `json:"family"`
	Target      string `json:"target"`
	State       string `json:"state"` // the record state, or unstable
	Origin      string `json:"origin"`
	Repetitions int    `json:"repetitions"`
	// Expected is the source's value at the target; absent when the source has none there.
	Expected *Value `json:"expected,omitempty"`
	// Readouts holds, when captured, each decoder's readout by decoder name.
	Readouts map[string]map[string]any `json:"readouts,omitempty"`
	Error    string                    `json:"error,omitempty"`
	Variants []Variant                 `json:"variants,omitempty"`
}

// Variant is one of the disagreeing repetitions of an unstable reading.
type Variant struct {
	Repetitions []int                     `json:"repetitions"`
	State       string                    `json:"state"`
	Readouts    map[string]map[string]any `json:"readouts,omitempty"`
}

// MatchCell counts, for one decoder, lane version, configuration and stage, the captured target
// readings and the matches among them.
type MatchCell struct {
	Decoder string `json:"decoder"`
	result.Cell
	Match    int `json:"match"`
	Captured int `json:"captured"`
}

// DifferenceCell counts, at one lane version, configuration and stage, the captured target
// readings where at least two decoders give different readout kinds (Differs), leaving out those
// where every decoder's readout is wrong or missing: the lane lost the value (LaneLoss counts
// them, whether the decoders' kinds agree or not). Captured is every captured reading there.
type DifferenceCell struct {
	result.Cell
	Differs  int `json:"differs"`
	LaneLoss int `json:"laneLoss"`
	Captured int `json:"captured"`
}

// Totals counts one decoder's readouts by kind over the framework lanes (control lanes left out).
type Totals struct {
	Decoder string `json:"decoder"`
	Counts
}

// Counts is a count of readouts by kind and its total.
type Counts struct {
	Kinds map[string]int `json:"kinds"`
	Total int            `json:"total"`
}

// NewCounts is a count with every one of kinds at 0 (a report lists a kind nothing read as 0).
func NewCounts(kinds []string) Counts {
	c := Counts{Kinds: make(map[string]int, len(kinds))}
	for _, k := range kinds {
		c.Kinds[k] = 0
	}
	return c
}

// Add counts one readout of kind.
func (c *Counts) Add(kind string) {
	c.Kinds[kind]++
	c.Total++
}

// ConfigurationDiff lists, for a lane version with more than one configuration, what changes
// from one configuration to another where both have a result.
type ConfigurationDiff struct {
	Lane        string          `json:"lane"`
	LaneVersion string          `json:"laneVersion"`
	From        string          `json:"from"`
	To          string          `json:"to"`
	Tasks       []TaskChange    `json:"tasks"`
	Decoders    []DecoderChange `json:"decoders"`
}

// TaskChange is a binding whose outcome differs between two configurations (or two null policies).
type TaskChange struct {
	Fixture           string              `json:"fixture"`
	Stage             string              `json:"stage"`
	Task              string              `json:"task"`
	Role              string              `json:"role"`
	Before            string              `json:"before"`
	After             string              `json:"after"`
	DiagnosticsBefore []result.Diagnostic `json:"diagnosticsBefore,omitempty"`
	DiagnosticsAfter  []result.Diagnostic `json:"diagnosticsAfter,omitempty"`
}

// DecoderChange is a target reading whose readout kind differs between two configurations.
type DecoderChange struct {
	Fixture string `json:"fixture"`
	Stage   string `json:"stage"`
	Target  string `json:"target"`
	Decoder string `json:"decoder"`
	Before  string `json:"before"`
	After   string `json:"after"`
}

// NullSensitivity compares the check under two profiles (by default strict and optional-null,
// which differ in null policy; Heading names what differs between any two).
type NullSensitivity struct {
	Base  NullRun `json:"base"`
	Other NullRun `json:"other"`
	// Tasks are the tasks with an optional atom, the ones a null policy can affect.
	Tasks []string `json:"tasks"`
	// Changes are the bindings whose outcome differs between the two runs, with the atoms whose
	// diagnostics changed.
	Changes []NullChange `json:"changes"`
	// OnlyBase and OnlyOther are the unique primary divergences found under one run only.
	OnlyBase  []result.Divergence `json:"onlyBase"`
	OnlyOther []result.Divergence `json:"onlyOther"`
}

// NullRun is the divergence census of one profile. UniqueByFamily and ManifestationsByFamily
// count its unique divergences and its manifestations per fixture family, as the check report's
// members of the same names.
type NullRun struct {
	Profile    string `json:"profile"`
	NullPolicy string `json:"nullPolicy"`
	// WithholdPrivateMeta is the profile's result _meta policy: the stages private _meta keys
	// must not reach; absent when the profile preserves _meta.
	WithholdPrivateMeta    *contract.Withhold `json:"withholdPrivateMeta,omitempty"`
	Unique                 int                `json:"unique"`
	Manifestations         int                `json:"manifestations"`
	UniqueByFamily         map[string]int     `json:"uniqueByFamily"`
	ManifestationsByFamily map[string]int     `json:"manifestationsByFamily"`
	Guard                  int                `json:"guard"`
	Apart                  int                `json:"apart"`
	LeaveOneOut            map[string]int     `json:"leaveOneOut"`
	Pass                   int                `json:"pass"`
	Unmet                  int                `json:"unmet"`
}

// NullChange is a binding whose outcome differs between the two null policies.
type NullChange struct {
	result.Position
	Task         string   `json:"task"`
	BaseOutcome  string   `json:"baseOutcome"`
	OtherOutcome string   `json:"otherOutcome"`
	Atoms        []string `json:"atoms"`
}

// ExitCode is 3 when repetitions disagree (in the decoder readings or in either check run) or the
// compare failed (Failure), else 0.
func (r *Report) ExitCode() int {
	if r.Failure != nil {
		return r.Failure.Exit
	}
	if r.Summary.Unstable > 0 || r.Summary.CheckUnstable > 0 {
		return result.ExitInstrument
	}
	return result.ExitSatisfied
}
