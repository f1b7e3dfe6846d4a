module github.com/contractcheck/contractcheck/examples/internal

go 1.26
