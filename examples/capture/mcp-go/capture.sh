#!/usr/bin/env bash
# Captures lane mcp-go into $1 (an observations directory): for each pinned mcp-go version, one
# build of main.go against go.<version>.mod and three repetitions, each a fresh process. The lane
# version each program records is the mcp-go module version it was built with (build information).
# v0.37.0 and v0.38.0 are the two sides of mcp-go #522 (fixture R02); v1.2.1 is the lane's pin.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
capture_init "$@"
capture_modfiles mcp-go v0.37.0 v0.38.0 v1.2.1
