package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/contractcheck/contractcheck/internal/laneout"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testtier"
)

// The agreement of `contractcheck probe` with the dedicated capture programs (issue 24, item 6),
// for every built-in lane with an H4 stage in every runtime (Go, Python, Node), and the two
// plain-SDK agents no built-in lane covers.
//
// TestProbeFrameworks runs each lane configuration of frameworkLanes, its adapter under
// examples/probe, on the fixtures of the lane's committed records, twice at once:
//
//   - under the lane's own name as the capture program runs it (MCP over stdio, plain model
//     answers, PROBE_OBSERVE=1 so the adapter reports D1, A2 and M3 through the observe hook).
//     Every record must equal the committed capture's repetition 1: the same state, and where
//     captured the same carrier (compareStage, probe_compare_test.go: parsed JSON, the pointers
//     in examples/capture/<lane>/volatile.txt by presence only, the fake providers' call and item
//     ids matched). `check` must give every binding the outcome it gives the committed records.
//   - under a generic provider lane (<lane>-generic, no --provider: probe names the API the
//     command spoke, and probe.json must name the lane's), over Streamable HTTP with streamed
//     answers and no observe hook. Its H4 item must be the lane's own (neither the transport nor
//     streaming changes what the framework sends); the outcomes the generic provider binding
//     gives are listed beside the lane's own binding's (t.Log: a different reading is a finding
//     the closing note of issue 24 explains, not a failure).
//
// The lane-specific carrier shapes are options of the table (carrierShape): adk-go and genkit-go
// record the whole Gemini request body at H4 (--h4-body), langchain-mcp-adapters-js an envelope
// {api, item, output} that `check` is given by wrapping the probed items the same way.
// knownDifferences lists what differs for a reason outside the adapter; logged, not failed.
//
// TestProbePlainAgents runs each plain-SDK agent of plainAgents over the whole catalogue, plain
// over Streamable HTTP and streamed over stdio: every fixture must reach the model in both runs
// with the same H4 item, and `check --profile probe` must be satisfied.
//
// Between them the two tests have real framework or SDK code speak all four provider APIs, plain
// and streamed; the API of each run is what its records say (probe.json's provider for a generic
// lane, the shape of the H4 items for a lane's own), streamed is how the run was started. When
// both tests have run their whole tables, the last to finish fails if one of the 8 combinations
// is missing (checkAPICoverage).
//
// Integration tier: both skip unless CONTRACTCHECK_INTEGRATION=1. With it, a missing
// prerequisite fails the lanes that need it, saying what to run: node (20.10+) and
// `npm ci` in examples/probe/js for the Node lanes; root and the root scripts/python-env builds
// for the Python lanes (python-env run gives the chroot its own loopback-only network namespace,
// so the probe, a static contractcheck copied into the root's /tmp, runs inside with the agent);
// the Go module proxy for the Go adapters, each built once. The two tests, their lanes and the
// two runs of a lane run in parallel, as many probes at once as there are cores (probeSlots; the
// agents' start-up is CPU-bound, and more at once only slows each): each probe has its own output
// directory, and each python-env run its own mount and network namespace (the root's files are
// only read, and bytecode written atomically). About 11 minutes on two cores, one repetition.
//
//	CONTRACTCHECK_INTEGRATION=1 go test ./cmd/contractcheck -run 'TestProbeFrameworks|TestProbePlainAgents' -timeout 60m -v
//	CONTRACTCHECK_INTEGRATION=1 go test ./cmd/contractcheck -run 'TestProbeFrameworks/adk-js/default' -v

// probeRuntime is how a lane's command runs; frameworkLane.command is, for each, a path from
// the repository root.
type probeRuntime string

const (
	goRuntime     probeRuntime = "go"     // a module directory, built once
	nodeRuntime   probeRuntime = "node"   // a script run with node
	pythonRuntime probeRuntime = "python" // a script run with python3 in scripts/python-env's root
)

// frameworkLane is one lane configuration probed through its command.
type frameworkLane struct {
	lane, version, configuration string
	runtime                      probeRuntime
	command                      string
	// env: more switches for the command.
	env []string
	// provider is the API the command speaks in this configuration.
	provider string
	// carrierShape: how the committed H4 carrier holds the item (body: probe --h4-body).
	carrierShape
	// noGeneric says why a configuration is not also probed under a generic lane.
	noGeneric string
}

const (
	openaiAgentsPy = "examples/probe/python/openai_agents_probe.py"
	openaiAgentsJS = "examples/probe/js/openai-agents-js.mjs"
	langchainJS    = "examples/probe/js/langchain-mcp-adapters-js.mjs"
	oajs054        = "PROBE_PACKAGE=openai-agents-0.5.4"
)

