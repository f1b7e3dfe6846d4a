package main

// Lane langchain-mcp-adapters: langchain-mcp-adapters 0.3.2 (read at its git tag) with langchain-core
// 1.x. A tool from load_mcp_tools is a StructuredTool with response_format="content_and_artifact";
// the agent's ToolNode runs it with the model's tool call and gets a ToolMessage, which is both
// the application's carrier (A2: content, artifact, status) and what the chat model integration
// receives (M3: the same object; only content and status are read for the model).

import (
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

const (
	lcLane           = "langchain-mcp-adapters"
	lcVersion        = "0.3.2"
	lcAdapterVersion = "langchain-mcp-adapters 0.3.2"
	lcCoreVersion    = "langchain-core 1.x (unversioned copy in the search index; langchain 1.4 requires it)"
	// lcToolCallID and lcToolName are what the agent loop passes: the model's tool call id (a
	// fixed value here; a real provider draws one) and the MCP tool's name.
	lcToolCallID = "call_fixture_tool_1"
	lcToolName   = "fixture_tool"
	// lcInterceptorConfig is the configuration with the documented interceptor
	// append_structured_content (LangChain docs, MCP page, "Appending structured content via
	// interceptor") in tool_interceptors.
	lcInterceptorConfig = "append-structured-content"
)

func init() {
	register(&Lane{
		ID:      lcLane,
		Version: lcVersion,
		Configurations: map[string]func(string) bool{
			"default":           nil,
			lcInterceptorConfig: isStructured, // the interceptor configuration applies to them only
		},
		Reconstruct: reconstructLangChain,
	})
}

func lcAdapterBasis(rule, function string) record.Basis {
	return record.Basis{Rule: rule, File: "langchain_mcp_adapters/tools.py", Function: function, Version: lcAdapterVersion}
}

var lcCoreBasis = basisOf(lcCoreVersion)

// lcFailure is an exception the tool call raises and nothing in the adapter turns into a
// ToolMessage: it propagates out of the tool (only ToolException reaches handle_tool_error).
type lcFailure struct {
	msg   string
	basis []record.Basis
}

func (f *lcFailure) Error() string { return f.msg }

// reconstructLangChain returns D1, A2, M3 and H4 for one fixture.
func reconstructLangChain(cfg string, f record.Fixture, _ map[string]any) []Stage {
	d1 := Stage{Stage: "D1", State: "not_observable", Basis: []record.Basis{lcAdapterBasis(
		"The decoded CallToolResult is handed straight from ClientSession.call_tool to the interceptor chain and _convert_call_tool_result; the adapter exposes no seam for it (an interceptor could see it, which this lane does not model).",
		"convert_mcp_tool_to_langchain_tool.call_tool.execute_tool")}}
	h4 := Stage{Stage: "H4", State: "not_applicable", Basis: []record.Basis{lcAdapterBasis(
		"The adapter ends at the ToolMessage; the provider request body belongs to whichever chat model integration the application picks, so the lane has no H4 of its own.",
		"convert_mcp_tool_to_langchain_tool")}}
	msg, basis, err := lcToolMessage(cfg, f)
	if err != nil {
		fail := err.(*lcFailure)
		return []Stage{d1,
			{Stage: "A2", State: "execution_failed", Err: fail.msg, Basis: fail.basis},
			{Stage: "M3", State: "not_reached", Basis: fail.basis},
			h4}
	}
	m3Basis := append(append([]record.Basis{}, basis...), lcCoreBasis(
		"The agent loop appends the ToolMessage to the message list and the chat model integration converts that same object: content (and status) are what the model integration reads; artifact is documented as not meant to be sent to the model.",
		"libs/core/langchain_core/messages/tool.py", "ToolMessage (artifact, status)"))
	return []Stage{d1,
		{Stage: "A2", State: "captured", Carrier: msg, Basis: basis},
		{Stage: "M3", State: "captured", Carrier: msg, Basis: m3Basis},
		h4}
}

// lcToolMessage runs the rules from the served bytes to the ToolMessage the tool returns.
func lcToolMessage(cfg string, f record.Fixture) (*pyDict, []record.Basis, error) {
	src, err := pyLoads(f.Bytes)
	if err != nil {
		return nil, nil, &lcFailure{msg: err.Error()}
	}
	basis := []record.Basis{}
	result, err := sendRequest(src)
	basis = append(basis, mcp1Basis(
		"ClientSession.send_request raises McpError(error.message) for a JSON-RPC error response and otherwise validates the result with CallToolResult.model_validate (a ValidationError propagates): isError defaults to False, structuredContent must be an object or null, numbers in Any-typed values become Python int (exact) or float (IEEE double), AnyUrl fields are normalised, unknown fields are kept as extras.",
		"src/mcp/shared/session.py, src/mcp/types.py", "BaseSession.send_request, CallToolResult"))
	if err != nil {
		return nil, nil, &lcFailure{msg: err.Error(), basis: append(basis, lcAdapterBasis(
			"An exception from session.call_tool is not a ToolException: it propagates out of the tool and the agent run fails.",
			"convert_mcp_tool_to_langchain_tool.call_tool.execute_tool"))}
	}
	if cfg == lcInterceptorConfig {
		result = appendStructuredContent(result)
		basis = append(basis, lcAdapterBasis(
			"tool_interceptors=[append_structured_content] (LangChain docs, MCP, \"Appending structured content via interceptor\"): when result.structuredContent is truthy ({} and None are not), TextContent(type=\"text\", text=json.dumps(result.structuredContent)) is appended to result.content before conversion; json.dumps writes Python's values (ensure_ascii, \", \" and \": \" separators, float repr).",
			"_build_interceptor_chain"))
	}
	content, artifact, err := convertCallToolResult(result)
	basis = append(basis,
		lcAdapterBasis(
			"Each MCP block becomes a LangChain block: text → create_text_block(text); image → create_image_block(base64=data, mime_type); audio raises NotImplementedError; resource_link → create_image_block(url=str(uri), mime_type) for image/* MIME types, else create_file_block(url=str(uri), mime_type or None); embedded text resource → create_text_block(resource.text); embedded blob → image or file block with base64=blob. Annotations, block _meta, descriptors and the embedded URI are not carried.",
			"_convert_mcp_content_to_lc_block"),
		lcCoreBasis(
			"The block factories give every block an id from ensure_id: lc_<uuid4>, drawn at random (the reconstruction writes a fixed lc_00000000-0000-4000-8000-<position> instead); a base64 block without mime_type raises ValueError.",
			"libs/core/langchain_core/messages/content.py", "create_text_block, create_image_block, create_file_block"),
		lcAdapterBasis(
			"isError true raises _MCPToolExecutionError(tool_content); otherwise the artifact is MCPToolArtifact(structured_content=structuredContent) when structuredContent is not None, else None; result _meta is dropped.",
			"_convert_call_tool_result"))
	status := "success"
	if err != nil {
		te, ok := err.(*lcToolExecutionError)
		if !ok {
			return nil, nil, &lcFailure{msg: err.Error(), basis: append(basis, lcAdapterBasis(
				"Content-conversion errors (NotImplementedError for audio, ValueError) are not ToolException subclasses: they bypass handle_tool_error and propagate.",
				"_handle_mcp_tool_error"))}
		}
		content, artifact, status = handleMCPToolError(te), nil, "error"
		basis = append(basis,
			lcAdapterBasis(
				"handle_tool_errors=True (the default) installs _handle_mcp_tool_error: an _MCPToolExecutionError becomes its content blocks (or one text block with the summary when the error carried no content).",
				"_handle_mcp_tool_error"),
			lcCoreBasis(
				"A ToolException caught by BaseTool.arun becomes content = handle_tool_error(e), status \"error\", artifact None.",
				"libs/core/langchain_core/tools/base.py", "BaseTool.arun"))
	}
	msg := formatOutput(content, artifact, status)
	basis = append(basis, lcCoreBasis(
		"With a tool call id, _format_output wraps (content, artifact) in ToolMessage(content, artifact=artifact, tool_call_id, name, status): a list whose items all have a type in TOOL_MESSAGE_BLOCK_TYPES (text, image, file, …) is kept as a list, anything else is json.dumps'd. The carrier is ToolMessage.model_dump(): content, additional_kwargs, response_metadata, type, name, id, tool_call_id, artifact, status.",
		"libs/core/langchain_core/tools/base.py, libs/core/langchain_core/messages/tool.py", "_format_output, ToolMessage"))
	return msg, basis, nil
}

// sendRequest is ClientSession.call_tool up to the validated result (served bytes → Python
// objects): a JSON-RPC error response raises McpError with the error's message.
func sendRequest(src any) (*pyDict, error) {
	served := src
	if env, ok := src.(*pyDict); ok {
		if _, rpc := env.get("jsonrpc"); rpc {
			if e, isErr := env.get("error"); isErr {
				msg := ""
				if ed, ok := e.(*pyDict); ok {
					msg, _ = pyString(ed, "message")
				}
				return nil, fmt.Errorf("%s", msg)
			}
			served, _ = env.get("result")
		}
	}
	return mcp1CallToolResult(served)
}

// appendStructuredContent is the documented interceptor.
func appendStructuredContent(result *pyDict) *pyDict {
	sc, _ := result.get("structuredContent")
	if !pyTruthy(sc) {
		return result
	}
	content := pyGet(result, "content").([]any)
	return result.copy().set("content", append(append([]any{}, content...),
		newPyDict().set("type", "text").set("text", pyJSONDumps(sc, true, pyDefaultSeparators))))
}

// lcToolExecutionError is _MCPToolExecutionError: it carries the converted blocks.
type lcToolExecutionError struct{ content []any }

func (e *lcToolExecutionError) Error() string { return summarizeToolError(e.content) }

// summarizeToolError is _summarize_tool_error.
func summarizeToolError(content []any) string {
	var parts []string
	for _, b := range content {
		d := b.(*pyDict)
		if t, _ := pyString(d, "type"); t == "text" {
			s, _ := pyString(d, "text")
			parts = append(parts, s)
		}
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, "\n")
	case len(content) > 0:
		return fmt.Sprintf("MCP tool returned an error with no text content (%d non-text content block(s)).", len(content))
	}
	return "MCP tool returned an error with empty content."
}

