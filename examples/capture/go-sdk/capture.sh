#!/usr/bin/env bash
# Captures lane go-sdk into $1 (an observations directory): three repetitions, each a fresh process.
# The lane version is the go-sdk module version this module requires (go.mod).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
capture_init "$@"
version=$(cd "$here" && go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk)
(cd "$here" && go build -o "$bin/go-sdk" .)
capture_reps go-sdk "$version" "$bin/go-sdk" -fixtures "$root/fixtures/sources"