// frameworkLanes are the built-in lanes with an H4 stage, each committed configuration; the
// slowest first, so that the last lanes to run are short.
var frameworkLanes = []frameworkLane{
	{lane: "openai-agents", version: "0.22.0", configuration: "default", runtime: pythonRuntime, command: openaiAgentsPy, provider: "openai-responses"},
	{lane: "agent-framework", version: "1.13.0", configuration: "default", runtime: pythonRuntime, command: "examples/probe/python/agent_framework_probe.py", provider: "openai-responses"},
	{lane: "openai-agents", version: "0.22.0", configuration: "application-context", runtime: pythonRuntime, command: openaiAgentsPy, provider: "openai-responses",
		noGeneric: "the custom_data_extractor's value reaches the application only: its H4 items are the default configuration's, whose generic run reads them"},
	{lane: "adk-js", version: "2.0.0", configuration: "default", runtime: nodeRuntime, command: "examples/probe/js/adk-js.mjs", provider: "gemini"},
	{lane: "langchain-mcp-adapters-js", version: "1.1.4", configuration: "default", runtime: nodeRuntime, command: langchainJS, provider: "openai-chat", carrierShape: carrierShape{envelope: "chat.completions"}},
	{lane: "langchain-mcp-adapters-js", version: "1.1.4", configuration: "use-responses-api", runtime: nodeRuntime, command: langchainJS, provider: "openai-responses", carrierShape: carrierShape{envelope: "responses"}},
	{lane: "langchain-mcp-adapters-js", version: "1.1.4", configuration: "use-standard-content-blocks", runtime: nodeRuntime, command: langchainJS, provider: "openai-chat", carrierShape: carrierShape{envelope: "chat.completions"}},
	{lane: "openai-agents-js", version: "0.14.3", configuration: "default", runtime: nodeRuntime, command: openaiAgentsJS, provider: "openai-responses"},
	{lane: "openai-agents-js", version: "0.5.4", configuration: "default", runtime: nodeRuntime, command: openaiAgentsJS, env: []string{oajs054}, provider: "openai-responses"},
	{lane: "genkit-go", version: "v1.4.0", configuration: "default", runtime: goRuntime, command: "examples/probe/go/genkit-go", provider: "gemini", carrierShape: carrierShape{body: true}},
	{lane: "adk-go", version: "v1.7.0", configuration: "default", runtime: goRuntime, command: "examples/probe/go/adk-go", provider: "gemini", carrierShape: carrierShape{body: true}},
	{lane: "openai-agents", version: "0.22.0", configuration: "use-structured-content", runtime: pythonRuntime, command: openaiAgentsPy, provider: "openai-responses"},
	{lane: "openai-agents-js", version: "0.14.3", configuration: "use-structured-content", runtime: nodeRuntime, command: openaiAgentsJS, provider: "openai-responses"},
	{lane: "openai-agents-js", version: "0.5.4", configuration: "use-structured-content", runtime: nodeRuntime, command: openaiAgentsJS, env: []string{oajs054}, provider: "openai-responses"},
}

// plainAgents are the plain-SDK agents: no built-in lane, so no committed records; a lane name
// of their own.
var plainAgents = []frameworkLane{
	{lane: "anthropic-agent-js", version: "1.16.0", configuration: "default", runtime: nodeRuntime, command: "examples/probe/js/anthropic-agent.mjs", provider: "anthropic"},
	{lane: "openai-chat-go", version: "v3.102.0", configuration: "default", runtime: goRuntime, command: "examples/probe/go/openai-chat-agent", provider: "openai-chat"},
}

// knownDifferences are records or outcomes that differ from the committed capture for a reason
// outside the adapter, keyed lane/version/configuration/fixture; they are logged, not failed.
var knownDifferences = map[string]string{
	"openai-agents/0.22.0/default/X01": "mcp 1.29 rejects X01's array structuredContent, so the committed D1 is execution_failed while the run goes on " +
		"to send the SDK's error text (A2, M3, H4 captured); the adapter reports no D1 then, " +
		"so under probe the missing D1 carrier fails D1 and leaves A2, M3 and H4 not_reached",
	"openai-agents/0.22.0/use-structured-content/X01": "as openai-agents/0.22.0/default/X01",
	"openai-agents/0.22.0/application-context/X01":    "as openai-agents/0.22.0/default/X01",
}

// name is the subtest's: lane/configuration, with the version where the table has the lane at
// more than one.
func (l frameworkLane) name(table []frameworkLane) string {
	for _, o := range table {
		if o.lane == l.lane && o.version != l.version {
			return l.lane + "@" + l.version + "/" + l.configuration
		}
	}
	return l.lane + "/" + l.configuration
}

func TestProbeFrameworks(t *testing.T) {
	tier := newProbeTier(t)
	var ran atomic.Int32
	t.Cleanup(func() { checkAPICoverage(t, "TestProbeFrameworks", int(ran.Load()) == len(frameworkLanes)) })
	for _, tc := range frameworkLanes {
		t.Run(tc.name(frameworkLanes), func(t *testing.T) {
			t.Parallel()
			ran.Add(1)
			testProbeLane(t, tier, tc)
		})
	}
}

