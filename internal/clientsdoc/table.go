package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/probe"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

// Client is what one client recipe's committed evidence shows: one row of the table.
type Client struct {
	// Dir is the recipe's directory name under ClientsDir.
	Dir string
	// Lane, Version and Configuration name the records (probe's --lane, --version,
	// --configuration); Provider is the provider API probe.json says the client spoke.
	Lane, Version, Configuration, Provider string
	// Transport is how the client reached probe's MCP server, read from its traffic:
	// "Streamable HTTP", "stdio" (through probe's relay) or "" when no MCP request was made.
	Transport string
	// TransportAt and ProviderAt are the traffic lines of the first MCP request and the first
	// provider request ("" when there is none).
	TransportAt, ProviderAt Link
	// M3 is the outcome of M3 (not_observable for a client that reports nothing to probe's
	// observe hook), at the record M3At.
	M3   string
	M3At Link
	// H4 is the visibility readout at H4 (docs/visibility.md).
	H4 result.Visibility
	// Fixtures are H4's fixtures with the traffic line that carried each result to the model.
	Fixtures []Fixture
}

// Fixture is one fixture of the H4 readout: its record and the traffic that shows it.
type Fixture struct {
	result.VisibilityFixture
	// Error says the fixture's result is an error (its readout has an isError channel).
	Error bool
	// RecordAt is the first repetition's record; TrafficAt the provider request that carried
	// the result, or the run's traffic file when no request did (a failed run).
	RecordAt, TrafficAt Link
}

// Link is a file below the repository's root (slash-separated) and a line in it (0: the file).
type Link struct {
	File string
	Line int
}

// IsZero reports whether l links nothing.
func (l Link) IsZero() bool { return l.File == "" }

// Markdown writes l as a Markdown link with text, relative to docs/ (GitHub's file#Lline).
func (l Link) Markdown(text string) string {
	if l.IsZero() {
		return text
	}
	u := "../" + l.File
	if l.Line > 0 {
		u += fmt.Sprintf("#L%d", l.Line)
	}
	return "[" + text + "](" + escape.MarkdownURL(u) + ")"
}

// Clients reads every recipe's committed evidence below root, in the order of the recipes'
// directory names. A recipe without an evidence directory is left out.
func Clients(ctx context.Context, root string) ([]Client, error) {
	entries, err := os.ReadDir(filepath.Join(root, ClientsDir))
	if err != nil {
		return nil, fmt.Errorf("the client recipes: %w", err)
	}
	var cs []Client
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, ClientsDir, e.Name(), EvidenceDir, "probe.json")); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		c, err := readClient(ctx, root, e.Name())
		if err != nil {
			return nil, fmt.Errorf("client %s: %w", e.Name(), err)
		}
		cs = append(cs, c...)
	}
	return cs, nil
}

// manifest is the part of probe.json read here.
type manifest struct {
	Lanes map[string]struct {
		Provider string              `json:"provider"`
		Versions map[string][]string `json:"versions"`
	} `json:"lanes"`
}

// readClient reads one recipe's evidence directory: a row per lane, version and configuration
// probe.json lists (one, for a recipe probed by scripts/probe-clients).
func readClient(ctx context.Context, root, dir string) ([]Client, error) {
	rel := path.Join(ClientsDir, dir, EvidenceDir)
	evidence := filepath.Join(root, filepath.FromSlash(rel))
	data, err := safeio.ReadPath(filepath.Join(evidence, "probe.json"), 1<<20)
	if err != nil {
		return nil, fmt.Errorf("reading probe.json: %w", err)
	}
	var man manifest
	if err := json.Unmarshal(data, &man); err != nil {
		return nil, fmt.Errorf("%s/probe.json: %w", rel, err)
	}
	// The check of the evidence alone, as `check --observations DIR --contracts DIR` reads it;
	// the relative path makes the records' locations the repository's.
	r, err := check.Run(ctx, inputs.Options{Observations: []string{evidence}, Contracts: []string{evidence}, Profile: "probe"})
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", rel, err)
	}
	var cs []Client
	for _, lane := range slices.Sorted(maps.Keys(man.Lanes)) {
		l := man.Lanes[lane]
		for _, version := range slices.Sorted(maps.Keys(l.Versions)) {
			for _, conf := range l.Versions[version] {
				c := Client{Dir: dir, Lane: lane, Version: version, Configuration: conf, Provider: l.Provider}
				if err := c.read(r, root, evidence, rel); err != nil {
					return nil, fmt.Errorf("%s %s %s: %w", lane, version, conf, err)
				}
				cs = append(cs, c)
			}
		}
	}
	return cs, nil
}

