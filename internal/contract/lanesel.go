package contract

import (
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// LaneConfigSep separates a lane from one of its configurations in a lane selector entry:
// "openai-agents@application-context" selects that lane at that configuration only.
const LaneConfigSep = "@"

// SplitLaneEntry splits a lane selector entry, LANE or LANE@CONFIGURATION (each a name or a
// glob), into its lane and configuration parts; configured says whether it names a configuration.
// An entry with an empty part or more than one separator is an error.
func SplitLaneEntry(entry string) (lane, configuration string, configured bool, err error) {
	lane, configuration, configured = strings.Cut(entry, LaneConfigSep)
	switch {
	case !configured && lane == "":
		return "", "", false, fmt.Errorf("an empty lane")
	case !configured:
		return lane, "", false, nil
	case lane == "" || configuration == "":
		return "", "", false, fmt.Errorf("LANE%sCONFIGURATION needs both parts", LaneConfigSep)
	case strings.Contains(configuration, LaneConfigSep):
		return "", "", false, fmt.Errorf("one %s only, between the lane and its configuration", LaneConfigSep)
	}
	return lane, configuration, true, nil
}

// LaneSelected reports whether a scope selects a lane at a configuration. An entry of
// scope.Lanes naming a configuration (LANE@CONFIGURATION) chooses the configurations of the lanes
// it matches: a lane one such entry matches is selected at the configurations of those entries
// only, whatever scope.Configurations says. A lane only entries without a configuration match is
// selected at scope.Configurations (every configuration when empty). No entry restricts no lane.
// Entries are names or globs; malformed ones (CheckLaneEntries refuses them) select nothing.
func LaneSelected(s result.Scope, lane, configuration string) bool {
	if len(s.Lanes) == 0 {
		return len(s.Configurations) == 0 || Matches(s.Configurations, configuration)
	}
	var configured []string
	plain := false
	for _, e := range s.Lanes {
		l, c, named, err := SplitLaneEntry(e)
		if err != nil || !Matches([]string{l}, lane) {
			continue
		}
		if named {
			configured = append(configured, c)
		} else {
			plain = true
		}
	}
	switch {
	case len(configured) > 0:
		return Matches(configured, configuration)
	case plain:
		return len(s.Configurations) == 0 || Matches(s.Configurations, configuration)
	}
	return false
}

// LaneNamed reports whether some entry of a scope's lanes matches a lane (at any configuration);
// no entry names every lane.
func LaneNamed(s result.Scope, lane string) bool {
	if len(s.Lanes) == 0 {
		return true
	}
	for _, e := range s.Lanes {
		if l, _, _, err := SplitLaneEntry(e); err == nil && Matches([]string{l}, lane) {
			return true
		}
	}
	return false
}

// ConfigurationNamed reports whether a configuration, its lane unknown, may be selected by a
// scope: by scope.Configurations (every one when empty) or by a LANE@CONFIGURATION entry.
func ConfigurationNamed(s result.Scope, configuration string) bool {
	if len(s.Configurations) == 0 || Matches(s.Configurations, configuration) {
		return true
	}
	for _, e := range s.Lanes {
		if _, c, named, err := SplitLaneEntry(e); err == nil && named && Matches([]string{c}, configuration) {
			return true
		}
	}
	return false
}

// CheckLaneEntries calls report for every lane selector entry that is malformed or selects
// nothing the model defines: a lane part matching no lane, or a configuration part matching no
// configuration of the lanes the lane part matches (the message names the lane and its
// configurations). Each message starts with the entry, quoted.
func (m *Model) CheckLaneEntries(entries []string, report func(i int, msg string)) {
	lanes := SortedKeys(m.Lanes)
	for i, e := range entries {
		lane, conf, named, err := SplitLaneEntry(e)
		switch {
		case err != nil:
			report(i, fmt.Sprintf("%q: %v", e, err))
		case !AnyMatch(lane, lanes):
			report(i, fmt.Sprintf("%q matches no lane the contracts define (known: %s)", e, strings.Join(lanes, ", ")))
		case named:
			known := m.configurations([]string{lane})
			if AnyMatch(conf, known) {
				continue
			}
			if IsGlob(lane) {
				report(i, fmt.Sprintf("%q: no lane matching %s has a configuration %q (their configurations: %s)", e, lane, conf, strings.Join(known, ", ")))
				continue
			}
			report(i, fmt.Sprintf("%q: lane %s has no configuration %q (its configurations: %s)", e, lane, conf, strings.Join(known, ", ")))
		}
	}
}
