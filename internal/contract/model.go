// Package contract is step 3 of the pipeline (strict JSON → schema → contract → projector → policy →
// census → report): it loads the CUE contract model — atoms, tasks, compartments, lanes, profiles
// and the fixture catalog — validates it, and decodes it into the Go types the projector, the
// policy engine and the census read. CUE errors keep their file:line:col.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package contract

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// Stages lists the stages in pipeline order; W0 is the source itself.
var Stages = []string{"W0", "D1", "A2", "M3", "H4"}

// StageIndex returns the position of a stage in Stages, or -1 for an unknown stage.
func StageIndex(stage string) int {
	for i, s := range Stages {
		if s == stage {
			return i
		}
	}
	return -1
}

// Model is the decoded contract model.
type Model struct {
	Atoms    map[string]Atom    `json:"atoms"`
	Tasks    map[string]Task    `json:"tasks"`
	Families map[string]Family  `json:"families"`
	Fixtures map[string]Fixture `json:"fixtures"`
	Lanes    map[string]Lane    `json:"lanes"`
	Profiles map[string]Profile `json:"profiles"`
	// Revisions holds, by MCP revision name, how the revision's W0 result binds to the
	// compartments: a fixture's revision picks its source binding (SourceBinding).
	Revisions map[string]Revision `json:"revisions"`
	// Visibility says where the channel-visibility readout is taken.
	Visibility Visibility `json:"visibility"`
}

// Revision is what the model says of an MCP revision: the binding its W0 result is read
// through.
type Revision struct {
	Doc    string      `json:"doc"`
	Source Compartment `json:"source"`
	// Compartments are further parts of the revision's W0 result, by name, that a task reads
	// beside what Source binds (Task.Sources): e.g. the outputs meant for one audience of a
	// result whose outputs are each for an audience.
	Compartments map[string]Compartment `json:"compartments,omitempty"`
	// SourcePos is where the binding is written, "file:line:col" (the latest layer's), or "".
	SourcePos string `json:"-"`
}

// SourceBinding is the binding a W0 result of revision is read through, and false when the model
// declares none for it (revisions.<revision>.source).
func (m *Model) SourceBinding(revision string) (Compartment, bool) {
	r, ok := m.Revisions[revision]
	return r.Source, ok
}

// SourceName is how messages name a revision's source binding: revisions."<revision>".source.
func SourceName(revision string) string {
	return fmt.Sprintf("revisions.%q.source", revision)
}

// NoBinding is the error for a source of a revision the model declares no source binding for:
// what names it (a fixture, a file) comes first.
func (m *Model) NoBinding(revision string) error {
	bound := strings.Join(SortedKeys(m.Revisions), ", ")
	if bound == "" {
		bound = "none"
	}
	return fmt.Errorf("revision %s has no source binding: a layer that adds a revision declares how its result binds (revisions: %q: source: {…}, docs/writing-a-contract.md); the model binds %s",
		revision, revision, bound)
}

// Visibility says where the channel-visibility readout is taken: the Rego package defining
// channels and category, the model-facing stages read and the fixtures it rests on.
type Visibility struct {
	Policy   string          `json:"policy"`
	Stages   []string        `json:"stages"`
	Fixtures FixtureSelector `json:"fixtures"`
}

// VisibilityStages are the stages the readout is taken at under a profile: the model's stages and
// those the profile adds (to read, or to require something reached at), in stage order.
func (m *Model) VisibilityStages(profile string) []string {
	set := map[string]bool{}
	for _, s := range m.Visibility.Stages {
		set[s] = true
	}
	if p, ok := m.Profiles[profile]; ok && p.Visibility != nil {
		for _, s := range slices.Concat(p.Visibility.Stages, p.Visibility.Reached) {
			set[s] = true
		}
	}
	var out []string
	for _, s := range Stages {
		if set[s] {
			out = append(out, s)
		}
	}
	return out
}

// Atom is a typed distinction a consumer may need.
type Atom struct {
	Doc string `json:"doc"`
	// Optional atoms may be relaxed by the optional-null policy.
	Optional bool `json:"optional"`
}

// Task is a consumer decision encoded as a Rego package.
type Task struct {
	Doc         string   `json:"doc"`
	Role        string   `json:"role"`
	Policy      string   `json:"policy"`
	Compartment string   `json:"compartment"`
	Atoms       []string `json:"atoms"`
	// AppliesTo selects fixtures the task is evaluated on beside those that name it.
	AppliesTo *FixtureSelector `json:"appliesTo,omitempty"`
	// Stages, when set, are the only stages the task is evaluated at.
	Stages []string `json:"stages,omitempty"`
	// Sources names source compartments (Revision.Compartments) the policy is handed beside the
	// source view, as input.sources.<name>: the fixture's W0 result read through its revision's
	// binding of that name (no member when the revision binds none).
	Sources []string `json:"sources,omitempty"`
	// PolicyPos is where the task's policy is named, "file:line:col" or "" when CUE knows no
	// position: errors about the policy point there.
	PolicyPos string `json:"-"`
}

