// Package probeenv reads what `contractcheck probe` hands a command in its environment, for the Go
// adapters under examples/probe/go. Stdlib only.
package probeenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Budget is how long one run of an adapter may take: probe's own timeout for a run is longer, so
// an adapter that hangs fails with its own message.
const Budget = 50 * time.Second

// Main is an adapter's main function: Run, and on an error the message "name: error" on stderr
// and exit status 1.
func Main(name string, stdioByDefault bool, run func(context.Context, Env) error) {
	if err := Run(stdioByDefault, run); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Run reads the environment (Load) and calls run with it, under a context that ends after
// Budget.
func Run(stdioByDefault bool, run func(context.Context, Env) error) error {
	env, err := Load(stdioByDefault)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Budget)
	defer cancel()
	return run(ctx, env)
}

// Env is one run's settings.
type Env struct {
	MCPURL        string   // CONTRACTCHECK_MCP_URL: the Streamable HTTP endpoint
	MCPCommand    []string // CONTRACTCHECK_MCP_COMMAND split by shell-word rules: the stdio server
	Tool          string   // CONTRACTCHECK_TOOL (fixture_tool)
	Prompt        string   // CONTRACTCHECK_PROMPT
	Stdio         bool     // connect through MCPCommand (PROBE_TRANSPORT=stdio), not MCPURL (http)
	Stream        bool     // PROBE_STREAM=1: stream the model's answers
	Configuration string   // PROBE_CONFIGURATION (default "default")
}

// Load reads the environment; it fails when probe's variables are missing. PROBE_TRANSPORT is
// "stdio" or "http"; unset, stdio is the transport when stdioByDefault is set.
func Load(stdioByDefault bool) (Env, error) {
	e := Env{
		MCPURL:        os.Getenv("CONTRACTCHECK_MCP_URL"),
		Tool:          os.Getenv("CONTRACTCHECK_TOOL"),
		Prompt:        os.Getenv("CONTRACTCHECK_PROMPT"),
		Stream:        os.Getenv("PROBE_STREAM") == "1",
		Configuration: os.Getenv("PROBE_CONFIGURATION"),
	}
	switch t := os.Getenv("PROBE_TRANSPORT"); t {
	case "stdio":
		e.Stdio = true
	case "http":
	case "":
		e.Stdio = stdioByDefault
	default:
		return e, fmt.Errorf("PROBE_TRANSPORT=%s: stdio or http", t)
	}
	if e.Configuration == "" {
		e.Configuration = "default"
	}
	if e.Tool == "" {
		e.Tool = "fixture_tool"
	}
	if e.Prompt == "" {
		e.Prompt = "Call " + e.Tool + "."
	}
	cmd, err := Split(os.Getenv("CONTRACTCHECK_MCP_COMMAND"))
	if err != nil {
		return e, fmt.Errorf("CONTRACTCHECK_MCP_COMMAND: %w", err)
	}
	e.MCPCommand = cmd
	switch {
	case e.Stdio && len(cmd) == 0:
		return e, errors.New("the stdio transport needs CONTRACTCHECK_MCP_COMMAND, which is empty (run under contractcheck probe)")
	case !e.Stdio && e.MCPURL == "":
		return e, errors.New("CONTRACTCHECK_MCP_URL is empty (run under contractcheck probe)")
	}
	return e, nil
}

// Split splits s into words by POSIX shell rules for blanks, quotes and backslashes (no
// expansion of variables, globs or substitutions), as Python's shlex.split does.
func Split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					w.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, errors.New("unterminated double quote")
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				w.WriteByte(s[i])
			}
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
