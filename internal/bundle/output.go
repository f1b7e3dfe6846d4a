package bundle

import (
	"io"

	"github.com/contractcheck/contractcheck/internal/report"
)

// TarGz writes a bundle as the gzipped tarball OPA loads (WriteTarGz; --format tar.gz of
// contractcheck bundle).
type TarGz struct{}

// Output implements report.Formatter.
func (TarGz) Output(w io.Writer, b *Bundle) error { return b.WriteTarGz(w) }

// outputters are the bundle's formats: OPA loads a .tar.gz.
var outputters = report.Registry[*Bundle]{"tar.gz": report.Fixed[*Bundle](TarGz{})}

// Outputters returns the bundle's formats: what bundle's --format offers.
func Outputters() report.Registry[*Bundle] { return outputters }
