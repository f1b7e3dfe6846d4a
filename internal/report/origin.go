package report

import (
	"github.com/contractcheck/contractcheck/internal/result"
)

// ReconstructedLanes lists, sorted, the lanes with results whose carriers were reconstructed from
// the framework's source rather than captured by running it. Every table and count that includes
// them says so.
func ReconstructedLanes(r *result.Report) []string {
	lanes := result.ReconstructedLanes{}
	for _, res := range r.Heads() {
		lanes.Add(res.Lane, res.Origin)
	}
	return lanes.Lanes()
}

// reconstructedRows is ReconstructedLanes read from the findings rows, which already say which
// lanes' carriers were reconstructed: a row is "reconstructed" when any of its results is.
func reconstructedRows(rows []FindingRow) []string {
	lanes := result.ReconstructedLanes{}
	for _, row := range rows {
		lanes.Add(row.Lane, row.Origin)
	}
	return lanes.Lanes()
}
