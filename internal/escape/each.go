package escape

// Each is f of each string of xs, in a new slice: a row of cells or a list of names escaped for
// one sink, e.g. Each(Terminal, atoms). The formats of every verb escape their lists with it.
func Each(f func(string) string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
