package main

// Lane agent-framework: Microsoft Agent Framework for Python, core and OpenAI integration at the
// python-1.13.0 tag (agent-framework-core 1.13.0 and agent-framework-openai; 1.17.0 is not in the
// repository snapshot, 1.13.0 is its newest release), with the MCP Python SDK 1.29.0 (core
// requires mcp>=1.24.0,<2) and openai-python 3.0.0: the versions examples/capture/python runs, so
// that the reconstruction can be checked against the capture (reality_test.go); the lane's
// observations are the captured ones. Each rule below is one
// Python function, applied to the fixture as MCPStdioTool would receive it from contractcheck's
// raw fixture server, invoked by the function-invocation loop of an Agent on OpenAIChatClient (the
// Responses API client) with the default FunctionInvocationConfiguration (include_detailed_errors
// False), against a local provider that answers with one function_call (call_id
// "call_fixture_tool_1", item id "fc_fixture_tool_1", status "completed") to fixture_tool, non-
// streaming.

import (
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

const (
	afVersion       = "1.13.0"
	afMCPVersion    = "mcp 1.29.0"
	afOpenAIVersion = "openai 3.0.0"
	// afPydanticMinor is the pydantic of the capture environment (Debian's 2.14.1): it names the
	// error URL of a ValidationError.
	afPydanticMinor = "2.14"
	afCallID        = "call_fixture_tool_1"
	afFCID          = "fc_fixture_tool_1"
	afToolName      = "fixture_tool"
)

func init() {
	register(&Lane{
		ID:             "agent-framework",
		Version:        afVersion,
		Configurations: map[string]func(string) bool{"default": nil},
		Reconstruct:    reconstructAgentFramework,
		CapturedBy:     "examples/capture/agent-framework",
	})
}

var (
	afBasis    = basisOf("agent-framework python-" + afVersion)
	afMCPBasis = basisOf(afMCPVersion)
)

// afException is a Python exception on the way from the wire to the function result.
type afException struct {
	str string // str(e)
}

func reconstructAgentFramework(_ string, f record.Fixture, _ map[string]any) []Stage {
	v, err := pyLoads(f.Bytes)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", f.ID, err))
	}
	result, rpcErr := mcpServed(v)

	bases := []record.Basis{}
	items, exc, b := afCallToolWithRetries(result, rpcErr)
	bases = append(bases, b...)
	var fr *pyDict
	fcProps := pyD("fc_id", afFCID, "status", "completed")
	if exc != nil {
		fr, b = functionExecutionErrorResult(exc, fcProps)
	} else {
		fr, b = autoInvokeFunction(items, fcProps)
	}
	bases = append(bases, b...)

	d1 := Stage{Stage: "D1", State: "not_observable", Basis: []record.Basis{afBasis(
		"MCPTool.call_tool hands the decoded CallToolResult straight to its parser (_parse_tool_result_from_mcp, or a user's parse_tool_results callback) and returns only the parsed Content list: there is no public seam for the SDK object.",
		"python/packages/core/agent_framework/_mcp.py", "MCPTool.call_tool, MCPTool._call_tool_with_retries")}}
	a2 := Stage{Stage: "A2", State: "captured", Carrier: pyRaw(fr), Basis: bases}
	m3 := Stage{Stage: "M3", State: "captured", Carrier: pyRaw(fr), Basis: append(append([]record.Basis{}, bases...),
		afBasis("The function_result Content stays in the tool Message of the conversation the function-invocation loop passes back to the chat client: the model integration receives the very object the application sees (A2). It reads call_id, result and items (and additional_properties only for shell-output and prompt-cache keys); it never reads exception or the _meta copied into additional_properties.",
			"python/packages/core/agent_framework/_tools.py", "_auto_invoke_function (function-invocation loop)"))}
	h4, hb, herr := prepareContentForOpenAIFunctionResult(fr)
	h := Stage{Stage: "H4", State: "captured", Carrier: pyRaw(h4), Basis: hb}
	if herr != "" {
		h = Stage{Stage: "H4", State: "execution_failed", Err: herr, Basis: hb}
	}
	return []Stage{d1, a2, m3, h}
}

