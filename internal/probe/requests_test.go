package probe

import (
	"testing"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// TestGenerationRequest checks which recorded requests count as the command speaking a provider
// API and which as a model turn the fake understood: a tool search answer is both, as a call is.
func TestGenerationRequest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                   string
		req                    fakeprovider.Request
		generation, understood bool
	}{
		{name: "tool search", req: fakeprovider.Request{API: fakeprovider.OpenAIResponses, Path: "/v1/responses", Answer: fakeprovider.AnswerToolSearch, Generation: true},
			generation: true, understood: true},
		{name: "call", req: fakeprovider.Request{API: fakeprovider.OpenAIResponses, Path: "/v1/responses", Answer: "call call_1", Generation: true},
			generation: true, understood: true},
		{name: "side call", req: fakeprovider.Request{API: fakeprovider.OpenAIChat, Path: "/v1/chat/completions", Answer: fakeprovider.AnswerSideCall, Generation: true},
			generation: true},
		{name: "refused generation", req: fakeprovider.Request{API: fakeprovider.OpenAIResponses, Path: "/v1/responses", Answer: fakeprovider.AnswerRefused, Generation: true},
			generation: true},
		{name: "model list", req: fakeprovider.Request{API: fakeprovider.OpenAIChat, Path: "/v1/models", Answer: fakeprovider.AnswerSide}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := generationRequest(tc.req); got != tc.generation {
				t.Errorf("generationRequest = %v, want %v", got, tc.generation)
			}
			if got := understood(tc.req); got != tc.understood {
				t.Errorf("understood = %v, want %v", got, tc.understood)
			}
		})
	}
}
