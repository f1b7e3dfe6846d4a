// This file only marks the module root. Builds choose the ADK version with
// -modfile=go.v1.0.0.mod, go.v1.6.1.mod or go.v1.7.0.mod (each with its own .sum): see capture.sh.
module github.com/contractcheck/contractcheck/examples/capture/adk-go

go 1.26
