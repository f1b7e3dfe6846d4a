package result

// Reported is one publicly reported loss of the suite's catalog (a fixture with a report
// citation) and what each side of it gives in this run.
type Reported struct {
	Fixture       string   `json:"fixture"`
	URL           string   `json:"url"`
	Lane          string   `json:"lane"`
	Configuration string   `json:"configuration"`
	Atoms         []string `json:"atoms"`
	Buggy         Side     `json:"buggy"`
	Fixed         Side     `json:"fixed"`
	NotRun        string   `json:"notRun,omitempty"`
}

// Side is one version of a reported loss: its outcome over the report's stages and tasks ("pass",
// "unmet", another outcome, "not captured" when the version is not captured here, or "mixed")
// and the report's atoms its diagnostics name.
type Side struct {
	Version string   `json:"version,omitempty"`
	Outcome string   `json:"outcome"`
	Atoms   []string `json:"atoms,omitempty"`
	// Others are the other atoms the side's diagnostics name at those stages and tasks.
	Others []string `json:"others,omitempty"`
}
