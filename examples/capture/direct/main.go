// Command direct captures the control lane: every source result read back unchanged by
// contractcheck's own strict reader, recorded at D1, A2, M3 and H4. It writes one repetition per
// run, so each repetition is a fresh process like every other lane's.
//
// Usage:
//
//	go run ./examples/capture/direct -repetition 1 >> fixtures/observations/direct/v1/default.jsonl
//
// contractcheck capture direct writes the same records, byte for byte, for the sources of any
// fixtures layer (internal/capture's TestDirectBuiltin holds it to this program's checked-in output).
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/contractcheck/contractcheck/internal/laneout"
	"github.com/contractcheck/contractcheck/internal/strictjson"

	"github.com/contractcheck/contractcheck/internal/result"
)

func main() {
	fixtures := flag.String("fixtures", "fixtures/sources", "directory of <suite>/<id>.json sources")
	repetition := flag.Int("repetition", 1, "repetition number written into each record")
	flag.Parse()
	if err := run(*fixtures, *repetition); err != nil {
		fmt.Fprintln(os.Stderr, "direct:", err)
		os.Exit(1)
	}
}

func run(dir string, repetition int) error {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		return err
	}
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		// Read it the way the checker does, so a source the checker would reject is not recorded.
		if _, err := strictjson.Decode(f, data, strictjson.DefaultLimits); err != nil {
			return err
		}
		var carrier bytes.Buffer
		if err := json.Compact(&carrier, data); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		sum := sha256.Sum256(data)
		id := filepath.Base(f[:len(f)-len(".json")])
		for _, stage := range []string{"D1", "A2", "M3", "H4"} {
			line, err := laneout.Encode(laneout.Record{
				Position:   result.Position{Fixture: id, Lane: "direct", LaneVersion: "v1", Configuration: "default", Stage: stage},
				Repetition: repetition, State: "captured", Carrier: carrier.Bytes(),
				SourceSha256: hex.EncodeToString(sum[:]), Origin: "captured",
			})
			if err != nil {
				return err
			}
			if _, err := os.Stdout.Write(line); err != nil {
				return err
			}
		}
	}
	return nil
}
