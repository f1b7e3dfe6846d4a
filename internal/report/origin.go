package report

import "sort"

// ReconstructedLanes lists, sorted, the lanes with results whose carriers were reconstructed from
// the framework's source rather than captured by running it. Every table and count that includes
// them says so.
func ReconstructedLanes(r *Report) []string {
	seen := map[string]bool{}
	for _, res := range r.Each() {
		if res.Origin == "reconstructed" {
			seen[res.Lane] = true
		}
	}
	lanes := make([]string, 0, len(seen))
	for l := range seen {
		lanes = append(lanes, l)
	}
	sort.Strings(lanes)
	return lanes
}
