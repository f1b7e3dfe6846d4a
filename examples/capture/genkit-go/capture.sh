#!/usr/bin/env bash
# Captures lane genkit-go into $1 (an observations directory): three repetitions, each a fresh
# process. The lane version is the github.com/firebase/genkit/go version go.mod requires.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
capture_init "$@"
(cd "$here" && go build -o "$bin/genkit-go" . && go build -o "$bin/stdioserver" ./stdioserver)
version=$(cd "$here" && go list -m -f '{{.Version}}' github.com/firebase/genkit/go)
# No provider key or endpoint reaches the process; it talks only to its own httptest server.
capture_reps genkit-go "$version" \
  env -u GEMINI_API_KEY -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GOOGLE_CLOUD_PROJECT \
  -u GOOGLE_GEMINI_BASE_URL -u GOOGLE_APPLICATION_CREDENTIALS -u GENKIT_ENV \
  "$bin/genkit-go" -server "$bin/stdioserver" -fixtures "$root/fixtures/sources"
