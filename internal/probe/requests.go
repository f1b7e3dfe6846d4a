package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// This file reads what the fake provider received in one run: which provider API the command
// spoke (from each request, refused ones included), and a summary of the requests for a failure
// that must say what was received when no model request was understood.

// generationRequest reports whether r addressed a model generation route of an API
// (fakeprovider.Request.Generation): whatever its answer, a call, a tool search, a final text, a
// side call (a router's or title generator's request) or a refusal, it is the command speaking
// that API, where a model list, a token count or a route no API has is not.
func generationRequest(r fakeprovider.Request) bool { return r.API != "" && r.Generation }

// understood reports whether the fake provider answered r as a model turn (a call, a tool
// search or a final text).
func understood(r fakeprovider.Request) bool {
	return r.Answer == fakeprovider.AnswerFinal || r.Answer == fakeprovider.AnswerToolSearch || strings.HasPrefix(r.Answer, "call ")
}

// requestAPIs are the provider APIs of the run's model generation requests, in the order first
// seen.
func requestAPIs(reqs []fakeprovider.Request) []fakeprovider.API {
	var out []fakeprovider.API
	for _, r := range reqs {
		if generationRequest(r) && !slices.Contains(out, r.API) {
			out = append(out, r.API)
		}
	}
	return out
}

// maxReceived bounds the requests a summary names.
const maxReceived = 5

// receivedSummary names what the fake provider received: each request as Request.Describe names
// it, method, path, the API its route was taken for (or the one it looks like) and how it was
// answered ("POST /v1/responses (request 1: API openai-responses, refused)"), the first
// maxReceived of them.
func receivedSummary(reqs []fakeprovider.Request) string {
	if len(reqs) == 0 {
		return "nothing"
	}
	var parts []string
	for i, r := range reqs {
		if i == maxReceived {
			parts = append(parts, fmt.Sprintf("and %d more", len(reqs)-maxReceived))
			break
		}
		parts = append(parts, r.Describe())
	}
	return strings.Join(parts, ", ")
}

// apiMismatch is the failure of a run whose model requests spoke another API than --provider
// names, naming both; nil when they agree, when no API was named or when a layer declares the
// lane (its own binding, not --provider's, reads H4).
func (o *Options) apiMismatch(lane laneDef, reqs []fakeprovider.Request) error {
	if o.Provider == "" || lane.declared {
		return nil
	}
	for _, r := range reqs {
		if generationRequest(r) && string(r.API) != o.Provider {
			return fmt.Errorf("--provider is %s, but the command spoke %s to the fake provider (%s %s, request %d): the lane's H4 binding would not read its requests; give --provider %s, or leave --provider out", o.Provider, r.API, r.Method, r.Path, r.Seq, r.API)
		}
	}
	return nil
}

// nothingUnderstood adds what the fake provider received to failure when no model request of
// the run was understood, so that a command speaking a route or shape the fake does not know
// is told what it sent.
func nothingUnderstood(failure error, reqs []fakeprovider.Request) error {
	if failure == nil || slices.ContainsFunc(reqs, understood) {
		return failure
	}
	return fmt.Errorf("%w; no model request was understood: the fake provider received %s", failure, receivedSummary(reqs))
}
