package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/mcpserve"
)

// What the probe served, per run: the MCP server answers each tools/call in the revision the
// client negotiated (package mcpserve), refuses a fixture that cannot be served under it, and
// the H4 record's notes say which revision that was and how the client chose it.

// refusal is why the MCP server could not serve fixture id under the revision the client
// negotiated, nil when it served it (or was never asked).
func refusal(mcp *mcpserve.Server, id string) error {
	for _, c := range mcp.Calls() {
		if c.Fixture == id && c.Refused != nil {
			return c.Refused
		}
	}
	return nil
}

// servedNote says, for the record, under which revision each tools/call of fixture id was
// answered, how the client chose it and what was added to the fixture; "" when the command
// never called the tool for it. It depends on the calls alone, so a rerun writes the same bytes.
func servedNote(mcp *mcpserve.Server, id string) string {
	var notes []string
	for _, c := range mcp.Calls() {
		if c.Fixture != id {
			continue
		}
		n := "served under MCP revision " + c.Revision
		if c.Refused != nil {
			n = "refused under MCP revision " + c.Revision
		}
		n += ", " + mcpserve.Negotiated(c.Via)
		if len(c.Added) > 0 {
			n += fmt.Sprintf(", with %s added to the fixture's result", addedMembers(c.Added))
		}
		if c.OutOfRevision != nil {
			n += ", out of revision (--serve-out-of-revision): " + c.OutOfRevision.Error()
		}
		if !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return "contractcheck probe: tools/call " + strings.Join(notes, "; ") + "."
}

// addedMembers names the members the server added, with their values.
func addedMembers(added []string) string {
	out := make([]string, len(added))
	for i, m := range added {
		out[i] = fmt.Sprintf("%q", m)
		if m == "resultType" {
			out[i] += `:"complete"`
		}
	}
	return strings.Join(out, " and ")
}