func TestProbePlainAgents(t *testing.T) {
	tier := newProbeTier(t)
	var ran atomic.Int32
	t.Cleanup(func() { checkAPICoverage(t, "TestProbePlainAgents", int(ran.Load()) == len(plainAgents)) })
	catalogue := catalogueFixtures(t, tier.repo)
	for _, tc := range plainAgents {
		t.Run(tc.lane, func(t *testing.T) {
			t.Parallel()
			ran.Add(1)
			testPlainAgent(t, tier, tc, catalogue)
		})
	}
}

// probeRun is one probe of a command: how it was run and what it wrote.
type probeRun struct {
	what     string // for messages
	lane     string
	args     []string
	env      []string
	streamed bool
	dir      string
	err      error
}

// probeSlots bounds the probes running at once, across the tests of the tier, to the cores:
// the frameworks' probes run one agent process at a time (--jobs 1), and the agents' start-up
// is what takes the time.
var probeSlots = make(chan struct{}, runtime.NumCPU())

// probeBoth runs the probes at once (as far as probeSlots allows) and fails the test if one
// could not run.
func probeBoth(t *testing.T, run probeRunner, runs ...*probeRun) {
	t.Helper()
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() {
			probeSlots <- struct{}{}
			defer func() { <-probeSlots }()
			r.dir, r.err = run.probe(t, r.args, r.env)
		})
	}
	wg.Wait()
	for _, r := range runs {
		if r.err != nil {
			t.Fatalf("%s: %v", r.what, r.err)
		}
	}
}

