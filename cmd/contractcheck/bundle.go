package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/bundle"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

const bundleLong = `Bundle writes the contract set as a standard OPA bundle that a stock OPA evaluates with no custom
build: opa run --server --bundle contracts.tar.gz, then POST /v1/data/contractcheck/decision with
{"input": {"fixture", "lane", "laneVersion", "configuration", "stage", "carrier"}} (and optionally
"task") gives, per task of the profile, the outcome, diagnostics and readout check gives for that
carrier (docs/opa.md).

The bundle holds the task policies of the selected layers (their calls to contractcheck.diff and
contractcheck.json_text rewritten to pure-Rego equivalents), the projector as Rego over the contract
model, the evaluated contract model, every catalogued source's canonical view and the provider
request schemas the model names as data, and a .manifest with a revision (a digest of the contents) and the roots. The same inputs give the same
bytes.

A decision names what differs without the user's data: a diagnostic's expected and observed values
are described by type, length and sha256, unless --quote-data makes it quote them as their JSON
text (exact through every route OPA logs by). The readout is given as its JSON text.

Exit codes: 0 written; 2 usage, input or output error; 3 the instrument failed (a policy or the
contracts stopped at a limit).`

const bundleExample = `  contractcheck bundle --output contracts.tar.gz
  contractcheck bundle --profile withhold-private-meta --contracts ./mine --policies ./mine --output mine.tar.gz
  opa run --server --addr 127.0.0.1:8181 --bundle contracts.tar.gz`

type bundleParams struct {
	inputs.Options
	settings bundle.Settings
	out      output[*bundle.Bundle]
}

func newBundleCommand() *cobra.Command {
	var p bundleParams
	cmd := &cobra.Command{
		Use:     "bundle --output FILE",
		Short:   "Write the contract set as an OPA bundle a stock OPA server evaluates",
		Long:    bundleLong,
		Example: bundleExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitWith(runBundle(cmd.Context(), p, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	addInputFlags(cmd, &p.Options)
	cmd.Flags().BoolVar(&p.settings.QuoteData, "quote-data", false,
		"quote the user's data in decisions (a diagnostic's expected and observed values, as JSON text) instead of describing it by type, length and sha256; it then reaches OPA's decision logs")
	addOutputFlags(cmd, &p.out, bundle.Outputters(), outputSpec{what: "bundle", format: "tar.gz", required: true})
	return cmd
}

// runBundle builds the bundle and writes it to --output; what it wrote is said on stderr, as every
// verb says what it wrote to an --output file.
func runBundle(ctx context.Context, p bundleParams, stdout, stderr io.Writer) (int, error) {
	out, err := p.out.resolve(report.Options{}, inputsOf(p.Options))
	if err != nil {
		return result.ExitInputError, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	b, err := bundle.BuildWith(ctx, p.Options, p.settings)
	if err != nil {
		return result.ExitCode(err), err
	}
	if err := p.out.write(stdout, out, b); err != nil {
		return result.ExitInputError, err
	}
	data := "described"
	if b.QuoteData {
		data = "quoted"
	}
	fmt.Fprintf(stderr, "wrote %s: profile %s, revision %s, roots %v, %d files, the user's data %s in decisions; entry point POST /v1/data/contractcheck/decision\n",
		escape.Terminal(p.out.File), b.Profile, b.Revision, escape.Terminal(fmt.Sprint(b.Roots)), len(b.Files), data)
	return result.ExitSatisfied, nil
}
