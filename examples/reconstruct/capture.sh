#!/usr/bin/env bash
# Reconstructs the Python lanes into $1 (an observations directory). Deterministic: one repetition.
# Further arguments name the lanes to reconstruct (default: all).
set -euo pipefail
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
(cd "$here" && go run . -fixtures "$root/fixtures/sources" -out "$out" "$@")
