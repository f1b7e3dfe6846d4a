#!/usr/bin/env bash
# Captures lane mcp-go into $1 (an observations directory): three repetitions, each a fresh process.
# The lane version is the mcp-go module version this module requires (go.mod).
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
version=$(cd "$here" && go list -m -f '{{.Version}}' github.com/mark3labs/mcp-go)
(cd "$here" && go build -o "$bin/mcp-go" .)
mkdir -p "$out/mcp-go/$version"
: > "$out/mcp-go/$version/default.jsonl"
for rep in 1 2 3; do
  "$bin/mcp-go" -fixtures "$root/fixtures/sources" -repetition "$rep" >> "$out/mcp-go/$version/default.jsonl"
done
