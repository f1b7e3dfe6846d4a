package testagent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// ModeModern is a client of the MCP TypeScript SDK's 2026 line, as the agent frameworks built on
// it behave: it negotiates ModernVersion through server/discover (no initialize), names that
// version and its capabilities in every request's _meta, and rejects a result without resultType
// as that SDK does (ModernRejection). A tools/call result it rejects is not a failure of the
// run: the framework hands the error's text to the model as the tool's result (isError set),
// which is what a probe of such a client used to record as captured.
const ModeModern = "modern-2026"

// ModernVersion is the revision ModeModern negotiates.
const ModernVersion = "2026-07-28"

// ModernRejection is the text of the error the TypeScript SDK's 2026 line raises for a result
// without resultType, as the frameworks forward it to the model.
const ModernRejection = "Error: Modern MCP result is missing resultType: missing required resultType — servers implementing protocol revision " + ModernVersion + " MUST include it"

func init() {
	// Registered here rather than in the list of modes, which other modes extend.
	modes = append(modes, ModeModern)
}

// handshake opens the MCP session as mode does: server/discover for ModeModern, initialize
// otherwise.
func (c *mcpClient) handshake(ctx context.Context, mode string) error {
	if mode != ModeModern {
		_, err := c.initialize(ctx)
		return err
	}
	if h, ok := c.t.(*httpTransport); ok {
		h.version = ModernVersion // the MCP-Protocol-Version header
	}
	c.t = &modernTransport{inner: c.t}
	res, err := c.call(ctx, "server/discover", map[string]any{})
	if err != nil {
		return err
	}
	var d struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if err := json.Unmarshal(res, &d); err != nil {
		return fmt.Errorf("MCP server/discover: %w", err)
	}
	if !slices.Contains(d.SupportedVersions, ModernVersion) {
		return fmt.Errorf("MCP server/discover: the server does not support %s (it offers %q)", ModernVersion, d.SupportedVersions)
	}
	return nil
}

// modernTransport is ModeModern's view of a transport: every request carries the protocol
// version, the client's capabilities and its info in params._meta, and every result must carry
// resultType.
type modernTransport struct {
	inner mcpTransport
}

func (m *modernTransport) roundTrip(ctx context.Context, id int, msg []byte) (rpcMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	var req map[string]any
	if err := dec.Decode(&req); err != nil {
		return rpcMessage{}, fmt.Errorf("modern client: %w", err)
	}
	params, _ := req["params"].(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["io.modelcontextprotocol/protocolVersion"] = ModernVersion
	meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
	meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "contractcheck-testagent-modern", "version": "1"}
	params["_meta"] = meta
	req["params"] = params
	out, err := strictjson.MarshalGo(req)
	if err != nil {
		return rpcMessage{}, fmt.Errorf("modern client: %w", err)
	}
	resp, err := m.inner.roundTrip(ctx, id, out)
	if err != nil || resp.Error != nil {
		return resp, err
	}
	var r map[string]json.RawMessage
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		return rpcMessage{}, fmt.Errorf("modern client: the result is not an object: %w", err)
	}
	if _, ok := r["resultType"]; ok {
		return resp, nil
	}
	if req["method"] != "tools/call" {
		return rpcMessage{}, fmt.Errorf("MCP %s: %s", req["method"], ModernRejection)
	}
	// The framework catches the SDK's error and gives its text to the model as the tool's result.
	text, err := strictjson.MarshalGo(map[string]any{"content": []any{map[string]any{"type": "text", "text": ModernRejection}}, "isError": true})
	if err != nil {
		return rpcMessage{}, err
	}
	resp.Result = text
	return resp, nil
}

func (m *modernTransport) notify(ctx context.Context, msg []byte) error {
	return m.inner.notify(ctx, msg)
}

func (m *modernTransport) close() error { return m.inner.close() }
