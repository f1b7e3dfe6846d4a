package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/contractcheck/contractcheck/internal/guard"
)

// The sandbox's clock: policies cannot read the time (time.now_ns is left out of the
// capabilities), but OPA's time builtins take a time zone, and "Local" means the zone of the
// process (the TZ variable), which would make a verdict depend on the machine. The package fixes
// the process's local zone to UTC when it is initialized, before any goroutine of the checker
// runs: every time.* builtin then reads "Local" as "UTC". Nothing the checker writes depends on
// the local zone.
func init() {
	time.Local = time.UTC
}

// evalLimited evaluates a prepared query under the guard (internal/guard): the per-evaluation
// time limit and the process's memory budget, and under the sandbox's limits on builtin calls
// (bounds.go). A limit reached is returned as a *guard.LimitError, naming the policy package and
// its files (what); any other error is wrapped with the package. opts are more evaluation
// options (a print hook).
func evalLimited(ctx context.Context, what, pkg string, pq rego.PreparedEvalQuery, input ast.Value, opts ...rego.EvalOption) (rego.ResultSet, error) {
	var rs rego.ResultSet
	err := guard.Do(ctx, what, guard.LimitsOf(ctx).Eval, func(ctx context.Context) error {
		var err error
		rs, err = pq.Eval(ctx, append([]rego.EvalOption{rego.EvalParsedInput(input), rego.EvalSortSets(true)}, opts...)...)
		return err
	})
	if le := limitOf(what, err); le != nil {
		return nil, le
	}
	if err != nil {
		return nil, fmt.Errorf("policy: evaluating %s: %w", pkg, err)
	}
	return rs, nil
}

// describe names a package and the files that define it, as limit errors show it:
// "policy contractcheck.tasks.t2 (policies/tasks/t2.rego)".
func (e *Engine) describe(pkg string) string {
	return describeFiles(pkg, e.Files(pkg))
}

// describeFiles is describe for a package whose files are already listed.
func describeFiles(pkg string, files []string) string {
	return fmt.Sprintf("policy %s (%s)", pkg, strings.Join(files, ", "))
}

// limitOf returns the limit err reached, as a *guard.LimitError for what: the guard's own, or a
// builtin call the sandbox refused (*BuiltinLimitError); nil when err reached no limit.
func limitOf(what string, err error) *guard.LimitError {
	var le *guard.LimitError
	if errors.As(err, &le) {
		return le
	}
	var be *BuiltinLimitError
	if errors.As(err, &be) {
		return be.LimitError(what)
	}
	return nil
}
