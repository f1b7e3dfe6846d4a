package main

// Lane openai-agents: openai-agents-python 0.22.0 with the MCP Python SDK 1.29.0 as its client and
// openai-python 3.0.0 as its provider SDK: the versions examples/capture/python runs, so that the
// reconstruction can be checked against the capture (reality_test.go); the lane's observations
// are the captured ones. Each rule below is one Python function, applied to the fixture as the
// framework would receive it from contractcheck's raw fixture server over MCPServerStdio (name
// "contractcheck-fixture", default options: no custom-data extractor, no meta resolver,
// failure_error_function left unset so the agent's default_tool_error_function applies) and an
// OpenAIResponsesModel pointed at a local provider that answers with one function_call (call_id
// "call_fixture_tool_1") to fixture_tool.

import (
	"fmt"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

const (
	oaVersion       = "0.22.0"
	oaMCPVersion    = "mcp 1.29.0"
	oaOpenAIVersion = "openai 3.0.0"
	// oaPydanticMinor is the pydantic of the capture environment (Debian's 2.14.1): it names the
	// error URL of a ValidationError.
	oaPydanticMinor = "2.14"
	oaServerName    = "contractcheck-fixture"
	oaToolName      = "fixture_tool"
	oaCallID        = "call_fixture_tool_1"
)

func init() {
	register(&Lane{
		ID:      "openai-agents",
		Version: oaVersion,
		Configurations: map[string]func(string) bool{
			"default":                nil,
			"use-structured-content": isStructured,
		},
		Reconstruct: reconstructOpenAIAgents,
		CapturedBy:  "examples/capture/openai-agents",
	})
}

var (
	oaBasis    = basisOf("openai-agents " + oaVersion)
	oaMCPBasis = basisOf(oaMCPVersion)
)

// mcpServed splits what the raw server answers for a fixture: the CallToolResult, or the error
// member of a JSON-RPC error response.
func mcpServed(v any) (result, rpcError *pyDict) {
	d, _ := v.(*pyDict)
	if _, ok := d.get("jsonrpc"); ok {
		if e, ok := d.get("error"); ok {
			return nil, e.(*pyDict)
		}
		r, _ := d.get("result")
		rd, _ := r.(*pyDict)
		return rd, nil
	}
	return d, nil
}

// oaFailure is an exception raised on the way from the wire to the tool output.
type oaFailure struct {
	pyType string // the Python exception class
	msg    string // str(exception)
}

func (e *oaFailure) Error() string { return e.msg }

func reconstructOpenAIAgents(cfg string, f record.Fixture, _ map[string]any) []Stage {
	v, err := pyLoads(f.Bytes)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", f.ID, err))
	}
	result, rpcErr := mcpServed(v)

	// D1: ClientSession.call_tool → the CallToolResult, or the exception it raises.
	var d1 Stage
	var failure *oaFailure
	var ctr *oaCallToolResult
	d1Basis := []record.Basis{}
	if rpcErr != nil {
		exc, b := mcpErrorFromErrorData(rpcErr)
		d1Basis = append(d1Basis, b)
		failure = &oaFailure{pyType: "McpError", msg: exc.(*pyDict).m["message"].(string)}
		d1 = Stage{Stage: "D1", State: "captured", Carrier: pyRaw(pyD("exception", exc)), Basis: d1Basis}
	} else {
		var b []record.Basis
		ctr, failure, b = mcpCallTool(result)
		d1Basis = append(d1Basis, b...)
		if failure != nil {
			d1 = Stage{Stage: "D1", State: "execution_failed", Err: failure.pyType + ": " + failure.msg, Basis: d1Basis}
		} else {
			d1 = Stage{Stage: "D1", State: "captured", Carrier: pyRaw(ctr.dump), Basis: d1Basis}
		}
	}

	// A2: MCPUtil.invoke_mcp_tool returns the ToolOutput, or raises; the FunctionTool wrapper turns
	// an exception into default_tool_error_function's text.
	var toolOutput any
	a2Basis := []record.Basis{}
	if failure != nil {
		var b []record.Basis
		toolOutput, b = oaFailureToolOutput(failure)
		a2Basis = append(a2Basis, b...)
	} else {
		var b record.Basis
		toolOutput, b = invokeMCPTool(ctr, cfg == "use-structured-content")
		a2Basis = append(a2Basis, b)
	}
	rawItem, b := toolCallOutputItem(oaCallID, toolOutput)
	a2Basis = append(a2Basis, b)
	item := pyD("raw_item", rawItem, "output", toolOutput, "type", "tool_call_output_item")
	a2Basis = append(a2Basis, oaBasis(
		"The run records the tool's result as a ToolCallOutputItem (a public RunItem in RunResult.new_items and in run_item_stream_event): output is the ToolOutput as returned (a str, one item dict, or a list of item dicts), raw_item the FunctionCallOutput built from it when the item is created. The carrier records these fields (agent, tool_origin and custom_data, None without an extractor, are left out).",
		"src/agents/run_internal/tool_execution.py", "(tool run).ToolCallOutputItem(output=final_result, raw_item=ItemHelpers.tool_call_output_item(...))"))

	// M3: the input item the runner hands to the model (ToolCallOutputItem.to_input_item).
	m3, mb := toInputItem(rawItem)
	// H4: the item in the body of POST /responses.
	h4, hb := buildResponseCreateKwargsInputItem(m3)

	return []Stage{
		d1,
		{Stage: "A2", State: "captured", Carrier: pyRaw(item), Basis: a2Basis},
		{Stage: "M3", State: "captured", Carrier: pyRaw(m3), Basis: []record.Basis{mb}},
		{Stage: "H4", State: "captured", Carrier: pyRaw(h4), Basis: hb},
	}
}