// afCallToolWithRetries is MCPTool._call_tool_with_retries around mcp 1.29.0
// ClientSession.call_tool: a JSON-RPC error response is McpError, an invalid result a pydantic
// ValidationError, an isError result a ToolExecutionException with the joined text; otherwise the
// parser (_parse_tool_result_from_mcp) turns the result into a list of Content.
func afCallToolWithRetries(result, rpcErr *pyDict) ([]*pyDict, *afException, []record.Basis) {
	bases := []record.Basis{}
	if rpcErr != nil {
		msg, _ := rpcErr.get("message")
		m := msg.(string)
		inner := "McpError(" + pyReprStr(m) + ")"
		bases = append(bases,
			afMCPBasis("A JSON-RPC error response is raised as McpError(ErrorData); McpError.__init__ passes error.message to Exception, so repr(e) is McpError('<message>').",
				"src/mcp/shared/session.py, src/mcp/shared/exceptions.py", "BaseSession.send_request, McpError.__init__"),
			afBasis("An McpError that is not a terminated session is raised as ToolExecutionException(error.message, inner_exception=e); AgentFrameworkException passes (message, inner_exception) to Exception, so str(exc) is the tuple repr \"('<message>', McpError('<message>'))\".",
				"python/packages/core/agent_framework/_mcp.py, python/packages/core/agent_framework/exceptions.py", "MCPTool._call_tool_with_retries, AgentFrameworkException.__init__"))
		return nil, &afException{str: "(" + pyReprStr(m) + ", " + inner + ")"}, bases
	}
	if errs := mcpV1CallToolResultValidate(result); len(errs) > 0 {
		ve := pydanticValidationError("CallToolResult", afPydanticMinor, errs...)
		msg := fmt.Sprintf("Failed to call tool '%s'.", afToolName)
		bases = append(bases,
			afMCPBasis("send_request validates the result with CallToolResult.model_validate: structuredContent is dict[str, Any] | None, isError bool (default False), content a list of content blocks; anything else raises pydantic.ValidationError (repr(e) == str(e)).",
				"src/mcp/types.py, src/mcp/shared/session.py", "CallToolResult, BaseSession.send_request"),
			afBasis("Any other exception from session.call_tool is raised as ToolExecutionException(\"Failed to call tool '<name>'.\", inner_exception=e): str(exc) is the tuple repr of (message, e).",
				"python/packages/core/agent_framework/_mcp.py", "MCPTool._call_tool_with_retries"))
		return nil, &afException{str: "(" + pyReprStr(msg) + ", " + ve + ")"}, bases
	}
	bases = append(bases, afMCPBasis(
		"The result is mcp.types.CallToolResult (pydantic, camelCase field names, extra allowed): isError bool defaulting to False, structuredContent a dict or None, meta from _meta; resource URIs are pydantic AnyUrl (str() normalises them: lowercase scheme and host, \"/\" for an empty path).",
		"src/mcp/types.py", "CallToolResult, ResourceLink, ResourceContents"))
	items, perr, pb := parseToolResultFromMCP(result)
	bases = append(bases, pb)
	if perr != "" {
		return nil, &afException{str: fmt.Sprintf("(%s, %s)", pyReprStr(fmt.Sprintf("Failed to call tool '%s'.", afToolName)), perr)}, bases
	}
	if ie, _ := result.get("isError"); ie == true {
		texts := []string{}
		for _, it := range items {
			if pyGet(it, "type") == "text" {
				if t, _ := pyGet(it, "text").(string); t != "" {
					texts = append(texts, t)
				}
			}
		}
		text := strings.Join(texts, "\n")
		if text == "" {
			// str(parsed): a list of Content objects, whose repr is the default object repr with a
			// memory address; written here without the address.
			reprs := make([]string, len(items))
			for i := range items {
				reprs[i] = "<agent_framework._types.Content object>"
			}
			text = "[" + strings.Join(reprs, ", ") + "]"
		}
		bases = append(bases, afBasis("A result with isError true is parsed, then raised as ToolExecutionException(\"\\n\".join of the non-empty text items) (str(parsed) when there is none).",
			"python/packages/core/agent_framework/_mcp.py", "MCPTool._call_tool_with_retries"))
		return nil, &afException{str: text}, bases
	}
	return items, nil, bases
}

