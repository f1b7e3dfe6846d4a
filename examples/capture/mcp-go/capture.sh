#!/usr/bin/env bash
# Captures lane mcp-go into $1 (an observations directory): three repetitions, each a fresh process.
# The lane version is the mcp-go module version this module requires (go.mod).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
capture_init "$@"
version=$(cd "$here" && go list -m -f '{{.Version}}' github.com/mark3labs/mcp-go)
(cd "$here" && go build -o "$bin/mcp-go" .)
capture_reps mcp-go "$version" "$bin/mcp-go" -fixtures "$root/fixtures/sources"
