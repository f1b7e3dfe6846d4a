// Package contract is step 3 of the pipeline (strict JSON → schema → contract → projector → policy →
// census → report): it loads the CUE contract model — atoms, tasks, compartments, lanes, profiles
// and the fixture catalog — validates it, and decodes it into the Go types the projector, the
// policy engine and the census read. CUE errors keep their file:line:col.
package contract

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
	// Source is the canonical binding of a W0 result.
	Source Compartment `json:"source"`
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
}

// Family groups fixtures that exercise one distinction.
type Family struct {
	Doc    string `json:"doc"`
	Census string `json:"census"`
}

// Fixture is one catalogued source result.
type Fixture struct {
	Suite       string   `json:"suite"`
	Family      string   `json:"family"`
	Revision    string   `json:"revision"`
	Tasks       []string `json:"tasks"`
	Doc         string   `json:"doc"`
	Targets     []string `json:"targets"`
	PrivateMeta []string `json:"privateMeta,omitempty"`
}

// Lane is one framework: its versions, configurations and the stages it exposes.
type Lane struct {
	Doc            string                   `json:"doc"`
	Control        bool                     `json:"control"`
	Origin         string                   `json:"origin"`
	Versions       []string                 `json:"versions"`
	Configurations map[string]Configuration `json:"configurations"`
	Stages         map[string]StageDef      `json:"stages"`
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
	Exposure     string                 `json:"exposure"`
	Doc          string                 `json:"doc"`
	SharedWith   string                 `json:"sharedWith,omitempty"`
	Carrier      string                 `json:"carrier,omitempty"`
	Compartments map[string]Compartment `json:"compartments"`
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
}

// Withhold names the stages private result _meta must not reach.
type Withhold struct {
	Stages []string `json:"stages"`
}

// Requirement is one clause of a profile's gate.
type Requirement struct {
	Doc            string   `json:"doc"`
	Lanes          []string `json:"lanes"`
	Versions       []string `json:"versions"`
	Configurations []string `json:"configurations"`
	Tasks          []string `json:"tasks"`
	Outcomes       []string `json:"outcomes"`
}

// Selects reports whether the requirement applies to a binding of lane, version, configuration
// and task.
func (r Requirement) Selects(lane, version, configuration, task string) bool {
	return matches(r.Lanes, lane) && matches(r.Versions, version) && matches(r.Configurations, configuration) && matches(r.Tasks, task)
}

// Allows reports whether outcome satisfies the requirement.
func (r Requirement) Allows(outcome string) bool {
	for _, o := range r.Outcomes {
		if o == outcome {
			return true
		}
	}
	return false
}

func matches(selectors []string, v string) bool {
	for _, s := range selectors {
		if s == "*" || s == v {
			return true
		}
	}
	return false
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
