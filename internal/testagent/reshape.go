package testagent

// The modes below change what the agent sends its model in place of a tool result, as real
// clients do (issue 40), so that the visibility readout is tested on what they send.
const (
	// ModeRejectResult calls the tool and sends the model, in place of every result, an MCP
	// error of its own: a client that rejects the result it was served (as a client of the
	// 2026-07-28 revision rejected a result without resultType) and sends its error on instead.
	ModeRejectResult = "reject-result"
	// ModeTagLines sends the model each result's texts, joined by newlines, as one text between
	// two tag lines (<untrusted_context> and </untrusted_context>), as gemini-cli does.
	ModeTagLines = "tag-lines"
)

// RejectedResult is the error a ModeRejectResult agent sends its model in place of a result.
const RejectedResult = "result rejected by the client: missing required resultType"

func init() {
	// Registered here rather than in the list of modes, which other modes extend.
	modes = append(modes, ModeRejectResult, ModeTagLines)
}

// reshape is what an agent in mode sends its model for a tool's outcome.
func reshape(mode string, out toolOutput) toolOutput {
	switch mode {
	case ModeRejectResult:
		return toolOutput{rpcErr: &rpcError{Code: -32603, Message: RejectedResult}}
	case ModeTagLines:
		wrapped := "<untrusted_context>\n" + out.joined() + "\n</untrusted_context>"
		return toolOutput{blocks: []mcpBlock{{Type: "text", Text: wrapped}}, isError: out.isError}
	}
	return out
}