// oaCallToolResult is mcp's CallToolResult (mcp 1.29.0, src/mcp/types.py) as call_tool returns it.
type oaCallToolResult struct {
	dump       *pyDict // model_dump(mode="json")
	content    []*pyDict
	structured any
	isError    bool
}

// oaMCPDump is how openai-agents' D1 is dumped: model_dump(mode="json"), every declared field,
// None kept; ValidationErrors name the capture environment's pydantic.
var oaMCPDump = mcp1Dump{excludeNone: false, pydanticMinor: oaPydanticMinor}

// mcpErrorFromErrorData is McpError(ErrorData) (mcp 1.29.0, src/mcp/shared/exceptions.py): the
// JSON-RPC error member becomes the exception's error; str(e) is the message. The D1 carrier holds
// the exception as {"exception": {"type", "code", "message", "data"}}.
func mcpErrorFromErrorData(e *pyDict) (any, record.Basis) {
	msg, _ := e.get("message")
	code, _ := e.get("code")
	data, _ := e.get("data")
	exc := pyD("type", "McpError", "code", code, "message", msg, "data", data)
	return exc, oaMCPBasis(
		"A JSON-RPC error response to tools/call is raised as McpError(ErrorData); McpError.__init__ passes error.message to Exception, so str(e) is the message. The carrier holds the raised exception as {\"exception\": {\"type\": \"McpError\", \"code\", \"message\", \"data\"}}: no CallToolResult exists.",
		"src/mcp/shared/session.py, src/mcp/shared/exceptions.py", "BaseSession.send_request, McpError")
}

// mcpCallTool is ClientSession.call_tool of mcp 1.29.0: send_request validates the result with
// CallToolResult.model_validate (camelCase fields, extra="allow").
func mcpCallTool(result *pyDict) (*oaCallToolResult, *oaFailure, []record.Basis) {
	bases := []record.Basis{
		oaMCPBasis("The stdio transport validates each line as a JSONRPCMessage with pydantic's JSON parser: JSON integers become exact Python ints, numbers with a fraction or an exponent Python floats (IEEE doubles).",
			"src/mcp/client/stdio/__init__.py", "stdio_client (stdout_reader)"),
		oaMCPBasis("send_request validates the result as CallToolResult (pydantic, extra=\"allow\"): content a list of TextContent, ImageContent, AudioContent, ResourceLink or EmbeddedResource; structuredContent dict[str, Any] | None (any other JSON value raises ValidationError before a result exists); isError bool defaulting to False; meta aliased from _meta; resource URIs pydantic AnyUrl; an int annotation priority a float. The D1 carrier is its model_dump(mode=\"json\"): field names (the wire's camelCase names, meta for _meta), every declared field present (None when absent, isError False), extra fields kept after the declared ones.",
			"src/mcp/types.py, src/mcp/shared/session.py", "CallToolResult, TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource, Annotations, Icon, TextResourceContents, BlobResourceContents, BaseSession.send_request"),
	}
	dump, err := oaMCPDump.callToolResult(result)
	if err != nil {
		return nil, &oaFailure{pyType: "ValidationError", msg: err.Error()}, bases
	}
	ctr := &oaCallToolResult{dump: dump, structured: pyGet(dump, "structuredContent")}
	ctr.isError, _ = pyGet(dump, "isError").(bool)
	for _, b := range pyGet(dump, "content").([]any) {
		ctr.content = append(ctr.content, b.(*pyDict))
	}
	return ctr, nil, bases
}

