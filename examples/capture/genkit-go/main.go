// Command genkit-go captures lane genkit-go: Genkit Go's MCP plugin (go/plugins/mcp) calls
// fixture_tool on the raw MCP server (started as a stdio command, the plugin's only local
// transport), Genkit's generate loop runs the tool, and the googlegenai plugin sends the result to
// a local httptest server that plays the Gemini API. It records, per fixture:
//
//   - D1 not_observable: the plugin's mcp-go client decodes the result inside the tool function
//     (createToolFunction) and hands it straight to the tool action; no public seam shows it.
//   - A2 the tool output the generate loop received: ToolResponse.Output of the tool message, read by
//     a model middleware (ai.WithMiddleware) on the follow-up request. handleToolRequests puts the
//     value RunRawMultipart returned there unchanged, so this is the tool's output itself.
//   - M3 the provider-neutral tool message of that ai.ModelRequest (role tool, toolResponse part),
//     the same object A2 reads: a shared carrier.
//   - H4 the HTTP request body the googlegenai plugin sent to the local Gemini server with the
//     functionResponse.
//
// It writes one repetition per run (see capture.sh).
//
// Usage:
//
//	genkit-go -server stdioserver -fixtures fixtures/sources -repetition 1
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/contractcheck/contractcheck/examples/internal/harness"
	"github.com/contractcheck/contractcheck/examples/internal/rawmcp"
	"github.com/contractcheck/contractcheck/examples/internal/record"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/googlegenai"
	"github.com/firebase/genkit/go/plugins/mcp"
	"google.golang.org/genai"
)

const (
	lane = "genkit-go"
	// model is a Gemini model the googlegenai plugin knows; the local server answers for any.
	model = "googleai/gemini-2.5-flash"
	// clientName is the MCP client's name: the plugin exposes the tool as <name>_fixture_tool.
	clientName = "rawmcp"
)

func main() {
	server := flag.String("server", "", "path of the stdioserver binary (built from ./stdioserver)")
	harness.Main(lane, func(fixtures string, repetition int) error { return run(fixtures, *server, repetition) })
}

// genkitVersion is the Genkit module version this binary was built with (a replacement's version
// when the module is replaced).
func genkitVersion() (string, error) {
	d, err := harness.Dependency("github.com/firebase/genkit/go")
	if err != nil {
		return "", err
	}
	if d.Replace != nil {
		return d.Replace.Version, nil
	}
	return d.Version, nil
}

func run(dir, server string, repetition int) error {
	if server == "" {
		return errors.New("-server is required")
	}
	version, err := genkitVersion()
	if err != nil {
		return err
	}
	fixtures, err := record.Fixtures(dir)
	if err != nil {
		return err
	}
	// Nothing leaves the machine: no provider key or endpoint comes from the environment.
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI",
		"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_REGION", "GOOGLE_GEMINI_BASE_URL",
		"GOOGLE_VERTEX_BASE_URL", "GOOGLE_APPLICATION_CREDENTIALS", "GENKIT_ENV"} {
		os.Unsetenv(k)
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	// mcp-go's stdio transport prints read errors (such as "file already closed" when a client
	// disconnects) with fmt.Printf: keep stdout for the records and send the rest to stderr.
	records := os.Stdout
	os.Stdout = os.Stderr

	provider := &fakeGemini{}
	srv := httptest.NewServer(provider)
	defer srv.Close()
	// The googlegenai plugin has no base-URL option; go-genai's SetDefaultBaseURLs, called before
	// the plugin creates its client, points the Gemini API backend at the local server.
	genai.SetDefaultBaseURLs(genai.BaseURLParameters{GeminiURL: srv.URL})

	ctx := context.Background()
	// A placeholder, not a key: the plugin panics without one, and only the local server sees it.
	g := genkit.Init(ctx, genkit.WithPlugins(&googlegenai.GoogleAI{APIKey: "contractcheck-local-no-key"}))

	w := &record.Writer{W: records, Lane: lane, LaneVersion: version, Configuration: "default", Repetition: repetition}
	for _, f := range fixtures {
		if err := captureFixture(ctx, g, provider, server, f, w); err != nil {
			return err
		}
	}
	return nil
}

// captured holds what one fixture's run observed.
type captured struct {
	a2, m3, h4 json.RawMessage
}

