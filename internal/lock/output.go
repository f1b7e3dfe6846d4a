package lock

import (
	"io"

	"github.com/contractcheck/contractcheck/internal/report"
)

// JSON writes a lock as the lock file holds it (Encode; --format json of contractcheck lock).
type JSON struct{}

// Output implements report.Formatter.
func (JSON) Output(w io.Writer, l *Lock) error { return Encode(w, l) }

// outputters are the lock's formats: the lock file is JSON, and only JSON.
var outputters = report.Registry[*Lock]{"json": report.Fixed[*Lock](JSON{})}

// Outputters returns the lock's formats: what lock's --format offers.
func Outputters() report.Registry[*Lock] { return outputters }
