package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestProbeJudgeLine: the printed `judge it:` command carries every layer probe was given, so
// that, run as printed, it judges what probe judged: a lane declared in the user's own
// --contracts layer is known to it (it used to exit 2, unknown lane), and a probe of a broken
// agent fails the gate.
func TestProbeJudgeLine(t *testing.T) {
	t.Parallel()
	// A layer of contracts and policies of the user's own (init's), and a lane of theirs in it.
	dir, layer := initWork(t)
	testkit.WriteFile(t, filepath.Join(layer, "lane.cue"), ownLane(`"own-agent"`, `_providerH4["openai-chat"]`))
	policies := layer
	schemas := filepath.Join(dir, "schemas")
	testkit.WriteFile(t, filepath.Join(schemas, "carriers", "own.schema.json"), `{"type": "object"}`)
	out := filepath.Join(dir, "out")
	code, _, stderr := cli(t, "probe", "--lane", "own-agent", "--version", "1.0.0", "--contracts", layer, "--policies", policies,
		"--schemas", schemas, "--revision", "2025-11-25", "--fixture", "C09", "--repetitions", "1", "--output", out, "--", "sh", "-c", "exit 3")
	if code != 1 {
		t.Fatalf("probe exit %d, want 1\n%s", code, stderr)
	}
	_, line, ok := strings.Cut(stderr, "judge it: ")
	if !ok {
		t.Fatalf("no judge it line:\n%s", stderr)
	}
	line, _, _ = strings.Cut(line, "\n")
	want := "contractcheck check --observations " + out + " --contracts " + layer + " --contracts " + out + " --policies " + policies +
		" --schemas " + schemas + " --revision 2025-11-25 --profile probe"
	if line != want {
		t.Errorf("judge it: %s\nwant       %s", line, want)
	}
	words, err := escape.ShellWords(line)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, words[1:]...)
	if code != 1 {
		t.Errorf("the judge command exit %d, want 1 (the broken agent fails the gate)\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "own-agent", "1.0.0", "default.jsonl")); err != nil {
		t.Error(err)
	}
}
