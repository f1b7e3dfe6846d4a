#!/usr/bin/env bash
# Captures one TypeScript-edition lane into $2 (an observations directory):
#   run-lane.sh openai-agents-js|langchain-mcp-adapters-js|adk-js OUT_DIR
# For each configuration, three repetitions, each a fresh node process, appended to
# OUT_DIR/<lane>/<version>/<configuration>.jsonl; the version is the installed package's.
# Installs the pinned packages (npm ci) when node_modules is missing. Nothing leaves the machine:
# every process loads lib/guard.mjs (a non-loopback connection or DNS query throws and voids the
# capture), and where a network namespace can be made (unshare -n, as root), the captures run in
# one that has only a loopback interface.
set -euo pipefail
lane=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

case $lane in
  # openai-agents-js also runs @openai/agents 0.5.4 (installed as openai-agents-0.5.4), the buggy
  # side of openai-agents-js #1070 (fixture R07).
  openai-agents-js) script=openai-agents.mjs; pkgs=(openai-agents-0.5.4 @openai/agents); configs=(default use-structured-content) ;;
  langchain-mcp-adapters-js) script=langchain-mcp-adapters.mjs; pkgs=(@langchain/mcp-adapters); configs=(default use-responses-api use-standard-content-blocks) ;;
  adk-js) script=adk.mjs; pkgs=(@google/adk); configs=(default) ;;
  *) echo "run-lane.sh: unknown lane $lane" >&2; exit 2 ;;
esac

if [ "${CAPTURE_IN_NETNS:-}" != 1 ]; then
  if [ ! -d node_modules ]; then
    npm ci --no-audit --no-fund >&2
  fi
  if [ "${CAPTURE_NETNS:-1}" != 0 ] && command -v unshare > /dev/null && command -v ip > /dev/null \
    && unshare -n true 2> /dev/null; then
    echo "capture: $lane in a network namespace with loopback only" >&2
    exec unshare -n env CAPTURE_IN_NETNS=1 bash -c 'ip link set lo up && exec "$0" "$@"' "$here/run-lane.sh" "$lane" "$out"
  fi
  echo "capture: $lane without a network namespace (unshare -n unavailable); the guard still refuses non-loopback connections" >&2
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
for pkg in "${pkgs[@]}"; do
  version=$(node -p "require('./node_modules/$pkg/package.json').version")
  mkdir -p "$out/$lane/$version"
  for config in "${configs[@]}"; do
    file="$out/$lane/$version/$config.jsonl"
    : > "$file"
    for rep in 1 2 3; do
      # stderr (framework logs) is kept only to show why a process failed; CAPTURE_PACKAGE names
      # the installed package (or npm alias) the lane program imports
      CAPTURE_PACKAGE=$pkg node --import ./lib/guard.mjs "$script" --repetition "$rep" --configuration "$config" --out "$file" 2> "$log" || {
        status=$?
        cat "$log" >&2
        echo "capture: $lane $pkg $config repetition $rep failed (exit $status)" >&2
        exit $status
      }
    done
  done
done
