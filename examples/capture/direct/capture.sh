#!/usr/bin/env bash
# Captures lane direct into $1 (an observations directory): three repetitions, each a fresh process.
set -euo pipefail
out=$1
root=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/direct" ./examples/capture/direct)
mkdir -p "$out/direct/v1"
: > "$out/direct/v1/default.jsonl"
for rep in 1 2 3; do
  "$bin/direct" -fixtures "$root/fixtures/sources" -repetition "$rep" >> "$out/direct/v1/default.jsonl"
done
