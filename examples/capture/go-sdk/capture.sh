#!/usr/bin/env bash
# Captures lane go-sdk into $1 (an observations directory): for each pinned go-sdk version, one
# build of main.go against go.<version>.mod and three repetitions, each a fresh process. The lane
# version each program records is the go-sdk module version it was built with (build information).
# v1.7.0 is the version go-sdk #1236 was reported at (fixture R01); v1.8.0 is the lane's pin.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
capture_init "$@"
capture_modfiles go-sdk v1.7.0 v1.8.0
