package main

import (
	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/report"
)

const capabilitiesLong = `Capabilities prints the capabilities of the sandbox the policies run in, as OPA's capabilities
JSON: OPA's builtins without those that read the network, the clock, randomness or the
environment, plus contractcheck.json_text and contractcheck.diff. Give it to the tools that read
Rego, so that they accept the custom builtins and refuse what the sandbox refuses:

  opa check --v1-compatible --strict --capabilities policies/capabilities.json my-policies/
  regal lint my-policies/        (with capabilities: from: file: in .regal/config.yaml)

The repository ships the same file as policies/capabilities.json; contractcheck export writes it
with the built-in policies.`

func newCapabilitiesCommand() *cobra.Command {
	var out output[[]byte]
	cmd := &cobra.Command{
		Use:     "capabilities",
		Short:   "Print the policy sandbox's capabilities (OPA capabilities JSON, with the custom builtins)",
		Long:    capabilitiesLong,
		Example: "  contractcheck capabilities > capabilities.json\n  opa check --v1-compatible --strict --capabilities capabilities.json my-policies/",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := out.resolve(report.Options{}, nil)
			if err != nil {
				return err
			}
			data, err := policy.CapabilitiesJSON()
			if err != nil {
				return err
			}
			return out.write(cmd.OutOrStdout(), f, data)
		},
	}
	addOutputFlags(cmd, &out, capabilitiesOutputters, outputSpec{what: "capabilities", format: "json"})
	return cmd
}