// AtStage reports whether the task is evaluated at a stage.
func (t Task) AtStage(stage string) bool {
	return len(t.Stages) == 0 || slices.Contains(t.Stages, stage)
}

// FixtureSelector selects catalogued fixtures by id, suite, family and the kinds of block their
// W0 content holds; entries are names or globs.
type FixtureSelector struct {
	Fixtures   []string `json:"fixtures,omitempty"`
	Suites     []string `json:"suites,omitempty"`
	Families   []string `json:"families,omitempty"`
	BlockKinds []string `json:"blockKinds,omitempty"`
	// Uncatalogued selects only the fixtures derived from a source no catalogue entry names.
	Uncatalogued bool `json:"uncatalogued,omitempty"`
	// Holds selects the fixtures whose W0 result holds one of these (Fixture.Holds).
	Holds []string `json:"holds,omitempty"`
}

// Selects reports whether a fixture with the given id, catalog entry and W0 block kinds is selected.
func (s FixtureSelector) Selects(id string, f Fixture, kinds []string) bool {
	if s.Fixtures != nil && !Matches(s.Fixtures, id) ||
		s.Suites != nil && !Matches(s.Suites, f.Suite) ||
		s.Families != nil && !Matches(s.Families, f.Family) ||
		s.Uncatalogued && !f.Derived {
		return false
	}
	if s.Holds != nil && !slices.ContainsFunc(f.Holds, func(h string) bool { return Matches(s.Holds, h) }) {
		return false
	}
	if s.BlockKinds == nil {
		return true
	}
	for _, k := range kinds {
		if Matches(s.BlockKinds, k) {
			return true
		}
	}
	return false
}

// Family groups fixtures that exercise one distinction.
type Family struct {
	Doc    string `json:"doc"`
	Census string `json:"census"`
}

// Fixture is one catalogued source result.
type Fixture struct {
	Suite  string `json:"suite"`
	Family string `json:"family"`
	// Revision is the MCP revision the source is written in: a name #Revision allows, that a
	// schema layer holds (checked once the schemas are loaded: instrument.CheckRevisions).
	Revision    string   `json:"revision"`
	Tasks       []string `json:"tasks"`
	Doc         string   `json:"doc"`
	Targets     []string `json:"targets"`
	PrivateMeta []string `json:"privateMeta,omitempty"`
	// Report cites the public report the fixture reproduces, when it does.
	Report *Report `json:"report,omitempty"`
	// Pos is where the catalog entry is written, "file:line:col" or "", or for a derived entry the
	// source file it was derived from.
	Pos string `json:"-"`
	// Derived says no catalogue entry names the fixture: the entry was derived from its source file
	// (instrument.DeriveFixtures, docs/uncatalogued.md).
	Derived bool `json:"derived,omitempty"`
	// Holds is, for a derived entry, what its W0 result holds (#Holds), in the documented order.
	Holds []string `json:"holds,omitempty"`
}

// Report cites a publicly reported loss a fixture reproduces.
type Report struct {
	URL           string   `json:"url"`
	Fix           []string `json:"fix"`
	Lane          string   `json:"lane"`
	Buggy         string   `json:"buggy,omitempty"`
	Fixed         string   `json:"fixed,omitempty"`
	Configuration string   `json:"configuration"`
	Stages        []string `json:"stages"`
	Tasks         []string `json:"tasks"`
	Atoms         []string `json:"atoms"`
	Loses         string   `json:"loses"`
	NotRun        string   `json:"notRun,omitempty"`
}

// Lane is one framework: its versions, configurations and the stages it exposes.
type Lane struct {
	Doc            string            `json:"doc"`
	Control        bool              `json:"control"`
	Origin         string            `json:"origin"`
	VersionOrigins map[string]string `json:"versionOrigins"`
	Versions       []string          `json:"versions"`
	// ExtraVersions are versions a layer adds to the lane (a list does not unify across layers):
	// after decoding, each is merged into Versions at its place in version order.
	ExtraVersions  map[string]ExtraVersion  `json:"extraVersions,omitempty"`
	Configurations map[string]Configuration `json:"configurations"`
	Stages         map[string]StageDef      `json:"stages"`
}

