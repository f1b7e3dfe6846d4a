#!/usr/bin/env bash
# Captures one Python lane into $2 (an observations directory):
#   run-lane.sh openai-agents|agent-framework|mcp-python OUT_DIR
# Builds or checks the Python environment (scripts/python-env: a Debian root outside the
# repository), then for each configuration runs three repetitions, each a fresh python3 process
# inside that root (a chroot in a network namespace with loopback only), appending to
# OUT_DIR/<lane>/<version>/<configuration>.jsonl. The version is the one the lane program reads
# from the imported package, printed by `--print-version`.
set -euo pipefail
lane=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
env="$root/scripts/python-env"

case $lane in
  openai-agents) script=lane_openai_agents.py; configs=(default use-structured-content application-context) ;;
  agent-framework) script=lane_agent_framework.py; configs=(default) ;;
  mcp-python) script=lane_mcp_python.py; configs=(default) ;;
  *) echo "run-lane.sh: unknown lane $lane" >&2; exit 2 ;;
esac

"$env" >&2
# The records are written into the root's /tmp (a directory of the host too), then moved to
# OUT_DIR, which need not be visible inside the root.
pyroot=$("$env" root)
work=$(mktemp -d "$pyroot/tmp/capture.XXXXXX")
log=$(mktemp)
trap 'rm -rf "$work" "$log"' EXIT
inside=/tmp/$(basename "$work")
version=$("$env" run python3 "examples/capture/python/$script" --print-version)
for config in "${configs[@]}"; do
  for rep in 1 2 3; do
    # stderr (framework logs) is kept only to show why a process failed
    "$env" run python3 "examples/capture/python/$script" --repetition "$rep" --configuration "$config" \
      --out "$inside/$config.jsonl" 2> "$log" || {
      status=$?
      cat "$log" >&2
      echo "capture: $lane $config repetition $rep failed (exit $status)" >&2
      exit $status
    }
  done
done
mkdir -p "$out/$lane/$version"
for config in "${configs[@]}"; do
  mv "$work/$config.jsonl" "$out/$lane/$version/$config.jsonl"
done
