// staticcheck, pinned for .ci/run (staticcheck ./... after go vet, in the main module and in each
// example module). A module of its own, as .ci/regal is: its requirements (golang.org/x/tools and
// the rest) stay out of the checker's go.mod and go.sum, and the tool directive pins the version
// that go build in this directory builds.
module github.com/contractcheck/contractcheck/ci/staticcheck

go 1.26.0

tool honnef.co/go/tools/cmd/staticcheck

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)
