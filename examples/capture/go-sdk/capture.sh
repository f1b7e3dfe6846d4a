#!/usr/bin/env bash
# Captures lane go-sdk into $1 (an observations directory): three repetitions, each a fresh process.
# The lane version is the go-sdk module version this module requires (go.mod).
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
version=$(cd "$here" && go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk)
(cd "$here" && go build -o "$bin/go-sdk" .)
mkdir -p "$out/go-sdk/$version"
: > "$out/go-sdk/$version/default.jsonl"
for rep in 1 2 3; do
  "$bin/go-sdk" -fixtures "$root/fixtures/sources" -repetition "$rep" >> "$out/go-sdk/$version/default.jsonl"
done
