#!/usr/bin/env bash
# Captures lane langchain-mcp-adapters-js into $1 (an observations directory): the npm package in ../js
# (pinned in its package-lock.json) runs each configuration three times, each a fresh node process,
# against the raw MCP server and the local fake provider. See ../js/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../js/run-lane.sh" langchain-mcp-adapters-js "$1"