// invokeMCPTool is MCPUtil.invoke_mcp_tool after the call returned.
func invokeMCPTool(ctr *oaCallToolResult, useStructuredContent bool) (any, record.Basis) {
	basis := oaBasis(
		"With use_structured_content and a truthy structuredContent ({} is falsy) on a result not flagged isError, the tool output is json.dumps(structuredContent) (ensure_ascii=True, separators \", \" and \": \", floats as repr). Otherwise each content block becomes one item: text → {\"type\": \"text\", \"text\"}; image → {\"type\": \"image\", \"image_url\": \"data:<mimeType>;base64,<data>\"}; any other block → {\"type\": \"text\", \"text\": item.model_dump_json()} (compact, UTF-8, field names not aliases — mimeType, meta — every None present). One item is returned as itself, otherwise the list (an empty content list gives []). isError, meta and structuredContent reach only the custom-data extractor (none configured).",
		"src/agents/mcp/util.py", "MCPUtil.invoke_mcp_tool")
	if useStructuredContent && pyTruthy(ctr.structured) && !ctr.isError {
		return pyJSONDumps(ctr.structured, true, pyDefaultSeparators), basis
	}
	items := []any{}
	for _, b := range ctr.content {
		switch pyGet(b, "type") {
		case "text":
			items = append(items, pyD("type", "text", "text", pyGet(b, "text")))
		case "image":
			items = append(items, pyD("type", "image", "image_url", fmt.Sprintf("data:%s;base64,%s", pyGet(b, "mimeType"), pyGet(b, "data"))))
		default:
			items = append(items, pyD("type", "text", "text", pydanticDumpJSON(b)))
		}
	}
	if len(items) == 1 {
		return items[0], basis
	}
	return items, basis
}

// oaFailureToolOutput follows an exception out of invoke_mcp_tool: an MCPError is re-raised as
// is, any other exception wrapped in AgentsException; the FunctionTool's failure handler then
// returns default_tool_error_function's text as the tool output.
func oaFailureToolOutput(e *oaFailure) (any, []record.Basis) {
	msg := e.msg
	bases := []record.Basis{}
	if e.pyType != "McpError" {
		msg = fmt.Sprintf("Error invoking MCP tool %s on server '%s': %s", oaToolName, oaServerName, e.msg)
		bases = append(bases, oaBasis("An exception other than MCPError, UserError or MCPToolCancellationError from server.call_tool is raised as AgentsException(\"Error invoking MCP tool <name> on server '<server>': <e>\").",
			"src/agents/mcp/util.py", "MCPUtil.invoke_mcp_tool"))
	} else {
		bases = append(bases, oaBasis("An McpError (the SDK's MCPError, agents/mcp/_compat.py) from server.call_tool is logged and re-raised unchanged for the FunctionTool failure pipeline.",
			"src/agents/mcp/util.py", "MCPUtil.invoke_mcp_tool"))
	}
	out := defaultToolErrorFunction(msg)
	bases = append(bases, oaBasis("The wrapped FunctionTool catches the exception and returns failure_error_function(ctx, e) as the tool's output; the default is \"An error occurred while running the tool. Please try again. Error: <str(e)>\". The run continues: the model sees this text, with no error marker.",
		"src/agents/tool.py", "_FailureHandlingFunctionToolInvoker.__call__, default_tool_error_function"))
	return out, bases
}

// defaultToolErrorFunction is default_tool_error_function for an exception that is not an
// argument-parsing error.
func defaultToolErrorFunction(str string) string {
	return "An error occurred while running the tool. Please try again. Error: " + str
}

