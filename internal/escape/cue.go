package escape

import "cuelang.org/go/cue/literal"

// cueForm is CUE's own string quoting (the CUE module's cue/literal), ASCII only.
var cueForm = literal.String.WithASCIIOnly()

// CUE returns s as a CUE string literal in double quotes, all ASCII, as CUE's own quoting writes
// it (cue/literal): '"' and '\' escaped (so "\(" cannot start an interpolation), printable ASCII
// as itself, everything else as \n, \t and the like, \uXXXX or \UXXXXXXXX; a character CUE
// refuses raw in a file, such as a byte order mark, cannot reach it. A CUE string holds valid
// UTF-8 only, so each byte of invalid UTF-8 becomes U+FFFD, as the other escapers and
// encoding/json replace it: the literal reads back as s does through them.
func CUE(s string) string { return cueForm.Quote(s) }