// OriginOf returns the origin of a version's carriers: its own when the lane overrides it, else
// the lane's.
func (l Lane) OriginOf(version string) string {
	if o, ok := l.VersionOrigins[version]; ok {
		return o
	}
	return l.Origin
}

// ExtraVersion is a version a layer adds to a lane, and why.
type ExtraVersion struct {
	Doc string `json:"doc"`
}

// mergeExtraVersions puts each lane's extra versions into its versions, each before the first
// declared version that comes after it in version order (result.CompareVersions), extras in that
// order too; so an upgrade gate (census's upgrade pairs follow Versions) reads v1.7.0 → v1.8.0. A
// version both declared and added is an error at the added one.
func (m *Model) mergeExtraVersions(p *problems) {
	for _, id := range SortedKeys(m.Lanes) {
		l := m.Lanes[id]
		if len(l.ExtraVersions) == 0 {
			l.ExtraVersions = nil // as its cached JSON (omitempty) decodes
			m.Lanes[id] = l
			continue
		}
		extras := SortedKeys(l.ExtraVersions)
		slices.SortStableFunc(extras, result.CompareVersions)
		merged := slices.Clone(l.Versions)
		for _, v := range extras {
			if slices.Contains(l.Versions, v) {
				p.add([]any{"lanes", id, "extraVersions", v}, "lanes.%s.extraVersions: version %q is already one of the lane's versions", id, v)
				continue
			}
			i := slices.IndexFunc(merged, func(d string) bool { return result.CompareVersions(d, v) > 0 })
			if i < 0 {
				i = len(merged)
			}
			merged = slices.Insert(merged, i, v)
		}
		l.Versions = merged
		m.Lanes[id] = l
	}
}

// Configuration is a documented setting of a lane.
type Configuration struct {
	Doc string `json:"doc"`
}

// Exposure values of a StageDef.
const (
	Observed      = "observed"
	NotObservable = "not_observable"
	NotApplicable = "not_applicable"
)

// StageDef is how a lane exposes one stage.
type StageDef struct {
	Exposure   string `json:"exposure"`
	Doc        string `json:"doc"`
	SharedWith string `json:"sharedWith,omitempty"`
	Carrier    string `json:"carrier,omitempty"`
	// CarrierPos is where Carrier is written, "file:line:col" (empty when unknown), for the
	// messages about a carrier schema that is missing or does not compile.
	CarrierPos   string                 `json:"-"`
	Compartments map[string]Compartment `json:"compartments"`
	// Unbound gives, for each compartment a task reads that the carrier has no place for, the
	// reason; such a compartment reads as an empty view.
	Unbound map[string]string `json:"unbound"`
}

// Compartment is the part of a carrier a consumer reads, as allowlisted paths.
type Compartment struct {
	Doc        string          `json:"doc"`
	Root       string          `json:"root"`
	Unwrap     string          `json:"unwrap"`
	Content    *ContentBinding `json:"content,omitempty"`
	Structured *Field          `json:"structured,omitempty"`
	IsError    *ErrorField     `json:"isError,omitempty"`
	Raised     *Field          `json:"raised,omitempty"`
	Meta       *Field          `json:"meta,omitempty"`
	Basis      []Basis         `json:"basis"`
}

// ContentBinding binds a compartment's content list.
type ContentBinding struct {
	Path          string                  `json:"path"`
	Decode        string                  `json:"decode"`
	Types         []string                `json:"types,omitempty"`
	Discriminator string                  `json:"discriminator"`
	Kinds         map[string]BlockMapping `json:"kinds"`
}

// BlockMapping maps one carrier item type onto a canonical block.
type BlockMapping struct {
	Kind   string           `json:"kind"`
	Fields map[string]Field `json:"fields"`
	// Delivery says how an item of the mapping reaches the model, when it is declared.
	Delivery string `json:"delivery,omitempty"`
	// Accepts names the provider request schema an item is validated against, when declared.
	Accepts string `json:"accepts,omitempty"`
	// Embedded, when set, reads an item whose string at Embedded.Path is the JSON of a content
	// block as the block it holds.
	Embedded *EmbeddedBlock `json:"embedded,omitempty"`
}

// EmbeddedBlock decodes an item's string that holds the JSON text of a content block.
type EmbeddedBlock struct {
	Path          string                  `json:"path"`
	Discriminator string                  `json:"discriminator"`
	Kinds         map[string]BlockMapping `json:"kinds"`
}

