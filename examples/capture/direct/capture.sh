#!/usr/bin/env bash
# Captures lane direct into $1 (an observations directory): three repetitions, each a fresh process.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
capture_init "$@"
(cd "$root" && go build -o "$bin/direct" ./examples/capture/direct)
capture_reps direct v1 "$bin/direct" -fixtures "$root/fixtures/sources"
