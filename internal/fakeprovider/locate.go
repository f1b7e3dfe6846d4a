package fakeprovider

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// RouteAPI returns the provider API request r addresses ("" when its route is unknown) and
// whether it asks for a model generation (rather than a model list or a token count), by the
// same route detection the fake provider answers with. contractcheck record uses it to read the
// requests it forwards to a real provider.
func RouteAPI(r *http.Request) (api API, generation bool) {
	rt := routeOf(r)
	return rt.api, rt.kind == kindGenerate
}

// guessAPI names the provider API a request the fake provider has no route for looks like it
// addresses, from its path, headers and body keys; "" when nothing suggests one.
func guessAPI(r *http.Request, body []byte) API {
	path := strings.ToLower(r.URL.Path)
	switch {
	case strings.Contains(path, "generatecontent") || strings.Contains(path, "counttokens") ||
		r.Header.Get("x-goog-api-key") != "" || r.URL.Query().Has("key"):
		return Gemini
	case strings.Contains(path, "/messages") || r.Header.Get("anthropic-version") != "" || r.Header.Get("x-api-key") != "":
		return Anthropic
	case strings.Contains(path, "/responses"):
		return OpenAIResponses
	case strings.Contains(path, "/chat/completions") || strings.Contains(path, "/completions"):
		return OpenAIChat
	}
	ms, err := root(body)
	if err != nil {
		return ""
	}
	has := func(k string) bool { _, ok := lookup(ms, k); return ok }
	switch {
	case has("contents"):
		return Gemini
	case has("input") || has("instructions"):
		return OpenAIResponses
	case has("messages") && has("max_tokens") && !has("n"):
		return Anthropic
	case has("messages"):
		return OpenAIChat
	}
	return ""
}

// ValueAt returns the byte range [start, end) of the value that the JSON pointer tokens (RFC
// 6901, already unescaped) select in the JSON text b, without decoding or re-encoding anything;
// ok is false when the pointer selects nothing. With duplicate keys the last one counts, as in
// encoding/json. err reports b that is not JSON.
func ValueAt(b []byte, tokens []string) (start, end int, ok bool, err error) {
	if !json.Valid(b) {
		return 0, 0, false, errors.New("not JSON")
	}
	start = skipSpace(b, 0)
	if end, err = valueEnd(b, start); err != nil {
		return 0, 0, false, err
	}
	for _, tok := range tokens {
		switch {
		case b[start] == '{':
			ms, _, err := objectMembers(b, start, end)
			if err != nil {
				return 0, 0, false, err
			}
			m, found := lookup(ms, tok)
			if !found {
				return 0, 0, false, nil
			}
			start, end = m.start, m.end
		case b[start] == '[':
			es, _, err := arrayElems(b, start, end)
			if err != nil {
				return 0, 0, false, err
			}
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(es) || (len(tok) > 1 && tok[0] == '0') {
				return 0, 0, false, nil
			}
			start, end = es[i][0], es[i][1]
		default:
			return 0, 0, false, nil
		}
	}
	return start, end, true, nil
}