func testProbeLane(t *testing.T, tier *probeTier, tc frameworkLane) {
	run := tier.runner(t, tc)
	committed := readProbeRecords(t, filepath.Join(tier.repo, "fixtures", "observations", tc.lane, tc.version, tc.configuration+".jsonl"))
	var fixtures []string
	for k := range committed {
		if f, _, _ := strings.Cut(k, "/"); !slices.Contains(fixtures, f) {
			fixtures = append(fixtures, f)
		}
	}
	slices.Sort(fixtures)
	volatile := readVolatile(t, filepath.Join(tier.repo, "examples", "capture", tc.lane, "volatile.txt"))
	knownLogged := map[string]bool{}
	known := func(f string) string {
		why := knownDifferences[tc.lane+"/"+tc.version+"/"+tc.configuration+"/"+f]
		if why != "" && !knownLogged[f] {
			knownLogged[f] = true
			t.Logf("%s: a known difference from the committed capture: %s", f, why)
		}
		return why
	}
	selection := []string{"--version", tc.version, "--configuration", tc.configuration}
	for _, f := range fixtures {
		selection = append(selection, "--fixture", f)
	}
	env := func(more ...string) []string {
		return slices.Concat([]string{"PROBE_CONFIGURATION=" + tc.configuration, "PROBE_PACKAGE="}, tc.env, more)
	}

	// The lane itself, as the capture program runs it; the generic lane beside it.
	// The committed captures were served by the capture programs' raw server, which serves a
	// fixture whatever revision the client negotiated: probe does so too when told
	// (--serve-out-of-revision), so X01 and X02 reach a 2025 client here as they did there. One
	// agent at a time (--jobs 1): the tier's probe slots spread the probes over the cores.
	probeArgs := []string{"--repetitions", "1", "--serve-out-of-revision", "--jobs", "1"}
	own := &probeRun{what: "the lane's own probe (stdio, plain)", lane: tc.lane,
		args: slices.Concat([]string{"probe", "--lane", tc.lane}, probeArgs, selection),
		env:  env("PROBE_OBSERVE=1", "PROBE_TRANSPORT=stdio", "PROBE_STREAM=")}
	if tc.body {
		own.args = append(own.args, "--h4-body")
	}
	generic := &probeRun{what: "the generic lane's probe (Streamable HTTP, streamed)", lane: tc.lane + "-generic", streamed: true,
		args: slices.Concat([]string{"probe", "--lane", tc.lane + "-generic"}, probeArgs, selection),
		env:  env("PROBE_OBSERVE=", "PROBE_TRANSPORT=http", "PROBE_STREAM=1")}
	if tc.noGeneric != "" {
		t.Logf("no generic provider lane run: %s", tc.noGeneric)
		probeBoth(t, run, own)
		generic = nil
	} else {
		probeBoth(t, run, own, generic)
	}
	probed := readProbeRecords(t, filepath.Join(own.dir, tc.lane, tc.version, tc.configuration+".jsonl"))
	coverRun(t, tc, own, probed)
	var gprobed map[string]*probeRecord
	if generic != nil {
		gprobed = readProbeRecords(t, filepath.Join(generic.dir, generic.lane, tc.version, tc.configuration+".jsonl"))
		coverRun(t, tc, generic, gprobed)
	}

	equal, differ, knownDiffer := 0, 0, 0
	for _, f := range fixtures {
		for _, st := range []string{"D1", "A2", "M3", "H4"} {
			want, got := committed[f+"/"+st], probed[f+"/"+st]
			diff := ""
			switch {
			case want == nil:
				diff = "no committed record"
			case got == nil:
				diff = "no probe record"
			case want.State != got.State:
				diff = fmt.Sprintf("state %s under probe (%s), committed %s (%s)", got.State, got.Error, want.State, want.Error)
			case want.State == "captured":
				diff = compareStage(tc.carrierShape, st, want.Carrier, got.Carrier, volatile)
			}
			switch {
			case diff == "":
				equal++
			case known(f) != "":
				knownDiffer++
				t.Logf("%s %s differs (known): %s", f, st, diff)
			default:
				differ++
				t.Errorf("%s %s: %s", f, st, diff)
			}
		}
		if gprobed != nil {
			compareGenericItem(t, tc, f, committed[f+"/H4"], probed[f+"/H4"], gprobed[f+"/H4"], volatile, known(f))
		}
	}

	// check gives the probed records the committed records' outcomes.
	checked := own.dir
	if tc.envelope != "" {
		checked = wrapEnvelope(t, own.dir, tc)
	}
	scope := append([]string{"--lane", tc.lane}, selection...)
	wantOut := probeOutcomes(t, tier.cc, append([]string{"check", "--no-cache"}, scope...))
	gotOut := probeOutcomes(t, tier.cc, append([]string{"check", "--no-cache", "--observations", checked, "--contracts", checked, "--profile", "probe"}, scope...))
	agree := 0
	for _, k := range slices.Sorted(maps.Keys(wantOut)) {
		f, _, _ := strings.Cut(k, "|")
		switch {
		case gotOut[k] == wantOut[k]:
			agree++
		case known(f) != "":
			t.Logf("check %s: %s under probe, %s committed (known)", k, orNone(gotOut[k]), wantOut[k])
		default:
			t.Errorf("check %s: %s under probe, %s committed", k, orNone(gotOut[k]), wantOut[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(gotOut)) {
		if _, ok := wantOut[k]; !ok {
			t.Errorf("check %s: %s under probe, no such binding committed", k, gotOut[k])
		}
	}
	readings := "no generic lane"
	if generic != nil {
		// The lane's own reading: of the probed records, or of the committed ones where the
		// lane's own run differs for a known reason (the generic lane's item is the committed
		// one then, compareGenericItem).
		lane := map[string]string{}
		for k, o := range gotOut {
			if f, _, _ := strings.Cut(k, "|"); known(f) != "" {
				o = wantOut[k]
			}
			lane[k] = o
		}
		readings = logGenericReadings(t, tier.cc, tc, generic, lane)
	}
	t.Logf("RESULT %s %s %s: %d fixtures; records: %d equal to the committed capture, %d differ, %d differ for a known reason; check: %d of %d bindings agree; %s",
		tc.lane, tc.version, tc.configuration, len(fixtures), equal, differ, knownDiffer, agree, len(wantOut), readings)
}

// compareGenericItem asserts that the generic lane (Streamable HTTP, streamed) was sent the H4
// item the lane's own run (stdio, plain) was, or, where the lane's own run could not record H4
// for a known reason, the committed item.
func compareGenericItem(t *testing.T, tc frameworkLane, f string, committed, own, generic *probeRecord, volatile []string, known string) {
	t.Helper()
	switch {
	case own == nil || generic == nil:
		t.Errorf("%s H4: no record (lane %v, generic lane %v)", f, own != nil, generic != nil)
	case known != "" && generic.State == "captured" && committed != nil && committed.State == "captured" && own.State != "captured":
		item, err := h4Item(tc.carrierShape, committed.Carrier, true)
		if err != nil {
			t.Errorf("%s H4: the committed carrier: %v", f, err)
		} else if d := sameCarrier(item, generic.Carrier, volatile); d != "" {
			t.Errorf("%s H4: the generic lane's item differs from the committed one: %s", f, d)
		} else {
			t.Logf("%s H4: the generic lane's item equals the committed one (the lane's own run could not record it: known)", f)
		}
	case pfFailed(own.State) && pfFailed(generic.State):
		// A run that failed: the first stage each lane observes is execution_failed, the later
		// ones not_reached.
	case own.State != generic.State:
		if known == "" {
			t.Errorf("%s H4: %s under the generic lane (%s), %s under the lane (%s)", f, generic.State, generic.Error, own.State, own.Error)
		}
	case own.State == "captured":
		item, err := h4Item(tc.carrierShape, own.Carrier, false)
		if err != nil {
			t.Errorf("%s H4: the lane's carrier: %v", f, err)
		} else if d := sameCarrier(item, generic.Carrier, nil); d != "" {
			d = strings.NewReplacer("committed", "under the lane", "under probe", "under the generic lane").Replace(d)
			t.Errorf("%s H4: the generic lane (Streamable HTTP, streamed) was sent another item than the lane (stdio, plain): %s", f, d)
		}
	}
}

// logGenericReadings lists, H4 only, where the generic provider binding reads the generic run's
// records otherwise than the lane's own binding reads the lane's: a finding, not a failure.
func logGenericReadings(t *testing.T, cc string, tc frameworkLane, generic *probeRun, own map[string]string) string {
	t.Helper()
	genOut := probeOutcomes(t, cc, []string{"check", "--no-cache", "--observations", generic.dir, "--contracts", generic.dir, "--profile", "probe", "--lane", generic.lane})
	type cell struct{ own, generic string }
	table := map[string]*cell{}
	for _, side := range []struct {
		out map[string]string
		set func(*cell, string)
	}{
		{own, func(c *cell, o string) { c.own = o }},
		{genOut, func(c *cell, o string) { c.generic = o }},
	} {
		for k, o := range side.out {
			if f, rest, _ := strings.Cut(k, "|"); strings.HasPrefix(rest, "H4|") {
				key := f + " " + strings.ReplaceAll(strings.TrimPrefix(rest, "H4|"), "|", " ")
				if table[key] == nil {
					table[key] = &cell{}
				}
				side.set(table[key], o)
			}
		}
	}
	var rows []string
	for _, k := range slices.Sorted(maps.Keys(table)) {
		if c := table[k]; c.own != c.generic && !(pfFailed(c.own) && pfFailed(c.generic)) {
			rows = append(rows, fmt.Sprintf("  %-28s %-26s %s", k, orNone(c.own), orNone(c.generic)))
		}
	}
	if len(rows) == 0 {
		t.Logf("H4: the generic %s binding reads all %d bindings as lane %s's own binding does", tc.provider, len(table), tc.lane)
	} else {
		t.Logf("H4: the generic %s binding reads %d of %d bindings differently from lane %s's own binding:\n  %-28s %-26s %s\n%s",
			tc.provider, len(rows), len(table), tc.lane, "fixture task compartment", tc.lane, "generic", strings.Join(rows, "\n"))
	}
	return fmt.Sprintf("generic %s binding: %d of %d H4 bindings read otherwise", tc.provider, len(rows), len(table))
}

func testPlainAgent(t *testing.T, tier *probeTier, tc frameworkLane, catalogue []string) {
	run := tier.runner(t, tc)
	// Every fixture is to reach the model, X01 and X02 (2026-07-28 results) also when the agent's
	// SDK negotiates 2025-11-25: served out of revision, as the capture programs serve them.
	args := []string{"probe", "--lane", tc.lane, "--version", tc.version, "--repetitions", "1", "--serve-out-of-revision", "--jobs", "1"}
	plain := &probeRun{what: "plain over Streamable HTTP", lane: tc.lane, args: args,
		env: []string{"PROBE_TRANSPORT=http", "PROBE_STREAM=", "PROBE_OBSERVE=", "PROBE_CONFIGURATION="}}
	streamed := &probeRun{what: "streamed over stdio", lane: tc.lane, args: args, streamed: true,
		env: []string{"PROBE_TRANSPORT=stdio", "PROBE_STREAM=1", "PROBE_OBSERVE=", "PROBE_CONFIGURATION="}}
	probeBoth(t, run, plain, streamed)
	records := map[*probeRun]map[string]*probeRecord{}
	for _, r := range []*probeRun{plain, streamed} {
		records[r] = readProbeRecords(t, filepath.Join(r.dir, tc.lane, tc.version, "default.jsonl"))
		coverRun(t, tc, r, records[r])
		cmd := exec.Command(tier.cc, "check", "--no-cache", "--observations", r.dir, "--contracts", r.dir, "--profile", "probe")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: check --profile probe: %v\n%s", r.what, err, out)
		}
	}
	same := 0
	for _, f := range catalogue {
		a, b := records[plain][f+"/H4"], records[streamed][f+"/H4"]
		switch {
		case a == nil || b == nil:
			t.Errorf("%s H4: no record (plain over HTTP %v, streamed over stdio %v)", f, a != nil, b != nil)
		case a.State != "captured" || b.State != "captured":
			t.Errorf("%s H4: %s (%s) plain over HTTP, %s (%s) streamed over stdio: the agent should reach the model with every fixture", f, a.State, a.Error, b.State, b.Error)
		default:
			if d := sameCarrier(a.Carrier, b.Carrier, nil); d != "" {
				d = strings.NewReplacer("committed", "plain over HTTP", "under probe", "streamed over stdio").Replace(d)
				t.Errorf("%s H4: the two runs sent different items: %s", f, d)
			} else {
				same++
			}
		}
	}
	if n := len(records[plain]) / 4; n != len(catalogue) {
		t.Errorf("%d fixtures probed, want the whole catalogue (%d)", n, len(catalogue))
	}
	t.Logf("RESULT %s %s: %d of %d fixtures captured with the same H4 item plain over HTTP and streamed over stdio", tc.lane, tc.version, same, len(catalogue))
}

// catalogueFixtures lists the built-in fixtures: fixtures/sources/<suite>/<id>.json.
func catalogueFixtures(t *testing.T, repo string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repo, "fixtures", "sources", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures under fixtures/sources: %v", err)
	}
	var ids []string
	for _, f := range files {
		ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	slices.Sort(ids)
	return ids
}

// apiRun is a provider API spoken plain or streamed.
type apiRun struct {
	api      string
	streamed bool
}

// apiCoverage collects, across TestProbeFrameworks and TestProbePlainAgents, which runs had
// real framework or SDK code speak which provider API, and which of the two tests ran their
// whole table.
var apiCoverage struct {
	sync.Mutex
	runs     map[apiRun][]string
	finished map[string]bool // test name: whether it ran its whole table
}

var providerAPIs = []string{"openai-responses", "openai-chat", "anthropic", "gemini"}

// coverRun reads the API a run spoke from its records, asserts it is the lane's, and counts it:
// a generic lane's probe.json names the API the command spoke (probe is given no --provider);
// under a lane's own name probe.json names none, and the H4 items' shape says.
func coverRun(t *testing.T, tc frameworkLane, r *probeRun, records map[string]*probeRecord) {
	t.Helper()
	captured := 0
	for _, k := range slices.Sorted(maps.Keys(records)) {
		if rec := records[k]; rec.Stage == "H4" && rec.State == "captured" {
			captured++
			if api := itemAPI(rec.Carrier); api != tc.provider {
				t.Errorf("%s: %s H4: an item of API %s, want %s: %.200s", r.what, rec.Fixture, orNone(api), tc.provider, rec.Carrier)
				return
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(r.dir, "probe.json"))
	if err != nil {
		t.Errorf("%s: %v", r.what, err)
		return
	}
	var man struct {
		Lanes map[string]struct {
			Provider string `json:"provider"`
			Declared bool   `json:"declared"`
		} `json:"lanes"`
	}
	if err := json.Unmarshal(data, &man); err != nil {
		t.Errorf("%s: probe.json: %v", r.what, err)
		return
	}
	ml, ok := man.Lanes[r.lane]
	switch {
	case !ok:
		t.Errorf("%s: probe.json has no lane %s", r.what, r.lane)
		return
	case ml.Provider != "" && ml.Provider != tc.provider:
		t.Errorf("%s: probe.json: the command spoke %s, want %s", r.what, ml.Provider, tc.provider)
		return
	case ml.Provider == "" && !ml.Declared:
		t.Errorf("%s: probe.json names no provider for lane %s", r.what, r.lane)
		return
	}
	if captured == 0 {
		return
	}
	apiCoverage.Lock()
	defer apiCoverage.Unlock()
	if apiCoverage.runs == nil {
		apiCoverage.runs = map[apiRun][]string{}
	}
	k := apiRun{tc.provider, r.streamed}
	apiCoverage.runs[k] = append(apiCoverage.runs[k], tc.lane+"@"+tc.version+"/"+tc.configuration)
}

// checkAPICoverage marks a test finished and, once both have run their whole tables, fails test
// t if real code did not speak one of the four provider APIs plain, or streamed.
func checkAPICoverage(t *testing.T, test string, whole bool) {
	apiCoverage.Lock()
	defer apiCoverage.Unlock()
	if apiCoverage.finished == nil {
		apiCoverage.finished = map[string]bool{}
	}
	apiCoverage.finished[test] = whole
	var lines []string
	missing := 0
	for _, api := range providerAPIs {
		for _, streamed := range []bool{false, true} {
			mode := "plain"
			if streamed {
				mode = "streamed"
			}
			by := apiCoverage.runs[apiRun{api, streamed}]
			if len(by) == 0 {
				missing++
			}
			lines = append(lines, fmt.Sprintf("  %-16s %-8s %2d: %s", api, mode, len(by), strings.Join(by, ", ")))
		}
	}
	if !apiCoverage.finished["TestProbeFrameworks"] || !apiCoverage.finished["TestProbePlainAgents"] {
		t.Logf("provider APIs spoken so far (the 8 combinations are asserted once TestProbeFrameworks and TestProbePlainAgents have both run their whole tables):\n%s", strings.Join(lines, "\n"))
		return
	}
	clear(apiCoverage.finished)
	if missing > 0 {
		t.Errorf("%d of the 8 (provider API, plain or streamed) combinations were spoken by no run:\n%s", missing, strings.Join(lines, "\n"))
		return
	}
	t.Logf("all four provider APIs spoken plain and streamed:\n%s", strings.Join(lines, "\n"))
}

// probeTier is what one test of the integration tier shares among its lanes: the repository,
// contractcheck, and what each runtime needs, prepared once.
type probeTier struct {
	repo, cc, tmp string
	prepared      testkit.OnceEach[string, string]
	mu            sync.Mutex // guards cleanups
	cleanups      []func()
}

// sharedContractcheck is the static contractcheck (the Python root runs it) the tests of the
// tier run, built once while any of them runs and removed when the last ends.
var sharedContractcheck struct {
	sync.Mutex
	users     int
	dir, path string
	err       error
}

func acquireContractcheck(t *testing.T, repo string) string {
	t.Helper()
	cc := &sharedContractcheck
	cc.Lock()
	defer cc.Unlock()
	if cc.users == 0 {
		cc.dir, cc.err = os.MkdirTemp("", "contractcheck-probe-")
		if cc.err == nil {
			cc.path = filepath.Join(cc.dir, "contractcheck")
			cc.err = goBuild(filepath.Join(repo, "cmd", "contractcheck"), cc.path, "CGO_ENABLED=0")
		}
	}
	cc.users++
	t.Cleanup(func() {
		cc.Lock()
		defer cc.Unlock()
		if cc.users--; cc.users == 0 && cc.dir != "" {
			os.RemoveAll(cc.dir)
		}
	})
	if cc.err != nil {
		t.Fatal(cc.err)
	}
	return cc.path
}

// newProbeTier skips the test unless CONTRACTCHECK_INTEGRATION=1, and marks it parallel.
func newProbeTier(t *testing.T) *probeTier {
	t.Helper()
	testtier.Require(t, "node 20.10+ with `npm ci` in examples/probe/js, root with scripts/python-env built, and the Go module proxy")
	t.Parallel()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	p := &probeTier{repo: repo, tmp: t.TempDir()}
	t.Cleanup(func() {
		for _, f := range p.cleanups {
			f()
		}
	})
	p.cc = acquireContractcheck(t, repo)
	return p
}

// prepare runs f once per key for the whole test, and returns its result to every caller.
func (p *probeTier) prepare(key string, f func() (string, error)) (string, error) {
	return p.prepared.Get(key, f)
}

// runner prepares the lane's runtime (once) and returns a runner of its command; a missing
// prerequisite fails the test with what to run.
func (p *probeTier) runner(t *testing.T, tc frameworkLane) probeRunner {
	t.Helper()
	var (
		run probeRunner
		err error
	)
	switch tc.runtime {
	case goRuntime:
		var bin string
		bin, err = p.prepare("go "+tc.command, func() (string, error) {
			bin := filepath.Join(p.tmp, filepath.Base(tc.command))
			return bin, goBuild(filepath.Join(p.repo, filepath.FromSlash(tc.command)), bin)
		})
		run = hostRunner{cc: p.cc, command: []string{bin}}
	case nodeRuntime:
		_, err = p.prepare("node", p.checkNode)
		run = hostRunner{cc: p.cc, command: []string{"node", filepath.Join(p.repo, filepath.FromSlash(tc.command))}}
	case pythonRuntime:
		var stage string
		stage, err = p.prepare("python", p.stagePython)
		run = pythonRunner{repo: p.repo, stage: stage, script: tc.command}
	default:
		err = fmt.Errorf("runtime %q", tc.runtime)
	}
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func (p *probeTier) checkNode() (string, error) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("node is not on PATH: the Node lanes need Node 20.10 or later, then `cd examples/probe/js && npm ci`")
	}
	if _, err := os.Stat(filepath.Join(p.repo, "examples", "probe", "js", "node_modules")); err != nil {
		return "", errors.New("examples/probe/js/node_modules is missing: run `cd examples/probe/js && npm ci` (the pinned npm packages the adapters import)")
	}
	return "", nil
}

// stagePython finds the Python root and copies the static contractcheck into a directory of
// its /tmp, removed when the test ends; it returns that directory as the host sees it.
func (p *probeTier) stagePython() (string, error) {
	if os.Geteuid() != 0 {
		return "", errors.New("the Python lanes run in scripts/python-env's root (chroot, namespaces): run the test as root")
	}
	out, err := exec.Command(filepath.Join(p.repo, "scripts", "python-env"), "root").Output()
	if err != nil {
		return "", fmt.Errorf("scripts/python-env root: %v", err)
	}
	root := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(root, ".contractcheck", "sources")); err != nil {
		return "", fmt.Errorf("the Python root is missing (%s): build it with `./scripts/python-env` as root (about two minutes; .ci/run does)", root)
	}
	stage, err := os.MkdirTemp(filepath.Join(root, "tmp"), "contractcheck-probe-")
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	p.cleanups = append(p.cleanups, func() { os.RemoveAll(stage) })
	p.mu.Unlock()
	data, err := os.ReadFile(p.cc)
	if err != nil {
		return "", err
	}
	return stage, os.WriteFile(filepath.Join(stage, "contractcheck"), data, 0o755)
}

func goBuild(dir, out string, env ...string) error {
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %v\n%s", dir, err, b)
	}
	return nil
}

// probeRunner runs `contractcheck probe ARGS --output DIR -- <the command>` with extra
// environment for the command and returns DIR as the host sees it. Exit 1 (a run failed, its
// records say why) is an outcome the comparison reads; any other failure is returned. It may be
// called from several goroutines of one test.
type probeRunner interface {
	probe(t *testing.T, args, env []string) (string, error)
}

// hostRunner runs the probe and the command on the host (Go and Node).
type hostRunner struct {
	cc      string
	command []string
}

func (r hostRunner) probe(t *testing.T, args, env []string) (string, error) {
	dir := t.TempDir()
	cmd := exec.Command(r.cc, slices.Concat(args, []string{"--output", dir, "--"}, r.command)...)
	cmd.Env = append(os.Environ(), env...)
	return dir, runProbeCommand(t, cmd)
}

// pythonRunner runs the probe inside the Python root (`python-env run`): the probe's loopback
// listeners and the agent share the root's network namespace, and CONTRACTCHECK_MCP_COMMAND
// names the static binary at its path inside. The environment goes through /usr/bin/env, since
// python-env run passes none of the host's.
type pythonRunner struct {
	repo, stage, script string
}

func (r pythonRunner) probe(t *testing.T, args, env []string) (string, error) {
	out, err := os.MkdirTemp(r.stage, "out-")
	if err != nil {
		return "", err
	}
	inside := "/tmp/" + filepath.Base(r.stage)
	argv := slices.Concat([]string{"run", "/usr/bin/env"}, env, []string{inside + "/contractcheck"}, args,
		[]string{"--output", inside + "/" + filepath.Base(out), "--", "python3", r.script})
	return out, runProbeCommand(t, exec.Command(filepath.Join(r.repo, "scripts", "python-env"), argv...))
}

// runProbeCommand runs a probe, accepting exit 0 and 1, and logs the runs that failed.
func runProbeCommand(t *testing.T, cmd *exec.Cmd) error {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "probe: ") && strings.Contains(l, ": execution_failed: ") {
			if len(l) > 400 {
				l = l[:400] + "…"
			}
			t.Log(l)
		}
	}
	return nil
}