// handleMCPToolError is _handle_mcp_tool_error for an _MCPToolExecutionError.
func handleMCPToolError(e *lcToolExecutionError) []any {
	if len(e.content) > 0 {
		return e.content
	}
	return []any{createTextBlock(e.Error(), 1)}
}

// convertCallToolResult is _convert_call_tool_result: (content blocks, artifact or nil).
func convertCallToolResult(result *pyDict) ([]any, any, error) {
	raw, _ := result.get("content")
	blocks := raw.([]any)
	content := make([]any, 0, len(blocks))
	for i, b := range blocks {
		lc, err := convertMCPContentToLCBlock(b.(*pyDict), i+1)
		if err != nil {
			return nil, nil, err
		}
		content = append(content, lc)
	}
	if isErr, _ := result.get("isError"); isErr == true {
		return nil, nil, &lcToolExecutionError{content: content}
	}
	if sc, ok := result.get("structuredContent"); ok && sc != nil {
		return content, newPyDict().set("structured_content", sc), nil
	}
	return content, nil, nil
}

// convertMCPContentToLCBlock is _convert_mcp_content_to_lc_block; pos numbers the placeholder id.
func convertMCPContentToLCBlock(b *pyDict, pos int) (*pyDict, error) {
	typ, _ := pyString(b, "type")
	switch typ {
	case "text":
		text, _ := pyString(b, "text")
		return createTextBlock(text, pos), nil
	case "image":
		data, _ := pyString(b, "data")
		mime, _ := pyString(b, "mimeType")
		return createMediaBlock("image", "", data, mime, pos)
	case "audio":
		mime, _ := pyString(b, "mimeType")
		return nil, fmt.Errorf("AudioContent conversion to LangChain content blocks is not yet supported. Received audio with mime type: %s", mime)
	case "resource_link":
		uri, _ := pyString(b, "uri")
		mime, _ := pyString(b, "mimeType") // `content.mimeType or None`: "" counts as None
		if strings.HasPrefix(mime, "image/") {
			return createMediaBlock("image", uri, "", mime, pos)
		}
		return createMediaBlock("file", uri, "", mime, pos)
	case "resource":
		rv, _ := b.get("resource")
		r := rv.(*pyDict)
		if text, ok := pyString(r, "text"); ok {
			return createTextBlock(text, pos), nil
		}
		blob, _ := pyString(r, "blob")
		mime, _ := pyString(r, "mimeType")
		if strings.HasPrefix(mime, "image/") {
			return createMediaBlock("image", "", blob, mime, pos)
		}
		return createMediaBlock("file", "", blob, mime, pos)
	}
	return nil, fmt.Errorf("Unknown MCP content type: %s", typ)
}

