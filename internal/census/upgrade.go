package census

import (
	"bytes"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// upgrades compares consecutive versions of every lane observed at more than one version, per
// configuration: each binding present at both versions whose outcome or diagnostics differ is a
// change (an unmet binding that fails differently after an upgrade matters to whoever gates it).
// The versions are taken in the order the lane declares them, which is the upgrade path.
func (c *Census) upgrades(results []report.Result) []report.Upgrade {
	type at struct{ lane, version, configuration string }
	type binding struct{ fixture, stage, task string }
	byVersion := map[at]map[binding]*report.Result{}
	inOrder := map[at][]*report.Result{} // each version's results in report order
	for i := range results {
		r := &results[i]
		k := at{r.Lane, r.LaneVersion, r.Configuration}
		if byVersion[k] == nil {
			byVersion[k] = map[binding]*report.Result{}
		}
		byVersion[k][binding{r.Fixture, r.Stage, r.Task}] = r
		inOrder[k] = append(inOrder[k], r)
	}
	out := []report.Upgrade{}
	for _, laneID := range contract.SortedKeys(c.model.Lanes) {
		lane := c.model.Lanes[laneID]
		for _, cfg := range contract.SortedKeys(lane.Configurations) {
			var observed []string
			for _, v := range lane.Versions {
				if byVersion[at{laneID, v, cfg}] != nil {
					observed = append(observed, v)
				}
			}
			for i := 1; i < len(observed); i++ {
				before := byVersion[at{laneID, observed[i-1], cfg}]
				u := report.Upgrade{Lane: laneID, Configuration: cfg, From: observed[i-1], To: observed[i], Changes: []report.Change{}}
				// Walking the later version's results in report order keeps the changes in
				// that order too.
				for _, r := range inOrder[at{laneID, observed[i], cfg}] {
					b, ok := before[binding{r.Fixture, r.Stage, r.Task}]
					if !ok || (b.Outcome == r.Outcome && sameDiagnostics(b.Diagnostics, r.Diagnostics)) {
						continue
					}
					u.Changes = append(u.Changes, report.Change{
						Fixture: r.Fixture, Stage: r.Stage, Task: r.Task, Before: b.Outcome, After: r.Outcome,
						DiagnosticsBefore: b.Diagnostics, DiagnosticsAfter: r.Diagnostics,
					})
				}
				out = append(out, u)
			}
		}
	}
	return out
}

func sameDiagnostics(a, b []report.Diagnostic) bool {
	x, errA := strictjson.Marshal(diagnosticsValue(a))
	y, errB := strictjson.Marshal(diagnosticsValue(b))
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
