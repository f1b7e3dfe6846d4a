#!/usr/bin/env bash
# Captures lane genkit-go into $1 (an observations directory): three repetitions, each a fresh
# process. The lane version is the github.com/firebase/genkit/go version go.mod requires.
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$here" && go build -o "$bin/genkit-go" . && go build -o "$bin/stdioserver" ./stdioserver)
version=$(cd "$here" && go list -m -f '{{.Version}}' github.com/firebase/genkit/go)
mkdir -p "$out/genkit-go/$version"
: > "$out/genkit-go/$version/default.jsonl"
for rep in 1 2 3; do
  # No provider key or endpoint reaches the process; it talks only to its own httptest server.
  env -u GEMINI_API_KEY -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GOOGLE_CLOUD_PROJECT \
    -u GOOGLE_GEMINI_BASE_URL -u GOOGLE_APPLICATION_CREDENTIALS -u GENKIT_ENV \
    "$bin/genkit-go" -server "$bin/stdioserver" -fixtures "$root/fixtures/sources" -repetition "$rep" \
    >> "$out/genkit-go/$version/default.jsonl"
done
