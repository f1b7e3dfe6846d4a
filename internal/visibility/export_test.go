package visibility

// SetEntriesInMemory makes every collector write its entries out as a run once its groups hold n
// (entriesInMemory), until restore is called: a test's few readings then go through the runs and
// their merge.
func SetEntriesInMemory(n int) (restore func()) {
	old := entriesInMemory
	entriesInMemory = n
	return func() { entriesInMemory = old }
}
