// Command startup prints what scripts/bench measured with hyperfine at start-up: each command's
// mean and spread, and the built-in check's time as a multiple of `version`'s (the bound
// is 10×). With -means it prints only each command's mean in seconds, one a line in the export's
// order, for the script's goals table.
//
//	go run ./internal/bench/startup [-means] HYPERFINE.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	means := flag.Bool("means", false, "print each command's mean in seconds, one a line")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: startup [-means] HYPERFINE.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(2)
	}
	var h struct {
		Results []struct {
			Command string  `json:"command"`
			Mean    float64 `json:"mean"`
			Stddev  float64 `json:"stddev"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &h); err != nil || len(h.Results) == 0 {
		fmt.Fprintln(os.Stderr, "startup: not a hyperfine export:", err)
		os.Exit(2)
	}
	if *means {
		for _, r := range h.Results {
			fmt.Printf("%.6f\n", r.Mean)
		}
		return
	}
	base := h.Results[0].Mean
	for _, r := range h.Results {
		fmt.Printf("  %-60s %7.1f ms ± %5.1f  (%5.1f× the first)\n", r.Command, r.Mean*1000, r.Stddev*1000, r.Mean/base)
	}
}
