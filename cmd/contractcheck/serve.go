package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/mcpserve"
)

const serveLong = `Serve runs the MCP server of contractcheck probe alone, for one fixture: every call of its one
tool (fixture_tool) is answered with the fixture's W0 bytes exactly (compacted; numbers, escapes
and key order kept; a JSON-RPC error envelope served as an error), for wiring an agent by hand or
inspecting the fixture with MCP Inspector.

  --stdio          newline-delimited JSON-RPC on standard input and output
  --listen ADDR    Streamable HTTP at http://ADDR/mcp (loopback addresses only)

--probe URL relays stdio to a running probe's endpoint: it is what CONTRACTCHECK_MCP_COMMAND
starts, and needs nothing else on its command line.`

type serveParams struct {
	opts    inputs.Options
	fixture string
	stdio   bool
	listen  string
	probe   string
	tool    string
}

func newServeCommand() *cobra.Command {
	var p serveParams
	cmd := &cobra.Command{
		Use:   "serve --fixture ID [--stdio | --listen ADDR]",
		Short: "Serve one fixture as an MCP tool result, over stdio or Streamable HTTP",
		Long:  serveLong,
		Example: `  contractcheck serve --fixture C05 --stdio
  contractcheck serve --fixture C11 --listen 127.0.0.1:8931
  npx @modelcontextprotocol/inspector contractcheck serve --fixture C05 --stdio`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitOn(runServe(cmd.Context(), p, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.fixture, "fixture", "", "the catalogued fixture to serve")
	f.BoolVar(&p.stdio, "stdio", false, "serve newline-delimited JSON-RPC on standard input and output")
	f.StringVar(&p.listen, "listen", "", "serve Streamable HTTP at http://ADDR/mcp (a loopback address, e.g. 127.0.0.1:8931)")
	f.StringVar(&p.probe, "probe", "", "relay stdio to a probe's MCP endpoint (what CONTRACTCHECK_MCP_COMMAND runs)")
	f.StringVar(&p.tool, "tool", mcpserve.DefaultTool, "the tool's name")
	addLayerFlags(cmd, &p.opts)
	f.StringArrayVar(&p.opts.Fixtures, "fixtures", nil, "directory holding sources/<suite>/<id>.json, added to the built-in fixtures (repeatable)")
	f.StringArrayVar(&p.opts.Schemas, "schemas", nil, "directory holding mcp/<revision>/schema.json (an MCP revision of its own) or carriers/, added to the built-in schemas (repeatable)")
	f.BoolVar(&p.opts.NoBuiltin, "no-builtin", false, "leave the built-in contracts and fixtures out")
	return cmd
}

// runServe serves until standard input ends (stdio) or the context is done (HTTP).
func runServe(ctx context.Context, p serveParams, stdin io.Reader, stdout, stderr io.Writer) error {
	if p.probe != "" {
		if p.fixture != "" || p.listen != "" || !p.stdio {
			return usage("serve --probe URL relays stdio: give --stdio and no --fixture or --listen")
		}
		if !strings.HasPrefix(p.probe, "http://127.0.0.1:") {
			return usage("serve --probe %q: a probe listens on http://127.0.0.1 only", p.probe)
		}
		return mcpserve.Relay(&http.Client{}, p.probe, stdin, stdout)
	}
	switch {
	case p.fixture == "":
		return usage("serve: --fixture is required")
	case p.stdio == (p.listen != ""):
		return usage("serve: give one of --stdio and --listen ADDR")
	}
	in, err := instrument.Load(ctx, p.opts)
	if err != nil {
		return err
	}
	f, ok := in.Model.Fixtures[p.fixture]
	if !ok {
		return usage("serve: unknown fixture %q (not in the catalogue)", p.fixture)
	}
	srv := &mcpserve.Server{Tool: p.tool, Revisions: mcpserve.Servable(in.Validator.Revisions()), Validate: mcpserve.SchemaValidator(in.Validator),
		Fixtures: []mcpserve.Fixture{{ID: p.fixture, Revision: f.Revision, Bytes: in.Sources[p.fixture].Data}}}
	if p.stdio {
		return srv.ServeStream(stdin, stdout)
	}
	host, _, err := net.SplitHostPort(p.listen)
	if err != nil {
		return usage("serve --listen %q: %v", p.listen, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usage("serve --listen %q: only a loopback address (127.0.0.1, [::1], localhost): nothing listens beyond this machine", p.listen)
	}
	ln, err := net.Listen("tcp", p.listen)
	if err != nil {
		return usage("serve --listen: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(stderr, "serve: fixture %s as tool %s at http://%s/mcp (Streamable HTTP); stop with Ctrl-C\n", p.fixture, p.tool, ln.Addr())
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
