module github.com/contractcheck/contractcheck/examples/reconstruct

go 1.26

require github.com/contractcheck/contractcheck/examples/internal v0.0.0

replace github.com/contractcheck/contractcheck/examples/internal => ../internal
