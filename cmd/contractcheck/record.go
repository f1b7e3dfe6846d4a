package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/record"
	"github.com/contractcheck/contractcheck/internal/result"
)

const recordLong = `Record sits between your agent and its MCP server and between your agent and its model
provider, forwards every byte unchanged, and writes what reached the model: each tools/call result
as the server sent it, paired with the provider request item that carries it.

  --mcp URL            a Streamable HTTP MCP server: the agent uses http://127.0.0.1:PORT/mcp
  --mcp-command CMD    an MCP server on stdio: the agent starts, in its place, the command record
                       prints (contractcheck record stdio --to URL -- CMD), which relays its stdio
                       byte for byte and copies the messages to the recorder
  --provider URL       the provider's base URL (https://api.openai.com, https://api.anthropic.com,
                       https://generativelanguage.googleapis.com): the agent uses
                       http://127.0.0.1:PORT/provider (OPENAI_BASE_URL .../provider/v1)

With a COMMAND after --, record runs it with OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
GOOGLE_GEMINI_BASE_URL, CONTRACTCHECK_MCP_URL and CONTRACTCHECK_MCP_COMMAND pointing at the
proxies (your own API keys stay as they are) and stops when it exits; without one it records until
SIGINT or SIGTERM (or --duration).

DIR then holds sources/<suite>/<id>.json (each distinct result once; its id is R and the first 12
hex digits of its sha256), the records (<lane>/<version>/<configuration>.jsonl: H4 the provider
item, one repetition per time the result reached the model), record.json and record.cue (the lane,
its H4 read through the provider's generic binding, and a profile "record"):

  contractcheck check --fixtures DIR --observations DIR --contracts DIR --profile record

Nothing of a request's headers or URL is written, and a pair holding a credential value the
traffic carried (Authorization, Cookie values, API-key headers, key/api_key/access_token query
parameters, URL passwords, and the headers --secret-header names), in any JSON or URL spelling, is
refused. --redact POINTER blanks a value of every result before anything is written.
docs/record.md has a worked example.

Memory is bounded by --memory-budget (a flag of every verb): the recorder's copy of a message past
1 MiB goes to a private temporary directory as the message passes (the agent gets the bytes as
they come; the directory is removed at the end), and a message larger than a sixteenth of the
budget (at most 64 MiB) is forwarded but not recorded, and counted.

Exit codes: 0 every tools/call result was paired and written captured; 1 everything seen was
written, but some provider items are ambiguous records (which of two or more distinct results of
the same tool and arguments each carries is not proved); 2 usage or input error; 3 something seen
was not recorded (a limit reached, a pair refused, a result no provider request carried, a write
that failed, the agent command failing) or an upstream failed (a pair written execution_failed, a
tools/call the MCP server failed): the line before the exit says what.`

type recordParams struct {
	record.Options
	mcpCommand  string
	providerAPI string
}

