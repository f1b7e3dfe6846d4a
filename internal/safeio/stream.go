package safeio

import "io"

// MaxStreamBytes is the most the checker reads from a stream that is not a regular file (standard
// input): the bound of a file read whole (MaxFileBytes), since a stream cannot be stat'ed first and
// is held in memory. A larger input is a file to name instead.
const MaxStreamBytes = MaxFileBytes

// ReadStream reads a stream whole, at most limit bytes (limit ≤ 0: MaxStreamBytes): one byte more
// is a *TooLargeError, returned as soon as that byte arrives, so an endless stream (/dev/zero piped
// in) is cut off at the bound instead of filling memory. Errors are *fs.PathError values naming
// name.
func ReadStream(r io.Reader, name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxStreamBytes
	}
	return readAll(r, name, limit)
}
