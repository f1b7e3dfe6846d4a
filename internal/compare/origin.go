package compare

import "github.com/contractcheck/contractcheck/internal/result"

// reconstructedLanes lists, sorted, the lanes whose readings come from reconstructed carriers, so
// that the tables and totals that include them say so.
func reconstructedLanes(r *Report) []string {
	lanes := result.ReconstructedLanes{}
	for i := range r.Readouts {
		lanes.Add(r.Readouts[i].Lane, r.Readouts[i].Origin)
	}
	return lanes.Lanes()
}