func newRecordCommand() *cobra.Command {
	p := recordParams{}
	cmd := &cobra.Command{
		Use:   "record --lane NAME --version V --provider URL (--mcp URL | --mcp-command CMD) --output DIR [-- COMMAND [ARGS...]]",
		Short: "Record your agent's real MCP and model traffic through proxies, as sources and records check judges",
		Long:  recordLong,
		Example: `  contractcheck record --lane my-agent --version 1.4.0 --mcp http://localhost:3000/mcp \
      --provider https://api.openai.com --output rec -- node agent.mjs
  contractcheck record --lane my-agent --version 1.4.0 --mcp-command 'python server.py' \
      --provider https://api.anthropic.com --redact /structuredContent/email --output rec
  contractcheck check --fixtures rec --observations rec --contracts rec --profile record`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return usage("record: unexpected argument %s: give the agent command after --", escape.Shell(args[0]))
			}
			p.Command = args
			if p.mcpCommand != "" {
				argv, err := escape.ShellWords(p.mcpCommand)
				if err != nil || len(argv) == 0 {
					return usage("record: --mcp-command: %v", err)
				}
				p.MCPCommand = argv
			}
			p.ProviderAPI = fakeprovider.API(p.providerAPI)
			return exitWith(runRecord(cmd.Context(), p, cmd.ErrOrStderr()))
		},
	}
	f := cmd.Flags()
	addLaneFlags(cmd, &p.Lane, &p.Version, &p.Configuration)
	f.StringVar(&p.Suite, "suite", "recorded", "the suite the sources are written under (sources/SUITE/)")
	f.StringVar(&p.MCPURL, "mcp", "", "the MCP server's Streamable HTTP endpoint to proxy")
	f.StringVar(&p.mcpCommand, "mcp-command", "", "the command of an MCP server on stdio (shell words), for the agent to start through record stdio")
	f.StringVar(&p.ProviderURL, "provider", "", "the model provider's base URL to proxy (required)")
	f.StringVar(&p.providerAPI, "provider-api", "", "the provider API of the lane's H4 binding: openai-responses, openai-chat, anthropic, gemini (default: the API of the first request recorded)")
	f.StringVar(&p.Listen, "listen", "127.0.0.1:0", "the address the proxies listen on (loopback unless you say otherwise)")
	f.StringVar(&p.Output, "output", "", "directory the sources, records, record.json and record.cue are written to: empty, or an earlier recording's (required)")
	f.StringArrayVar(&p.Redact, "redact", nil, "a JSON pointer (RFC 6901) into each tools/call result whose value is blanked before anything is written (repeatable)")
	f.StringArrayVar(&p.SecretHeaders, "secret-header", nil, "a request header whose values are credentials besides the built-in ones: a pair holding one is refused (repeatable)")
	f.IntVar(&p.MaxRecords, "max-records", 100000, "stop recording after this many pairs (0: no limit); the proxies keep forwarding")
	f.Int64Var(&p.MaxBytes, "max-bytes", 1<<30, "stop recording after this many bytes written (0: no limit); the proxies keep forwarding")
	f.DurationVar(&p.Duration, "duration", 0, "stop after this long (default: when COMMAND exits, or on SIGINT or SIGTERM)")
	f.StringVar(&p.CAFile, "ca-file", "", "a PEM file of certificate authorities to trust for the upstreams besides the system's")
	cmd.AddCommand(newRecordStdioCommand())
	return cmd
}

// runRecord records until the command exits or a signal, and says what it wrote; the exit code
// is recordExit's.
func runRecord(ctx context.Context, p recordParams, stderr io.Writer) (int, error) {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	p.Log = stderr
	res, err := record.Run(ctx, p.Options)
	if err != nil {
		var ie *result.InputError
		if errors.As(err, &ie) {
			return result.ExitInputError, err
		}
		return result.ExitInstrument, err
	}
	fmt.Fprintf(stderr, "judge it: contractcheck check --fixtures %s --observations %s --contracts %s --profile record\n", shownPath(p.Output), shownPath(p.Output), shownPath(p.Output))
	return recordExit(res)
}

// recordExit is a recording's exit code: 3 when the agent command failed or anything seen was
// not recorded; else 1 when provider items were written ambiguous (nothing was lost, but what
// check reads of them is no verdict); else 0.
func recordExit(res *record.Result) (int, error) {
	switch {
	case res.AgentErr != nil:
		return result.ExitInstrument, fmt.Errorf("record: the agent command failed: %w", res.AgentErr)
	case res.Lost():
		why := "some traffic was not recorded"
		switch {
		case res.Limit != "":
			why = res.Limit
		case res.Failed+res.MCPFailed > 0:
			why = fmt.Sprintf("an upstream failed (%d pairs written execution_failed, %d tools/call requests without a result)", res.Failed, res.MCPFailed)
		}
		return result.ExitInstrument, fmt.Errorf("record: %s: %s", why, res.Stats)
	case res.Ambiguous > 0:
		return result.ExitUnmet, fmt.Errorf("record: %d provider items written ambiguous: each could carry more than one distinct result of its tool and arguments, and nothing in it tells which (docs/record.md, Pairing); check counts them as ambiguous, unjudged", res.Ambiguous)
	}
	return result.ExitSatisfied, nil
}

func newRecordStdioCommand() *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:   "stdio --to URL -- SERVER [ARGS...]",
		Short: "Relay an MCP server's stdio byte for byte and copy its messages to a running record",
		Long: `Record stdio is what an agent starts in its MCP server's place (contractcheck record prints the
command line, and puts it in CONTRACTCHECK_MCP_COMMAND for the command it runs). It starts SERVER,
relays its standard input and output byte for byte, and posts a copy of every newline-delimited
message to the recorder at URL. Its exit status is the server's. A recorder it cannot reach is
said on standard error and the relay goes on.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return usage("record stdio: give the MCP server command after --")
			}
			if !strings.HasPrefix(to, "http://") {
				return usage("record stdio: --to is required: the http:// URL contractcheck record printed")
			}
			return exitWith(record.Stdio(cmd.Context(), record.StdioOptions{To: to, Command: args, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}))
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the recorder's stdio URL (required)")
	return cmd
}
