package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/scaffold"
)

const initLong = `Init writes a small working contract layer to DIR: one custom task (its atom, its CUE
definition with the fixtures it applies to, its Rego policy and a Rego test), a profile that
requires it, and a README. The profile is named after the layer (the last element of DIR, in
lower case, with what a profile name cannot hold made "-": my-layer for my-layer; --profile names
it otherwise). The layer adds to the built-in contracts and policies; nothing is forked. It runs
at once:

  contractcheck init my-layer
  contractcheck test  --policies my-layer
  contractcheck check --contracts my-layer --policies my-layer --profile my-layer

DIR must not exist or be empty; the layer is written whole or not at all. The walkthrough is
docs/writing-a-contract.md.`

func newInitCommand() *cobra.Command {
	var opts scaffold.InitOptions
	cmd := &cobra.Command{
		Use:     "init DIR",
		Short:   "Write a working custom contract layer to start from",
		Long:    initLong,
		Example: "  contractcheck init my-contracts\n  contractcheck init --task LINKS my-contracts\n  contractcheck init --lane acme-agent acme",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runInit(opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&opts.Task, "task", "T6", "id of the custom task")
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "name of the profile that requires the task (default: the layer directory's name)")
	cmd.Flags().StringArrayVar(&opts.Lanes, "lane", nil, "a lane the profile gates beside the control lane (your agent's, declared by record or probe; repeatable)")
	return cmd
}

func runInit(opts scaffold.InitOptions, stdout io.Writer) error {
	files, err := scaffold.Init(opts)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(stdout, "wrote %s/%s\n", escape.Terminal(opts.Dir), f)
	}
	return nil
}
