package fakeprovider

import (
	"fmt"
	"strconv"
	"strings"
)

// Client-executed tool search on the Responses API (issue 40). A client may defer its tools
// behind a tool search: the request lists no tool matching the probe tool but a tool of type
// "tool_search" with "execution": "client" (codex 0.171.0 with gpt-5.5 defers every MCP tool so).
// The model then asks the client to search, as the real API does, with a tool_search_call output
// item (openai-python types/responses/response_tool_search_call.py: id, type, status, call_id,
// execution, arguments as a JSON object; codex-rs/protocol/src/models.rs
// ResponseItem::ToolSearchCall {call_id, execution, arguments}). The client answers with a
// tool_search_output input item {type, call_id, execution, status, tools} whose tools are tool
// definitions like the request's tools (codex: a namespace "mcp__cc" holding "fixture_tool"),
// and the model calls the tool found there, with name and namespace.

// searchCall is the tool search the fake model asks the client for.
type searchCall struct {
	id    string // the call_id: call_probe_search_N
	query string // arguments.query: the probe tool's name
}

// searchOutput is one tool_search_output item of a Responses request's input.
type searchOutput struct {
	callID string
	fns    []listedTool // the callable tools it returned, in order
	names  []string     // every tool it returned, by name (namespaces by their own name)
}

// searchOutputs reads the tool_search_output items of a Responses request's input, in order.
func searchOutputs(body []byte, ms []member) ([]searchOutput, error) {
	items, _, err := elems(body, ms, "input")
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	var outs []searchOutput
	for _, it := range items {
		im, ok, err := objectMembers(body, it[0], it[1])
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		if typ, _ := str(body, im, "type"); !ok || typ != "tool_search_output" {
			continue
		}
		var out searchOutput
		out.callID, _ = str(body, im, "call_id")
		tools, _, err := elems(body, im, "tools")
		if err != nil {
			return nil, fmt.Errorf("input: tool_search_output %q: tools: %w", out.callID, err)
		}
		for _, t := range tools {
			tm, ok, err := objectMembers(body, t[0], t[1])
			if err != nil {
				return nil, fmt.Errorf("input: tool_search_output %q: tools: %w", out.callID, err)
			}
			if !ok {
				continue
			}
			name, _ := str(body, tm, "name")
			if typ, _ := str(body, tm, "type"); typ != "" && typ != "function" {
				name += " (" + typ + ")"
			}
			out.names = append(out.names, name)
			fns, err := responsesTools(body, tm)
			if err != nil {
				return nil, fmt.Errorf("input: tool_search_output %q: tools: %w", out.callID, err)
			}
			out.fns = append(out.fns, fns...)
		}
		outs = append(outs, out)
	}
	return outs, nil
}

// searchedTools is every callable tool the search outputs returned, in order.
func searchedTools(outs []searchOutput) []listedTool {
	var fns []listedTool
	for _, o := range outs {
		fns = append(fns, o.fns...)
	}
	return fns
}

// describeSearch names what the search outputs returned, for a message: per output its call id
// and the tools it returned (a namespace with the tools inside it).
func describeSearch(outs []searchOutput) string {
	parts := make([]string, len(outs))
	for i, o := range outs {
		var got []string
		for _, f := range o.fns {
			got = append(got, f.describe())
		}
		if len(got) == 0 {
			for _, n := range o.names {
				got = append(got, strconv.Quote(n))
			}
		}
		what := "no tools"
		if len(got) > 0 {
			what = strings.Join(got, ", ")
		}
		parts[i] = fmt.Sprintf("tool_search_output %q returned %s", o.callID, what)
	}
	return strings.Join(parts, "; ")
}

// searchItem is the tool_search_call output item of a tool search answer; the arguments are
// whole in the added item too, since no stream event carries a tool search's arguments apart.
func searchItem(pl plan, status string) obj {
	return obj{{"id", responsesItemID(pl)}, {"type", "tool_search_call"}, {"status", status},
		{"arguments", obj{{"query", pl.search.query}}}, {"call_id", pl.search.id}, {"execution", "client"}}
}
