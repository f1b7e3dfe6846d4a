"""The raw MCP server as a stdio process: python3 rawmcp_server.py FIXTURE.json [CALLS_FILE].

Serves FIXTURE.json (see harness/rawmcp.py) on stdin/stdout and appends one line to CALLS_FILE
for every tools/call it answers.
"""

import sys

# The frameworks start this process with an environment of their own (mcp's stdio_client passes
# only HOME, PATH and a few more), without the capture environment's PYTHONPYCACHEPREFIX: write no
# bytecode, so nothing lands in the repository.
sys.dont_write_bytecode = True

from harness import guard  # noqa: F401  (first: nothing may leave the machine)
from harness.rawmcp import serve


def main() -> int:
    if len(sys.argv) not in (2, 3):
        sys.stderr.write("usage: rawmcp_server.py FIXTURE.json [CALLS_FILE]\n")
        return 2
    with open(sys.argv[1], "rb") as f:
        fixture = f.read()
    calls = sys.argv[2] if len(sys.argv) == 3 else None

    def on_call() -> None:
        if calls:
            with open(calls, "a") as c:
                c.write("tools/call\n")

    serve(fixture, sys.stdin.buffer, sys.stdout.buffer, on_call)
    return 0


if __name__ == "__main__":
    sys.exit(main())
