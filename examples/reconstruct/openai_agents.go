package main

// Lane openai-agents: openai-agents-python 0.22.0 with the MCP Python SDK its lock file pins
// (mcp 2.0.0) as its client and openai-python 3.0.0 as its provider SDK. Each rule below is one
// Python function, applied to the fixture as the framework would receive it from contractcheck's
// raw fixture server over MCPServerStdio (name "contractcheck-fixture", default options: no
// custom-data extractor, no meta resolver, failure_error_function left unset so the agent's
// default_tool_error_function applies) and an OpenAIResponsesModel pointed at a local provider
// that answers with one function_call (call_id "call_fixture_tool_1") to fixture_tool.

import (
	"fmt"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

const (
	oaVersion       = "0.22.0"
	oaMCPVersion    = "mcp 2.0.0 (openai-agents 0.22.0 uv.lock)"
	oaOpenAIVersion = "openai 3.0.0 (openai-agents 0.22.0 uv.lock)"
	// oaPydanticMinor is the pydantic the 0.22.0 lock file pins (2.12.3): it names the error URL.
	oaPydanticMinor = "2.12"
	oaServerName    = "contractcheck-fixture"
	oaToolName      = "fixture_tool"
	oaCallID        = "call_fixture_tool_1"
	// oaNegotiated is the protocol version the mcp 2.0.0 client settles on with the raw server:
	// Client(mode="auto") probes server/discover (2026-07-28), the server answers -32601, and
	// negotiate_auto falls back to initialize at LATEST_HANDSHAKE_VERSION.
	oaNegotiated = "2025-11-25"
)

// oaStructuredFixtures are the fixtures of the families the use-structured-content configuration
// applies to (contracts/fixtures.cue: structured, structured-stress, structured-2026, numbers, and
// content-edge X09).
var oaStructuredFixtures = map[string]bool{
	"C01": true, "C03": true, "C05": true, "C06": true, "X12": true, // structured
	"C02": true, "C04": true, // structured-stress
	"X01": true, "X02": true, "X03": true, // structured-2026
	"X08": true, // numbers
	"X09": true, // content-edge: empty content with structuredContent
}

func init() {
	register(&Lane{
		ID:      "openai-agents",
		Version: oaVersion,
		Configurations: map[string]func(string) bool{
			"default":                nil,
			"use-structured-content": func(id string) bool { return oaStructuredFixtures[id] },
		},
		Reconstruct: reconstructOpenAIAgents,
	})
}

func oaBasis(rule, file, function string) record.Basis {
	return record.Basis{Rule: rule, File: file, Function: function, Version: "openai-agents " + oaVersion}
}

func oaMCPBasis(rule, file, function string) record.Basis {
	return record.Basis{Rule: rule, File: file, Function: function, Version: oaMCPVersion}
}

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
		failure = &oaFailure{pyType: "MCPError", msg: exc.(*pyDict).m["message"].(string)}
		d1 = Stage{Stage: "D1", State: "captured", Carrier: pyRaw(pyD("exception", exc)), Basis: d1Basis}
	} else {
		var b []record.Basis
		ctr, failure, b = mcpV2CallTool(result)
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

// oaCallToolResult is mcp_types.CallToolResult (the version-superset model mcp 2.0.0 returns).
type oaCallToolResult struct {
	dump       *pyDict // model_dump(mode="json")
	content    []*pyDict
	structured any
	isError    bool
}

// mcpErrorFromErrorData is MCPError.from_error_data (mcp 2.0.0, src/mcp/shared/exceptions.py):
// the JSON-RPC error member becomes MCPError(code, message, data); str(e) is the message. The D1
// carrier holds the exception as {"exception": {"type", "code", "message", "data"}}.
func mcpErrorFromErrorData(e *pyDict) (any, record.Basis) {
	msg, _ := e.get("message")
	code, _ := e.get("code")
	data, _ := e.get("data")
	exc := pyD("type", "MCPError", "code", code, "message", msg, "data", data)
	return exc, oaMCPBasis(
		"A JSON-RPC error response to tools/call is raised as MCPError(code, message, data); MCPError.__str__ returns the message. The carrier holds the raised exception as {\"exception\": {\"type\": \"MCPError\", \"code\", \"message\", \"data\"}}: no CallToolResult exists.",
		"src/mcp/shared/exceptions.py", "MCPError.from_error_data, MCPError.__str__")
}

// mcpV2CallTool is ClientSession.call_tool of mcp 2.0.0 on a session negotiated at 2025-11-25:
// send_request validates the raw result against the negotiated version's wire model
// (mcp_types.methods.validate_server_result), then the discriminated call-tool adapter validates it
// into the version-superset mcp_types.CallToolResult (by alias: by_name=False).
func mcpV2CallTool(result *pyDict) (*oaCallToolResult, *oaFailure, []record.Basis) {
	bases := []record.Basis{
		oaMCPBasis("The stdio transport parses each line with pydantic (jsonrpc_message_adapter.validate_json): JSON integers become exact Python ints, numbers with a fraction or an exponent Python floats (IEEE doubles).",
			"src/mcp/client/stdio.py", "stdio_client (stdout_reader)"),
	}
	if errs := validateServerResult(result); len(errs) > 0 {
		bases = append(bases, oaMCPBasis(
			"send_request validates the result against the wire model of the negotiated version (2025-11-25 here: Client(mode=\"auto\") falls back to initialize when server/discover is unknown); v2025_11_25.CallToolResult types structuredContent as dict[str, Any] | None, so any other JSON value raises pydantic.ValidationError before a CallToolResult exists.",
			"src/mcp/client/session.py, src/mcp-types/mcp_types/methods.py", "ClientSession.send_request, validate_server_result, serialize_server_result"))
		return nil, &oaFailure{pyType: "ValidationError", msg: pydanticValidationError("CallToolResult", oaPydanticMinor, errs...)}, bases
	}
	ctr, errs := callToolResultModelValidate(result)
	bases = append(bases, oaMCPBasis(
		"The version-superset mcp_types.CallToolResult (MCPModel: alias_generator=to_camel, extra ignored) holds meta (_meta, None when absent), content, structured_content (Any, default None: absent and null merge), is_error (bool, default False: absent becomes False) and result_type (default \"complete\"). Content blocks are TextContent, ImageContent, AudioContent, ResourceLink and EmbeddedResource with snake_case fields (mime_type, last_modified, meta) and every optional field defaulting to None; uri is a plain str (no URL normalisation in mcp 2.x). The D1 carrier is its model_dump(mode=\"json\") (field names, not aliases; None kept; floats as Python floats).",
		"src/mcp-types/mcp_types/_types.py", "CallToolResult, TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource, Annotations, Icon, TextResourceContents, BlobResourceContents"))
	if len(errs) > 0 {
		return nil, &oaFailure{pyType: "ValidationError", msg: pydanticValidationError("CallToolResult", oaPydanticMinor, errs...)}, bases
	}
	return ctr, nil, bases
}

// validateServerResult checks the fields v2025_11_25.CallToolResult types (extra="ignore"):
// content a list, structuredContent a dict or null, isError a bool or null, _meta a dict or null.
// Content blocks are checked for a known type only.
func validateServerResult(r *pyDict) []pydanticError {
	var errs []pydanticError
	c, ok := r.get("content")
	switch {
	case !ok:
		errs = append(errs, pydanticError{loc: "content", msg: "Field required", typ: "missing", input: r})
	default:
		if l, isList := c.([]any); !isList {
			errs = append(errs, pydanticError{loc: "content", msg: "Input should be a valid list", typ: "list_type", input: c})
		} else {
			for i, b := range l {
				bd, _ := b.(*pyDict)
				t, _ := bd.get("type")
				switch t {
				case "text", "image", "audio", "resource_link", "resource":
				default:
					errs = append(errs, pydanticError{loc: fmt.Sprintf("content.%d", i), msg: "Input tag does not match any of the expected tags", typ: "union_tag_invalid", input: b})
				}
			}
		}
	}
	if sc, ok := r.get("structuredContent"); ok && sc != nil {
		if _, isDict := sc.(*pyDict); !isDict {
			errs = append(errs, pydanticError{loc: "structuredContent", msg: "Input should be a valid dictionary", typ: "dict_type", input: sc})
		}
	}
	if ie, ok := r.get("isError"); ok && ie != nil {
		if _, isBool := ie.(bool); !isBool {
			errs = append(errs, pydanticError{loc: "isError", msg: "Input should be a valid boolean", typ: "bool_type", input: ie})
		}
	}
	if m, ok := r.get("_meta"); ok && m != nil {
		if _, isDict := m.(*pyDict); !isDict {
			errs = append(errs, pydanticError{loc: "_meta", msg: "Input should be a valid dictionary", typ: "dict_type", input: m})
		}
	}
	return errs
}

// callToolResultModelValidate builds mcp_types.CallToolResult from the wire dict and dumps it.
func callToolResultModelValidate(r *pyDict) (*oaCallToolResult, []pydanticError) {
	ctr := &oaCallToolResult{}
	meta, _ := r.get("_meta")
	sc, _ := r.get("structuredContent")
	ie, hasIE := r.get("isError")
	if hasIE && ie == nil {
		// is_error: bool = False in the superset model: an explicit null is not a bool.
		return nil, []pydanticError{{loc: "isError", msg: "Input should be a valid boolean", typ: "bool_type", input: nil}}
	}
	ctr.isError, _ = ie.(bool)
	ctr.structured = sc
	rt, ok := r.get("resultType")
	if !ok {
		rt = "complete"
	}
	c, _ := r.get("content")
	blocks := []any{}
	for _, b := range c.([]any) {
		d := mcpV2BlockDump(b.(*pyDict))
		ctr.content = append(ctr.content, d)
		blocks = append(blocks, d)
	}
	ctr.dump = pyD("meta", meta, "content", blocks, "structured_content", sc, "is_error", ctr.isError, "result_type", rt)
	return ctr, nil
}

// mcpV2AnnotationsDump is Annotations.model_dump(mode="json"): audience, priority (a float: an
// int priority is coerced), last_modified; None when the block has none.
func mcpV2AnnotationsDump(v any) any {
	a, ok := v.(*pyDict)
	if !ok {
		return nil
	}
	p := pyGet(a, "priority")
	if i, isInt := p.(pyInt); isInt {
		p = pyNumber(string(i) + ".0")
	}
	return pyD("audience", pyGet(a, "audience"), "priority", p, "last_modified", pyGet(a, "lastModified"))
}

// mcpV2IconsDump is [Icon.model_dump(mode="json")]: src, mime_type, sizes, theme.
func mcpV2IconsDump(v any) any {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := []any{}
	for _, e := range l {
		i := e.(*pyDict)
		out = append(out, pyD("src", pyGet(i, "src"), "mime_type", pyGet(i, "mimeType"), "sizes", pyGet(i, "sizes"), "theme", pyGet(i, "theme")))
	}
	return out
}

// mcpV2BlockDump is model_dump(mode="json") of one superset content block, fields in declaration
// order (inherited fields first).
func mcpV2BlockDump(b *pyDict) *pyDict {
	ann := mcpV2AnnotationsDump(pyGet(b, "annotations"))
	meta := pyGet(b, "_meta")
	switch pyGet(b, "type") {
	case "text":
		return pyD("type", "text", "text", pyGet(b, "text"), "annotations", ann, "meta", meta)
	case "image", "audio":
		return pyD("type", pyGet(b, "type"), "data", pyGet(b, "data"), "mime_type", pyGet(b, "mimeType"), "annotations", ann, "meta", meta)
	case "resource_link":
		return pyD("name", pyGet(b, "name"), "title", pyGet(b, "title"), "uri", pyGet(b, "uri"),
			"description", pyGet(b, "description"), "mime_type", pyGet(b, "mimeType"), "size", pyGet(b, "size"),
			"icons", mcpV2IconsDump(pyGet(b, "icons")), "annotations", ann, "meta", meta, "type", "resource_link")
	default: // resource
		r := pyGet(b, "resource").(*pyDict)
		rd := pyD("uri", pyGet(r, "uri"), "mime_type", pyGet(r, "mimeType"), "meta", pyGet(r, "_meta"))
		if t, ok := r.get("text"); ok {
			rd.set("text", t)
		} else {
			rd.set("blob", pyGet(r, "blob"))
		}
		return pyD("type", "resource", "resource", rd, "annotations", ann, "meta", meta)
	}
}

// invokeMCPTool is MCPUtil.invoke_mcp_tool after the call returned.
func invokeMCPTool(ctr *oaCallToolResult, useStructuredContent bool) (any, record.Basis) {
	basis := oaBasis(
		"With use_structured_content and a truthy structured_content ({} and [] are falsy) on a result not flagged is_error, the tool output is json.dumps(structured_content) (ensure_ascii=True, separators \", \" and \": \", floats as repr). Otherwise each content block becomes one item: text → {\"type\": \"text\", \"text\"}; image → {\"type\": \"image\", \"image_url\": \"data:<mime_type>;base64,<data>\"}; any other block → {\"type\": \"text\", \"text\": item.model_dump_json()} (compact, UTF-8, field names not aliases, every None present). One item is returned as itself, otherwise the list (an empty content list gives []). is_error, meta and structured_content reach only the custom-data extractor (none configured).",
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
			items = append(items, pyD("type", "image", "image_url", fmt.Sprintf("data:%s;base64,%s", pyGet(b, "mime_type"), pyGet(b, "data"))))
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
	if e.pyType != "MCPError" {
		msg = fmt.Sprintf("Error invoking MCP tool %s on server '%s': %s", oaToolName, oaServerName, e.msg)
		bases = append(bases, oaBasis("An exception other than MCPError, UserError or MCPToolCancellationError from server.call_tool is raised as AgentsException(\"Error invoking MCP tool <name> on server '<server>': <e>\").",
			"src/agents/mcp/util.py", "MCPUtil.invoke_mcp_tool"))
	} else {
		bases = append(bases, oaBasis("An MCPError from server.call_tool is logged and re-raised unchanged for the FunctionTool failure pipeline.",
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
