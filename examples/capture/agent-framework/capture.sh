#!/usr/bin/env bash
# Captures lane agent-framework into $1 (an observations directory): the Python program in ../python runs
# each configuration three times, each a fresh process inside the Python environment that
# scripts/python-env builds. See ../python/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../python/run-lane.sh" agent-framework "$1"
