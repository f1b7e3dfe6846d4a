// Command stdioserver serves one fixture over stdio with the raw MCP server, for MCP clients that
// can only start a server as a command: Genkit's MCP plugin (v1.4.0) offers stdio, SSE and
// streamable HTTP transports, and no in-process one.
//
// Usage:
//
//	stdioserver FIXTURE.json
package main

import (
	"fmt"
	"os"

	"github.com/contractcheck/contractcheck/examples/internal/rawmcp"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: stdioserver FIXTURE.json")
		os.Exit(2)
	}
	fixture, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdioserver:", err)
		os.Exit(1)
	}
	s := &rawmcp.Server{Fixture: fixture}
	if err := s.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stdioserver:", err)
		os.Exit(1)
	}
}
