package compare

import "sort"

// reconstructedLanes lists, sorted, the lanes whose readings come from reconstructed carriers, so
// that the tables and totals that include them say so.
func reconstructedLanes(r *Report) []string {
	seen := map[string]bool{}
	for i := range r.Readouts {
		if r.Readouts[i].Origin == "reconstructed" {
			seen[r.Readouts[i].Lane] = true
		}
	}
	lanes := make([]string, 0, len(seen))
	for l := range seen {
		lanes = append(lanes, l)
	}
	sort.Strings(lanes)
	return lanes
}
