package main

// Lane google-adk: adk-python's McpTool under an LlmAgent with a Gemini model. The pinned 2.8.0
// could not be had here: the fetched repository stops at v1.4.2 (June 2025), whose McpTool still
// returned the CallToolResult object. The lane follows the newest mcp_tool.py the search index
// stores (blob of commit 079f3d7, unversioned, with the MCP-Apps UI widget and the
// _MCP_GRACEFUL_ERROR_HANDLING flag, so after March 2026) and the flow's __build_response_event,
// and names that snapshot as its version.

import (
	"github.com/contractcheck/contractcheck/examples/internal/record"
)

const (
	adkLane = "google-adk"
	// adkVersion names the source read: no release tag could be matched to it.
	adkVersion = "snapshot-079f3d7"
	// adkGenAIVersion is the google-genai source the H4 shape follows (the Go SDK's types.go, whose
	// FunctionResponse mirrors the Python SDK's and the REST API's field names).
	adkGenAIVersion = "go-genai v1.57.0 (types.go)"
	adkToolName     = "fixture_tool"
)

func init() {
	register(&Lane{
		ID:             adkLane,
		Version:        adkVersion,
		Configurations: map[string]func(string) bool{"default": nil},
		Reconstruct:    reconstructGoogleADK,
	})
}

var adkBasis = basisOf(adkVersion)

// reconstructGoogleADK returns D1, A2, M3 and H4 for one fixture.
func reconstructGoogleADK(_ string, f record.Fixture, _ map[string]any) []Stage {
	d1 := Stage{Stage: "D1", State: "not_observable", Basis: []record.Basis{adkBasis(
		"McpTool._run_async_impl awaits session.call_tool and dumps the CallToolResult at once; no public seam shows the decoded object.",
		"src/google/adk/tools/mcp_tool/mcp_tool.py", "McpTool._run_async_impl")}}
	basis := []record.Basis{mcp1Basis(
		"ClientSession.send_request raises McpError(error.message) for a JSON-RPC error response and otherwise validates the result with CallToolResult.model_validate (a ValidationError propagates).",
		"src/mcp/shared/session.py, src/mcp/types.py", "BaseSession.send_request, CallToolResult")}
	src, err := pyLoads(f.Bytes)
	var response *pyDict
	if err == nil {
		response, err = sendRequest(src)
	}
	if err != nil {
		basis = append(basis, adkBasis(
			"An exception from session.call_tool is retried once by retry_on_errors and then propagates: with the _MCP_GRACEFUL_ERROR_HANDLING feature off (the default) McpTool.run_async does not turn it into an {\"error\": …} dict, so the agent run fails.",
			"src/google/adk/tools/mcp_tool/mcp_tool.py", "McpTool.run_async, McpTool._run_async_impl"))
		return []Stage{d1,
			{Stage: "A2", State: "execution_failed", Err: err.Error(), Basis: basis},
			{Stage: "M3", State: "not_reached", Basis: basis},
			{Stage: "H4", State: "not_reached", Basis: basis}}
	}
	result := mcpToolRunAsyncImpl(response)
	basis = append(basis, adkBasis(
		"The tool result is response.model_dump(exclude_none=True, mode=\"json\"): content blocks, structuredContent and isError (False when absent) are kept, None fields are omitted, _meta is dumped as meta (block, resource and result level), annotations keep their extra lastModified, URIs are str(AnyUrl), numbers are Python ints and floats.",
		"src/google/adk/tools/mcp_tool/mcp_tool.py", "McpTool._run_async_impl"))
	m3 := append(append([]record.Basis{}, basis...), adkBasis(
		"The dict is a dict already, so it becomes types.Part.from_function_response(name=tool.name, response=function_result) unchanged; the LlmRequest contents carry that Part, whose response is the same dict the tool returned.",
		"src/google/adk/flows/llm_flows/functions.py", "__build_response_event"))
	h4 := append(append([]record.Basis{}, m3...),
		adkBasis(
			"Before the request is built, remove_client_function_call_id clears the function response id ADK generated (adk-<uuid>), so the part sent carries name and response only.",
			"src/google/adk/flows/llm_flows/contents.py, src/google/adk/flows/llm_flows/functions.py", "_get_contents, remove_client_function_call_id"),
		record.Basis{Rule: "The Gemini API request body holds the part as contents[].parts[] {\"functionResponse\": {\"name\", \"response\"}} (REST field names as the SDK types declare them); the response object is written from the Python values it holds, so floats keep their repr digits (the Python SDK's request encoder was not read).",
			File: "types.go", Function: "Part, FunctionResponse", Version: adkGenAIVersion})
	return []Stage{d1,
		{Stage: "A2", State: "captured", Carrier: result, Basis: basis},
		{Stage: "M3", State: "captured", Carrier: result, Basis: m3},
		{Stage: "H4", State: "captured", Carrier: buildFunctionResponsePart(result), Basis: h4}}
}

// mcpToolRunAsyncImpl is the end of McpTool._run_async_impl: the validated result is already the
// model_dump(exclude_none=True, mode="json") that mcp1CallToolResult returns.
func mcpToolRunAsyncImpl(response *pyDict) *pyDict { return response }

// buildFunctionResponsePart is the Part of the generateContent request body that carries the
// function response (__build_response_event, then remove_client_function_call_id).
func buildFunctionResponsePart(result *pyDict) *pyDict {
	return newPyDict().set("functionResponse", newPyDict().set("name", adkToolName).set("response", result))
}