// mcpV1CallToolResultValidate checks the fields mcp 1.29.0 CallToolResult types.
func mcpV1CallToolResultValidate(r *pyDict) []pydanticError {
	var errs []pydanticError
	c, ok := r.get("content")
	if !ok {
		errs = append(errs, pydanticError{loc: "content", msg: "Field required", typ: "missing", input: r})
	} else if _, isList := c.([]any); !isList {
		errs = append(errs, pydanticError{loc: "content", msg: "Input should be a valid list", typ: "list_type", input: c})
	}
	if sc, ok := r.get("structuredContent"); ok && sc != nil {
		if _, isDict := sc.(*pyDict); !isDict {
			errs = append(errs, pydanticError{loc: "structuredContent", msg: "Input should be a valid dictionary", typ: "dict_type", input: sc})
		}
	}
	if ie, ok := r.get("isError"); ok {
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

// afContent is Content(...).to_dict() (exclude_none=True) for the content kinds the MCP parser
// makes, keys in to_dict's order: type, text, uri, media_type, …, additional_properties.
func afContentText(text string, props *pyDict) *pyDict {
	return pyD("type", "text", "text", text, "additional_properties", props)
}

func afContentURI(typ, uri string, mediaType any, props *pyDict) *pyDict {
	d := pyD("type", typ, "uri", uri)
	if mediaType != nil {
		d.set("media_type", mediaType)
	}
	return d.set("additional_properties", props)
}

// parseToolResultFromMCP is MCPTool._parse_tool_result_from_mcp.
func parseToolResultFromMCP(r *pyDict) ([]*pyDict, string, record.Basis) {
	basis := afBasis(
		"Each content block becomes one Content: text → text; image and audio → Content.from_data(base64.b64decode(data), mimeType): type \"data\", uri \"data:<mime>;base64,<re-encoded>\", media_type; resource_link → Content.from_uri(str(uri), media_type=mimeType): type \"uri\" (name, title, description, size, icons dropped); embedded text resource → text (uri and mimeType dropped); embedded blob resource → Content.from_uri(\"data:<mimeType or application/octet-stream>;base64,<blob>\"): type \"data\" (uri dropped). Annotations and block _meta are dropped. A result _meta (when truthy) is copied into every such item's additional_properties[\"_meta\"]. A structuredContent that is not None is appended as one more text item json.dumps(structuredContent, default=str) (ensure_ascii=True, separators \", \" and \": \", floats as repr) without the _meta copy; an empty list becomes [text \"null\"]. The carrier is Content.to_dict() (None fields left out, additional_properties kept even when empty).",
		"python/packages/core/agent_framework/_mcp.py", "MCPTool._parse_tool_result_from_mcp (with _types.py Content.from_text, Content.from_data, Content.from_uri, _validate_uri, Content.to_dict)")
	meta, _ := r.get("_meta")
	props := func() *pyDict {
		if md, ok := meta.(*pyDict); ok && len(md.keys) > 0 {
			return pyD("_meta", md.copy())
		}
		return newPyDict()
	}
	items := []*pyDict{}
	c, _ := r.get("content")
	for _, e := range c.([]any) {
		b := e.(*pyDict)
		switch pyGet(b, "type") {
		case "text":
			items = append(items, afContentText(pyGet(b, "text").(string), props()))
		case "image", "audio":
			raw, err := pyB64Decode(pyGet(b, "data").(string))
			if err != nil {
				return nil, "Error(" + pyReprStr(err.Error()) + ")", basis
			}
			mime := pyGet(b, "mimeType")
			items = append(items, afContentURI("data", fmt.Sprintf("data:%s;base64,%s", mime, pyB64Encode(raw)), mime, props()))
		case "resource_link":
			u, err := pydanticURL(pyGet(b, "uri").(string))
			if err != nil {
				u = pyGet(b, "uri").(string)
			}
			items = append(items, afContentURI("uri", u, pyGet(b, "mimeType"), props()))
		case "resource":
			res := pyGet(b, "resource").(*pyDict)
			if t, ok := res.get("text"); ok {
				items = append(items, afContentText(t.(string), props()))
			} else {
				blob := pyGet(res, "blob").(string)
				mime, _ := pyGet(res, "mimeType").(string)
				if mime == "" {
					mime = "application/octet-stream"
				}
				if !strings.HasPrefix(blob, "data:") {
					blob = fmt.Sprintf("data:%s;base64,%s", mime, blob)
				}
				items = append(items, afContentURI("data", blob, mime, props()))
			}
		}
	}
	if sc, ok := r.get("structuredContent"); ok && sc != nil {
		items = append(items, afContentText(pyJSONDumps(sc, true, pyDefaultSeparators), newPyDict()))
	}
	if len(items) == 0 {
		items = append(items, afContentText("null", props()))
	}
	return items, "", basis
}

// afFunctionResult is Content.from_function_result(call_id, result=…, exception=…,
// additional_properties=…).to_dict(): items is the list of Content, result the "\n".join of
// the non-empty text items.
func afFunctionResult(items []*pyDict, exception any, props *pyDict) *pyDict {
	texts := []string{}
	list := []any{}
	for _, it := range items {
		list = append(list, it)
		if pyGet(it, "type") == "text" {
			if t, _ := pyGet(it, "text").(string); t != "" {
				texts = append(texts, t)
			}
		}
	}
	d := pyD("type", "function_result", "call_id", afCallID)
	if exception != nil {
		d.set("exception", exception)
	}
	return d.set("result", strings.Join(texts, "\n")).set("items", list).set("additional_properties", props.copy())
}

// autoInvokeFunction is _auto_invoke_function without middleware: FunctionTool.invoke returns the
// list of Content unchanged (FunctionTool.parse_result keeps a list of Content), and it becomes
// Content.from_function_result with the function call's additional_properties.
func autoInvokeFunction(items []*pyDict, fcProps *pyDict) (*pyDict, []record.Basis) {
	return afFunctionResult(items, nil, fcProps), []record.Basis{
		afBasis("FunctionTool.invoke parses the wrapped function's list of Content with parse_result, which returns such a list as is.",
			"python/packages/core/agent_framework/_tools.py", "FunctionTool.invoke, FunctionTool.parse_result"),
		afBasis("The result becomes Content.from_function_result(call_id, result=items, additional_properties=the function call's additional_properties ({\"fc_id\", \"status\"} from the Responses output item)): items is the list of Content, result the \"\\n\".join of the non-empty text items.",
			"python/packages/core/agent_framework/_tools.py, python/packages/core/agent_framework/_types.py", "_auto_invoke_function, Content.from_function_result"),
	}
}

// functionExecutionErrorResult is _function_execution_error_result: the model gets a fixed text,
// the exception's text is kept on the Content only.
func functionExecutionErrorResult(exc *afException, fcProps *pyDict) (*pyDict, []record.Basis) {
	items := []*pyDict{afContentText("Error: Function failed.", newPyDict())}
	return afFunctionResult(items, exc.str, fcProps), []record.Basis{
		afBasis("An exception from FunctionTool.invoke becomes Content.from_function_result(call_id, result=\"Error: Function failed.\", exception=str(exc), additional_properties=the call's): with include_detailed_errors False (the default) the exception text is not appended to the result. The run continues.",
			"python/packages/core/agent_framework/_tools.py", "_auto_invoke_function, _function_execution_error_result"),
	}
}

// prepareContentForOpenAIFunctionResult is RawOpenAIChatClient._prepare_content_for_openai for a
// function_result: output is content.result or "", unless an item is of type data or uri, in which
// case the items become parts (text → input_text; data/uri by the top-level media type: image →
// input_image with detail "auto", audio wav/mp3 → input_audio, application → input_file with the
// URI as file_data, anything else dropped). A data or uri item without a media type raises
// ContentError while the request is prepared.
func prepareContentForOpenAIFunctionResult(fr *pyDict) (*pyDict, []record.Basis, string) {
	bases := []record.Basis{
		afBasis("A function_result becomes {\"call_id\", \"type\": \"function_call_output\", \"output\"}: output is content.result (the \"\\n\"-joined text) or \"\"; when SUPPORTS_RICH_FUNCTION_OUTPUT (true for the Responses client) and some item is data or uri, output is the list of parts: text → {\"type\": \"input_text\", \"text\"}; an image item → {\"type\": \"input_image\", \"image_url\": uri, \"detail\": \"auto\"}; audio with wav or mp3 in the media type → {\"type\": \"input_audio\", \"input_audio\": {\"data\": uri, \"format\"}} (not a part the Responses API accepts in function_call_output); application/* → {\"type\": \"input_file\", \"file_data\": uri} (a data URL or a plain https URL); other media types give {} and are dropped. exception and additional_properties[\"_meta\"] are not read.",
			"python/packages/openai/agent_framework_openai/_chat_client.py", "RawOpenAIChatClient._prepare_content_for_openai, RawOpenAIChatClient._prepare_message_for_openai"),
		{Rule: "responses.create sends the input items as given (FunctionCallOutput TypedDict keys).",
			File: "src/openai/types/responses/response_input_item_param.py", Function: "FunctionCallOutput", Version: afOpenAIVersion},
	}
	items := pyGet(fr, "items").([]any)
	var output any = pyGet(fr, "result")
	rich := false
	for _, e := range items {
		if t := pyGet(e.(*pyDict), "type"); t == "data" || t == "uri" {
			rich = true
		}
	}
	if rich {
		parts := []any{}
		for _, e := range items {
			it := e.(*pyDict)
			if pyGet(it, "type") == "text" {
				parts = append(parts, pyD("type", "input_text", "text", pyGet(it, "text")))
				continue
			}
			mt, ok := pyGet(it, "media_type").(string)
			if !ok {
				return nil, bases, "ContentError: no media_type found"
			}
			top := mt
			if i := strings.Index(mt, "/"); i >= 0 {
				top = mt[:i]
			}
			top = strings.ToLower(strings.TrimSpace(top))
			uri := pyGet(it, "uri")
			switch {
			case top == "image":
				parts = append(parts, pyD("type", "input_image", "image_url", uri, "detail", "auto"))
			case top == "audio" && (strings.Contains(mt, "wav") || strings.Contains(mt, "mp3")):
				format := "wav"
				if !strings.Contains(mt, "wav") {
					format = "mp3"
				}
				parts = append(parts, pyD("type", "input_audio", "input_audio", pyD("data", uri, "format", format)))
			case top == "application":
				parts = append(parts, pyD("type", "input_file", "file_data", uri))
			}
		}
		if len(parts) > 0 {
			output = parts
		}
	}
	return pyD("call_id", pyGet(fr, "call_id"), "type", "function_call_output", "output", output), bases, ""
}