// Field binds one atom to one path, with a decoder.
type Field struct {
	Path   string   `json:"path"`
	Decode string   `json:"decode"`
	Types  []string `json:"types,omitempty"`
	// Inner, when set, is a pointer followed inside the decoded value.
	Inner *string `json:"inner,omitempty"`
}

// ErrorField binds the explicit error flag.
type ErrorField struct {
	Path     string   `json:"path"`
	Abort    []string `json:"abort"`
	Continue []string `json:"continue"`
}

// Basis cites the framework source a binding follows.
type Basis struct {
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Function string `json:"function"`
	Version  string `json:"version"`
}

// Profile is a named contract set with its required outcomes.
type Profile struct {
	Doc                 string        `json:"doc"`
	NullPolicy          string        `json:"nullPolicy"`
	Tasks               []string      `json:"tasks"`
	WithholdPrivateMeta *Withhold     `json:"withholdPrivateMeta,omitempty"`
	Require             []Requirement `json:"require"`
	FixedBy             []FixedBy     `json:"fixedBy"`
	// Visibility, when set, adds stages to the channel-visibility readout.
	Visibility *ProfileVisibility `json:"visibility,omitempty"`
	// Cohort, when set, is the part of the records the profile judges: a record outside it is
	// left out of the run, as one outside the run's --lane, --stage, … scope is.
	Cohort *Cohort `json:"cohort,omitempty"`
}

// Cohort is the part of the records a profile judges: the selectors of a run's scope
// (result.Scope), each a list of names or globs, empty restricting nothing, with a doc. A lanes
// entry is LANE or LANE@CONFIGURATION, as --lane reads it (LaneSelected). The model (#Cohort) gives
// no tasks selector: a profile's tasks are Profile.Tasks.
type Cohort struct {
	Doc string `json:"doc"`
	result.Scope
}

// Selection is the cohort as a run's scope; a nil cohort restricts nothing.
func (c *Cohort) Selection() result.Scope {
	if c == nil {
		return result.Scope{}
	}
	return c.Scope
}

// ProfileVisibility is a profile's addition to the channel-visibility readout: stages to read, and
// stages at which the gate requires that something of what was served reached the model.
type ProfileVisibility struct {
	Stages []string `json:"stages,omitempty"`
	// Reached lists the stages at which a group of the readout whose records carry nothing of
	// what was served makes the gate unmet (they are read, too).
	Reached []string `json:"reached,omitempty"`
}

// FixedBy is a profile clause that gates a fix: from one version of a lane to another, the named
// atoms' diagnostics disappear at the selected bindings and nothing that passed becomes unmet.
type FixedBy struct {
	Doc            string   `json:"doc"`
	Lane           string   `json:"lane"`
	From           string   `json:"from"`
	To             string   `json:"to"`
	Configurations []string `json:"configurations"`
	Stages         []string `json:"stages"`
	Fixtures       []string `json:"fixtures"`
	Tasks          []string `json:"tasks"`
	Atoms          []string `json:"atoms"`
	// Name is how messages and reports refer to the clause: profiles.<id>.fixedBy[<i>].
	Name string `json:"-"`
	// Pos is where the clause is written, "file:line:col", or "".
	Pos string `json:"-"`
}

// Selects reports whether the clause compares a binding at (configuration, stage, fixture, task).
func (f FixedBy) Selects(configuration, stage, fixture, task string) bool {
	for _, s := range []struct {
		entries []string
		v       string
	}{{f.Configurations, configuration}, {f.Stages, stage}, {f.Fixtures, fixture}, {f.Tasks, task}} {
		if len(s.entries) > 0 && !Matches(s.entries, s.v) {
			return false
		}
	}
	return true
}

// Withhold names the stages private result _meta must not reach.
type Withhold struct {
	Stages []string `json:"stages"`
}

// Requirement is one clause of a profile's gate.
type Requirement struct {
	Doc string `json:"doc"`
	// Scope holds the requirement's selectors (lanes, versions, configurations, stages, suites,
	// fixtures, tasks), as a run's scope lists them; the model gives each a default (["*"]).
	result.Scope
	Outcomes []string `json:"outcomes"`
	// Unobserved is "exempt" (not_applicable and not_observable bindings are left out of the
	// requirement) or "count" (they are held to Outcomes).
	Unobserved string `json:"unobserved"`
	// Name is how messages and reports refer to the requirement: profiles.<id>.require[<i>].
	Name string `json:"-"`
	// Pos is where the requirement is written, "file:line:col", or "" when CUE knows no position.
	Pos string `json:"-"`
}

