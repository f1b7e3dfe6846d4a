#!/usr/bin/env bash
# Captures lane adk-go into $1 (an observations directory): for each pinned ADK version, one build
# of main.go against go.<version>.mod and three repetitions, each a fresh process. The program
# unsets every GOOGLE_*/GEMINI_* variable itself; the provider is a local httptest server.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
capture_init "$@"
capture_modfiles adk-go v1.0.0 v1.6.1 v1.7.0
