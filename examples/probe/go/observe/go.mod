module github.com/contractcheck/contractcheck/examples/probe/go/observe

go 1.26