// Selection is what a requirement's selectors see of a binding.
type Selection struct {
	Fixture, Suite, Lane, LaneVersion, Configuration, Stage, Task string
}

// Selector is one named selector of a requirement and its entries, in the order a message about
// a selector that matched nothing walks them.
type Selector struct {
	Name    string
	Entries []string
	Of      func(Selection) string
}

// Keeps reports whether the selector keeps a binding: it has no entries (a requirement built in
// Go rather than CUE, where every selector defaults to ["*"]), or one of them matches.
func (s Selector) Keeps(x Selection) bool {
	return len(s.Entries) == 0 || Matches(s.Entries, s.Of(x))
}

// Selectors lists the requirement's selectors, from the widest to the narrowest. It returns an
// array rather than a slice so that Selects, called per binding and requirement, allocates nothing.
func (r Requirement) Selectors() [7]Selector {
	return [7]Selector{
		{"lanes", r.Lanes, func(s Selection) string { return s.Lane }},
		{"versions", r.Versions, func(s Selection) string { return s.LaneVersion }},
		{"configurations", r.Configurations, func(s Selection) string { return s.Configuration }},
		{"stages", r.Stages, func(s Selection) string { return s.Stage }},
		{"suites", r.Suites, func(s Selection) string { return s.Suite }},
		{"fixtures", r.Fixtures, func(s Selection) string { return s.Fixture }},
		{"tasks", r.Tasks, func(s Selection) string { return s.Task }},
	}
}

// Selects reports whether the requirement applies to a binding. A selector with no entries (a
// requirement built in Go rather than CUE, where every selector defaults to ["*"]) selects all.
func (r Requirement) Selects(s Selection) bool {
	for _, sel := range r.Selectors() {
		if !sel.Keeps(s) {
			return false
		}
	}
	return true
}

// Exempts reports whether an outcome is left out of the requirement: not_applicable and
// not_observable, unless the requirement counts them.
func (r Requirement) Exempts(outcome string) bool {
	return r.Unobserved != "count" && (outcome == NotApplicable || outcome == NotObservable)
}

// Allows reports whether outcome satisfies the requirement.
func (r Requirement) Allows(outcome string) bool {
	return slices.Contains(r.Outcomes, outcome)
}

// Matches reports whether v matches one of the entries: a name, "*", or a path.Match glob.
func Matches(entries []string, v string) bool {
	for _, e := range entries {
		if e == v || e == "*" {
			return true
		}
		if ok, err := path.Match(e, v); err == nil && ok {
			return true
		}
	}
	return false
}

// IsGlob reports whether an entry is a glob rather than a name.
func IsGlob(e string) bool { return strings.ContainsAny(e, "*?[") }

// ResolveTasks completes each fixture's task list with the tasks whose appliesTo selects it,
// given the kinds of block each fixture's W0 content holds: the fixture's own tasks first, then the
// selected ones by id. A fixture no task applies to is an error: it would never be checked.
func (m *Model) ResolveTasks(kinds map[string][]string) error {
	var errs []string
	for _, id := range SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		tasks := append([]string(nil), f.Tasks...)
		for _, t := range SortedKeys(m.Tasks) {
			if sel := m.Tasks[t].AppliesTo; sel != nil && !slices.Contains(tasks, t) && sel.Selects(id, f, kinds[id]) {
				tasks = append(tasks, t)
			}
		}
		if len(tasks) == 0 {
			errs = append(errs, fmt.Sprintf("%sfixtures.%s: no task applies to the fixture (name tasks, or select it with a task's appliesTo)", prefixPos(f.Pos), id))
		}
		f.Tasks = tasks
		m.Fixtures[id] = f
	}
	if len(errs) > 0 {
		return &Error{Msg: strings.Join(errs, "\n")}
	}
	return nil
}

// Compartments lists the compartments the model's tasks read, sorted.
func (m *Model) Compartments() []string {
	var out []string
	for _, t := range m.Tasks {
		out = append(out, t.Compartment)
	}
	return sortedSet(out)
}

// ProfileTasks returns the tasks a profile evaluates for a fixture, in the fixture's order.
func (m *Model) ProfileTasks(p Profile, f Fixture) []string {
	if len(p.Tasks) == 0 {
		return f.Tasks
	}
	var out []string
	for _, t := range f.Tasks {
		for _, pt := range p.Tasks {
			if t == pt {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// OptionalAtoms returns the sorted names of the atoms the optional-null policy may relax.
func (m *Model) OptionalAtoms() []string {
	var out []string
	for name, a := range m.Atoms {
		if a.Optional {
			out = append(out, name)
		}
	}
	sortStrings(out)
	return out
}