func captureFixture(ctx context.Context, g *genkit.Genkit, provider *fakeGemini, server string, f record.Fixture, w *record.Writer) error {
	provider.reset()
	var got captured
	runErr := generate(ctx, g, server, f, &got)
	got.h4 = provider.functionResponseBody()

	if err := w.NotObservable(f, "D1"); err != nil {
		return err
	}
	// A failed stage's message is the run's error alone when there is one (as the v1.4.0
	// records hold it), else that the run ended before the stage.
	missing := func(stage string) string {
		if runErr != nil {
			return ""
		}
		return stage + ": the run ended without reaching this stage"
	}
	return w.Stages(f, []record.Stage{
		{Stage: "A2", Carrier: got.a2, Missing: missing("A2")},
		{Stage: "M3", Carrier: got.m3, Missing: missing("M3")},
		{Stage: "H4", Carrier: got.h4, Missing: missing("H4")},
	}, runErr)
}

// generate runs one Genkit generation with the fixture's MCP tool and fills got.a2 and got.m3 from
// the follow-up model request.
func generate(ctx context.Context, g *genkit.Genkit, server string, f record.Fixture, got *captured) error {
	client, err := mcp.NewGenkitMCPClient(mcp.MCPClientOptions{
		Name:  clientName,
		Stdio: &mcp.StdioConfig{Command: server, Args: []string{f.Path}},
	})
	if err != nil {
		return err
	}
	defer client.Disconnect()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tools, err := client.GetActiveTools(ctx, g)
	if err != nil {
		return err
	}
	var refs []ai.ToolRef
	for _, t := range tools {
		refs = append(refs, t)
	}

	observe := func(next ai.ModelFunc) ai.ModelFunc {
		return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			if msg := toolMessage(req); msg != nil {
				if err := observeToolMessage(msg, got); err != nil {
					return nil, err
				}
			}
			return next(ctx, req, cb)
		}
	}
	_, err = genkit.Generate(ctx, g,
		ai.WithModelName(model),
		ai.WithPrompt("Call %s and report what it returned.", rawmcp.ToolName),
		ai.WithTools(refs...),
		ai.WithMiddleware(observe),
	)
	return err
}

// toolMessage is the last message of req when it is the tool message the generate loop appended.
func toolMessage(req *ai.ModelRequest) *ai.Message {
	if len(req.Messages) == 0 {
		return nil
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != ai.RoleTool {
		return nil
	}
	return last
}

func observeToolMessage(msg *ai.Message, got *captured) error {
	m3, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("M3: %w", err)
	}
	got.m3 = m3
	for _, p := range msg.Content {
		if p.IsToolResponse() {
			a2, err := json.Marshal(p.ToolResponse.Output)
			if err != nil {
				return fmt.Errorf("A2: %w", err)
			}
			got.a2 = a2
			return nil
		}
	}
	return errors.New("A2: the tool message holds no toolResponse part")
}

// fakeGemini plays the Gemini API generateContent endpoint: a request without a functionResponse
// gets a functionCall to the declared fixture tool, one with a functionResponse gets a final text
// answer. It keeps the body of the request that carried the functionResponse.
type fakeGemini struct {
	mu   sync.Mutex
	body json.RawMessage
}

func (s *fakeGemini) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = nil
}

func (s *fakeGemini) functionResponseBody() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.body
}

type geminiRequest struct {
	Contents []struct {
		Parts []map[string]json.RawMessage `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

func (s *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, ":generateContent") {
		http.Error(w, `{"error":{"code":400,"message":"unexpected request","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"code":400,"message":"bad body","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	hasResponse := false
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if _, ok := p["functionResponse"]; ok {
				hasResponse = true
			}
		}
	}
	var part any
	if hasResponse {
		var compact bytes.Buffer
		if err := json.Compact(&compact, body); err == nil {
			s.mu.Lock()
			s.body = compact.Bytes()
			s.mu.Unlock()
		}
		part = map[string]any{"text": "The tool returned its result."}
	} else {
		name := ""
		for _, t := range req.Tools {
			for _, d := range t.FunctionDeclarations {
				if strings.HasSuffix(d.Name, rawmcp.ToolName) {
					name = d.Name
				}
			}
		}
		if name == "" {
			http.Error(w, `{"error":{"code":400,"message":"no fixture tool declared","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
			return
		}
		part = map[string]any{"functionCall": map[string]any{"name": name, "args": map[string]any{}}}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "gemini-2.5-flash",
	})
}
