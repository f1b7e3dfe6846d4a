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

// reconstructedRows is ReconstructedLanes read from the findings rows, which already say which
// lanes' carriers were reconstructed: a row is "reconstructed" when any of its results is.
func reconstructedRows(rows []FindingRow) []string {
	seen := map[string]bool{}
	for _, row := range rows {
		if row.Origin == "reconstructed" {
			seen[row.Lane] = true
		}
	}
	lanes := make([]string, 0, len(seen))
	for l := range seen {
		lanes = append(lanes, l)
	}
	sort.Strings(lanes)
	return lanes
}