// lcBlockID stands in for ensure_id(None), which draws lc_<uuid4>.
func lcBlockID(pos int) string { return fmt.Sprintf("lc_00000000-0000-4000-8000-%012d", pos) }

// createTextBlock is create_text_block(text).
func createTextBlock(text string, pos int) *pyDict {
	return newPyDict().set("type", "text").set("text", text).set("id", lcBlockID(pos))
}

// createMediaBlock is create_image_block / create_file_block with url or base64 and mime_type
// ("" is None).
func createMediaBlock(kind, url, base64, mime string, pos int) (*pyDict, error) {
	if url == "" && base64 == "" {
		return nil, fmt.Errorf("Must provide one of: url, base64, or file_id")
	}
	if base64 != "" && mime == "" {
		return nil, fmt.Errorf("mime_type is required when using base64 data")
	}
	b := newPyDict().set("type", kind).set("id", lcBlockID(pos))
	if url != "" {
		b.set("url", url)
	}
	if base64 != "" {
		b.set("base64", base64)
	}
	if mime != "" {
		b.set("mime_type", mime)
	}
	return b, nil
}

// lcToolMessageBlockTypes is TOOL_MESSAGE_BLOCK_TYPES.
var lcToolMessageBlockTypes = map[string]bool{"text": true, "image_url": true, "image": true, "json": true,
	"search_result": true, "custom_tool_call_output": true, "document": true, "file": true}

// formatOutput is _format_output followed by ToolMessage.model_dump().
func formatOutput(content []any, artifact any, status string) *pyDict {
	var c any = content
	for _, b := range content {
		t, _ := pyString(b.(*pyDict), "type")
		if !lcToolMessageBlockTypes[t] {
			c = pyJSONDumps(content, false, pyDefaultSeparators) // _stringify: json.dumps(ensure_ascii=False); no fixture reaches it
			break
		}
	}
	return newPyDict().
		set("content", c).
		set("additional_kwargs", newPyDict()).
		set("response_metadata", newPyDict()).
		set("type", "tool").
		set("name", lcToolName).
		set("id", nil).
		set("tool_call_id", lcToolCallID).
		set("artifact", artifact).
		set("status", status)
}
