module github.com/contractcheck/contractcheck/examples/capture/internal

go 1.26
