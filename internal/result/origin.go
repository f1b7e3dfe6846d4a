package result

import (
	"maps"
	"slices"
)

// ReconstructedLanes collects the lanes with a carrier reconstructed from the framework's source
// rather than captured by running it (origin "reconstructed"): a lane is reconstructed, for every
// table and count that says so, when any of its carriers is. Lanes lists them.
type ReconstructedLanes map[string]bool

// Add notes a carrier of lane with origin.
func (s ReconstructedLanes) Add(lane, origin string) {
	if origin == "reconstructed" {
		s[lane] = true
	}
}

// Lanes lists the reconstructed lanes, sorted.
func (s ReconstructedLanes) Lanes() []string { return slices.Sorted(maps.Keys(s)) }