// toolCallOutputItem is ItemHelpers.tool_call_output_item for an MCP tool (no output schema, not a
// programmatic call): a str output is kept; an item or a list of items with a "type" that
// validates as ToolOutputText / ToolOutputImage / ToolOutputFileContent becomes a list of
// input_text / input_image / input_file parts (only fields that are not None are forwarded);
// anything else, including an empty list, becomes str(output).
func toolCallOutputItem(callID string, output any) (*pyDict, record.Basis) {
	basis := oaBasis(
		"The FunctionCallOutput is {\"call_id\", \"output\", \"type\": \"function_call_output\"}. output: a str stays as is; a dict item or a non-empty list of items that all validate as ToolOutputText/ToolOutputImage becomes a list of {\"type\": \"input_text\", \"text\"} / {\"type\": \"input_image\", \"image_url\"} parts (detail and file_id are None, so not forwarded); an empty list becomes str([]) == \"[]\".",
		"src/agents/items.py", "ItemHelpers.tool_call_output_item, ItemHelpers._convert_tool_output, ItemHelpers._convert_tool_output_as_structured, ItemHelpers._convert_single_tool_output_pydantic_model")
	var converted any
	switch o := output.(type) {
	case string:
		converted = o
	case *pyDict:
		if p := oaStructuredPart(o); p != nil {
			converted = []any{p}
		} else {
			converted = pyRepr(o)
		}
	case []any:
		parts := []any{}
		for _, e := range o {
			d, _ := e.(*pyDict)
			p := oaStructuredPart(d)
			if p == nil {
				parts = nil
				break
			}
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			converted = parts
		} else {
			converted = pyRepr(o)
		}
	default:
		converted = pyRepr(o)
	}
	return pyD("call_id", callID, "output", converted, "type", "function_call_output"), basis
}

// oaStructuredPart converts one ToolOutputText/ToolOutputImage dict; nil when it does not validate.
func oaStructuredPart(d *pyDict) *pyDict {
	if d == nil {
		return nil
	}
	switch pyGet(d, "type") {
	case "text":
		if t, ok := pyGet(d, "text").(string); ok {
			return pyD("type", "input_text", "text", t)
		}
	case "image":
		p := pyD("type", "input_image")
		if u, ok := pyGet(d, "image_url").(string); ok {
			p.set("image_url", u)
		}
		if id, ok := pyGet(d, "file_id").(string); ok {
			p.set("file_id", id)
		}
		if len(p.keys) == 1 {
			return nil
		}
		if det, ok := pyGet(d, "detail").(string); ok {
			p.set("detail", det)
		}
		return p
	}
	return nil
}

// toInputItem is ToolCallOutputItem.to_input_item: a shallow copy, dict(raw_item), of a
// function_call_output raw item.
func toInputItem(raw *pyDict) (*pyDict, record.Basis) {
	return raw.copy(), oaBasis(
		"The runner replays each run item as model input with to_input_item; for a dict raw_item that is not a shell_call_output it is dict(raw_item): the same call_id, output and type.",
		"src/agents/items.py", "ToolCallOutputItem.to_input_item")
}

// buildResponseCreateKwargsInputItem is the function_call_output item as
// OpenAIResponsesModel._build_response_create_kwargs puts it into input= and openai-python sends
// it: _to_dump_compatible copies it, _remove_openai_responses_api_incompatible_fields leaves it
// alone (no provider_data, no placeholder id), and responses.create serialises the TypedDict with
// its own keys.
func buildResponseCreateKwargsInputItem(item *pyDict) (*pyDict, []record.Basis) {
	return item.copy(), []record.Basis{
		oaBasis("The input list is ItemHelpers.input_to_new_input_list(input), made dump-compatible and cleaned of provider_data and FAKE_RESPONSES_ID ids, then passed as input= to responses.create; a function_call_output item passes unchanged.",
			"src/agents/models/openai_responses.py", "OpenAIResponsesModel._build_response_create_kwargs, OpenAIResponsesModel._remove_openai_responses_api_incompatible_fields"),
		{Rule: "FunctionCallOutput is a TypedDict (call_id, output: str | list of input_text/input_image/input_file parts, type); maybe_transform keeps its keys and the JSON body carries the item as given.",
			File: "src/openai/types/responses/response_input_item_param.py", Function: "FunctionCallOutput", Version: oaOpenAIVersion},
	}
}
