module github.com/contractcheck/contractcheck/examples/probe/go/probeenv

go 1.26
