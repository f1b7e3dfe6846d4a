package report

import (
	"maps"
	"slices"

	"github.com/contractcheck/contractcheck/internal/result"
)

// ReconstructedLanes lists, sorted, the lanes with results whose carriers were reconstructed from
// the framework's source rather than captured by running it. Every table and count that includes
// them says so.
func ReconstructedLanes(r *result.Report) []string {
	seen := map[string]bool{}
	for _, res := range r.Heads() {
		if res.Origin == "reconstructed" {
			seen[res.Lane] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// reconstructedRows is ReconstructedLanes read from the findings rows, which already say which
// lanes' carriers were reconstructed: a row is "reconstructed" when any of its results is.
func reconstructedRows(rows []FindingRow) []string {
	seen := map[string]bool{}
	for _, row := range rows {
		if row.Origin == "reconstructed" {
			seen[row.Lane] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
