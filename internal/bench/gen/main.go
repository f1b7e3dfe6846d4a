// Command gen writes a generated binding set for measuring contractcheck (package bench):
//
//	go run ./internal/bench/gen -n 1000000 -out /tmp/bench-1m [-repetitions 3] [-unique=false]
//
// and prints its contracts layer, observations directory and binding count as JSON.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/contractcheck/contractcheck/internal/bench"
)

func main() {
	n := flag.Int("n", 100_000, "at least this many bindings")
	out := flag.String("out", "", "directory to write the set to (required)")
	reps := flag.Int("repetitions", 1, "records per position")
	unique := flag.Bool("unique", true, "no two bindings share a policy input")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	set, err := bench.Generate(*out, bench.Options{Bindings: *n, Repetitions: *reps, Unique: *unique})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(set); err != nil {
		os.Exit(1)
	}
}