// probeRecord is the part of an observation record the comparison reads.
type probeRecord struct {
	Fixture    string          `json:"fixture"`
	Stage      string          `json:"stage"`
	Repetition int             `json:"repetition"`
	State      string          `json:"state"`
	Carrier    json.RawMessage `json:"carrier"`
	Error      string          `json:"error"`
	Notes      string          `json:"notes"`
}

// readProbeRecords reads the records of repetition 1 of a record file, keyed fixture/stage.
func readProbeRecords(t *testing.T, path string) map[string]*probeRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*probeRecord{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r := &probeRecord{}
		if err := json.Unmarshal(sc.Bytes(), r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if r.Repetition == 1 {
			out[r.Fixture+"/"+r.Stage] = r
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no records of repetition 1", path)
	}
	return out
}

// readVolatile reads a lane's volatile.txt: one record pointer a line, # comments.
func readVolatile(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "/") {
			out = append(out, line)
		}
	}
	return out
}

// wrapEnvelope copies a probe output directory with each captured H4 carrier (the provider item)
// wrapped in the envelope the lane's capture program records, {api, item, output}, and returns
// the copy: the lane's H4 carrier schema requires it.
func wrapEnvelope(t *testing.T, dir string, tc frameworkLane) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "wrapped")
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(out, tc.lane, tc.version, tc.configuration+".jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r laneout.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if r.Stage == "H4" && r.State == "captured" {
			var item map[string]json.RawMessage
			if err := json.Unmarshal(r.Carrier, &item); err != nil {
				t.Fatalf("%s: %s H4: %v", file, r.Fixture, err)
			}
			api, _ := json.Marshal(tc.envelope)
			r.Carrier = json.RawMessage(`{"api":` + string(api) + `,"item":` + string(r.Carrier) + `,"output":` + string(item[envelopeOutput(tc.envelope)]) + `}`)
		}
		rec, err := laneout.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(rec)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// probeOutcomes runs check --format json and returns each result's outcome keyed
// fixture|stage|task|compartment. The exit code is not read (the probe profile is unmet where a
// run failed, the built-in one selects nothing in a narrow scope): the report is compared.
func probeOutcomes(t *testing.T, cc string, args []string) map[string]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(cc, append(args, "--format", "json", "--output", out)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%s: no report: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var rep struct {
		Results []struct {
			Fixture, Stage, Task, Compartment, Outcome string
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, r := range rep.Results {
		m[r.Fixture+"|"+r.Stage+"|"+r.Task+"|"+r.Compartment] = r.Outcome
	}
	if len(m) == 0 {
		t.Fatalf("%s: no results\n%s", strings.Join(args, " "), stderr.String())
	}
	return m
}

// pfFailed reports a record state or outcome of a run that failed at or before the stage.
func pfFailed(s string) bool { return s == "execution_failed" || s == "not_reached" }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
