#!/usr/bin/env bash
# Captures lane adk-go into $1 (an observations directory): for each pinned ADK version, one build
# of main.go against go.<version>.mod and three repetitions, each a fresh process. The program
# unsets every GOOGLE_*/GEMINI_* variable itself; the provider is a local httptest server.
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for version in v1.0.0 v1.7.0; do
  (cd "$here" && go build -modfile="go.$version.mod" -o "$bin/adk-go-$version" .)
  mkdir -p "$out/adk-go/$version"
  : > "$out/adk-go/$version/default.jsonl"
  for rep in 1 2 3; do
    "$bin/adk-go-$version" -fixtures "$root/fixtures/sources" -repetition "$rep" >> "$out/adk-go/$version/default.jsonl"
  done
done