// read fills c from the check's report r and the traffic in the evidence directory (rel below
// root).
func (c *Client) read(r *result.Report, root, evidence, rel string) error {
	found := false
	for _, v := range r.EachVisibility() {
		if v.Lane == c.Lane && v.Version == c.Version && v.Configuration == c.Configuration && v.Stage == "H4" {
			c.H4, found = v, true
		}
	}
	if !found {
		return errors.New("the check gives no visibility readout at H4: are the visibility suite's records there?")
	}
	// The records' locations are as the check named them: below evidence.
	recordLink := func(file string, line int) (Link, error) {
		p, err := filepath.Rel(root, file)
		if err != nil || strings.HasPrefix(p, "..") {
			return Link{}, fmt.Errorf("record %s is outside %s", file, root)
		}
		return Link{File: filepath.ToSlash(p), Line: line}, nil
	}
	for i := 0; i < r.Results.Len(); i++ {
		res := r.Results.At(i)
		if res.Lane != c.Lane || res.LaneVersion != c.Version || res.Configuration != c.Configuration || res.Stage != "M3" || len(res.Records) == 0 {
			continue
		}
		// M3's record is cited from the readout's first fixture.
		if c.M3 == "" || (len(c.H4.Fixtures) > 0 && res.Fixture == c.H4.Fixtures[0].Fixture) {
			l, err := recordLink(res.Records[0].File, res.Records[0].Line)
			if err != nil {
				return err
			}
			c.M3, c.M3At = res.Outcome, l
		}
	}
	for _, f := range c.H4.Fixtures {
		file, line, err := splitRecord(f.Record)
		if err != nil {
			return err
		}
		at, err := recordLink(file, line)
		if err != nil {
			return err
		}
		fx := Fixture{VisibilityFixture: f, RecordAt: at}
		_, fx.Error = f.Channels["isError"]
		rep, err := recordRepetition(file, line)
		if err != nil {
			return err
		}
		t, err := c.readTraffic(evidence, rel, f.Fixture, rep)
		if err != nil {
			return err
		}
		fx.TrafficAt = t.result
		if c.TransportAt.IsZero() && !t.mcp.IsZero() {
			c.Transport, c.TransportAt = t.transport, t.mcp
		}
		if c.ProviderAt.IsZero() && !t.provider.IsZero() {
			c.ProviderAt = t.provider
		}
		c.Fixtures = append(c.Fixtures, fx)
	}
	return nil
}

// splitRecord splits a readout's record location, file:line.
func splitRecord(loc string) (string, int, error) {
	i := strings.LastIndexByte(loc, ':')
	var line int
	if i < 0 {
		return "", 0, fmt.Errorf("record location %q: not file:line", loc)
	}
	if _, err := fmt.Sscan(loc[i+1:], &line); err != nil || line < 1 {
		return "", 0, fmt.Errorf("record location %q: not file:line", loc)
	}
	return loc[:i], line, nil
}

// recordRepetition reads the repetition of the record at file:line.
func recordRepetition(file string, line int) (int, error) {
	data, err := safeio.ReadPath(file, 1<<30)
	if err != nil {
		return 0, fmt.Errorf("reading the records: %w", err)
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return 0, fmt.Errorf("%s has no line %d", file, line)
	}
	var rec struct {
		Repetition int `json:"repetition"`
	}
	if err := json.Unmarshal([]byte(lines[line-1]), &rec); err != nil {
		return 0, fmt.Errorf("%s:%d: %w", file, line, err)
	}
	return rec.Repetition, nil
}

// runTraffic is what a run's traffic file shows.
type runTraffic struct {
	// transport is how the first MCP request came (Transport); mcp its line.
	transport string
	mcp       Link
	// provider is the first provider request's line; result the line of the provider request
	// that followed the tools/call exchange (it carries the result), else the file.
	provider, result Link
}

// readTraffic reads the traffic of fixture's run at repetition rep in the evidence directory
// (scripts/probe-clients makes a run per fixture, no batch run).
func (c *Client) readTraffic(evidence, rel, fixture string, rep int) (runTraffic, error) {
	// A run that was not made (probe's --max-failures) has no traffic, and its cells no link.
	file := filepath.Join(evidence, filepath.FromSlash(probe.TrafficPath(c.Lane, c.Version, c.Configuration, fixture, rep)))
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return runTraffic{}, nil
	}
	t, err := probe.ReadTraffic(file, 0)
	if err != nil {
		return runTraffic{}, err
	}
	sub, err := filepath.Rel(evidence, file)
	if err != nil {
		return runTraffic{}, fmt.Errorf("the traffic of %s: %w", fixture, err)
	}
	name := path.Join(rel, filepath.ToSlash(sub))
	rt := runTraffic{result: Link{File: name}}
	called := false
	for i, x := range t.Exchanges {
		at := Link{File: name, Line: i + 2} // the header is line 1
		switch x.Endpoint {
		case "mcp":
			if rt.mcp.IsZero() && x.Method == "POST" {
				rt.transport, rt.mcp = transport(x), at
			}
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(x.Request, &msg) == nil && msg.Method == "tools/call" {
				called = true
			}
		case "provider":
			if rt.provider.IsZero() {
				rt.provider = at
			}
			if called && rt.result.Line == 0 {
				rt.result = at
			}
		}
	}
	return rt, nil
}

// transport tells how an MCP request reached probe's server: a Streamable HTTP client sends
// Accept with text/event-stream on every POST (the transport requires it); probe's stdio relay
// (`contractcheck serve --stdio --probe URL`, Go's HTTP client) sends no Accept.
func transport(x probe.Exchange) string {
	accept := strings.Join(x.RequestHeaders.Values("Accept"), ",")
	switch {
	case strings.Contains(accept, "text/event-stream"):
		return "Streamable HTTP"
	case accept == "" && strings.HasPrefix(x.RequestHeaders.Get("User-Agent"), "Go-http-client/"):
		return "stdio"
	}
	return "unknown"
}
