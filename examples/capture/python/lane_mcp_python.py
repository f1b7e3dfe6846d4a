"""Lane mcp-python: the official MCP Python SDK's ClientSession as a client of the raw fixture server.

A control lane. mcp's stdio_client spawns the raw MCP server (rawmcp_server.py) for each fixture;
ClientSession.initialize() and ClientSession.call_tool("fixture_tool", {}) run the real protocol
exchange, and D1 is the CallToolResult call_tool returns, dumped without inventing absent fields:
model_dump(mode="json", by_alias=True, exclude_unset=True), so a field the server did not send
stays absent, a null stays null, extra fields are kept and the wire names (_meta, mimeType, …) are
used. When call_tool raises the server's JSON-RPC error (McpError), D1 is {"error": ErrorData dumped
the same way}; any other exception (a result the SDK rejects) is execution_failed with its text.
A2, M3 and H4 are not applicable: the SDK is a client library, with no application, model or
provider.

    python3 lane_mcp_python.py --repetition 1 --out records.jsonl
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from harness import guard  # noqa: F401  (first: nothing may leave the machine)
from harness.lane import CallLog, bounded, clean_environment, error_text, finish, installed_version, options, server_command, writer

clean_environment()

from mcp import ClientSession, McpError, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

LANE = "mcp-python"
TOOL = "fixture_tool"


def dump(model: Any) -> Any:
    """The model as sent on the wire: aliases, only the fields that were set, JSON types."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


async def call(command: str, args: list[str]) -> tuple[Any, BaseException | None]:
    """The result of call_tool, or the exception it raised (caught inside the session, so the
    transport's task group closes normally and does not wrap it)."""
    params = StdioServerParameters(command=command, args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=timedelta(seconds=30)) as session:
            await session.initialize()
            try:
                return await session.call_tool(TOOL, {}), None
            except Exception as e:  # noqa: BLE001  (the SDK's own failure is the observation)
                return None, e


async def main() -> None:
    o = options(["default"], "mcp")
    w, close = writer(LANE, installed_version("mcp"), o)
    try:
        for f in o.fixtures:
            calls = CallLog()
            command, args = server_command(f, calls)
            try:
                result, raised = await bounded(call(command, args))
            except Exception as e:  # noqa: BLE001  (a failure outside call_tool: the session itself)
                result, raised = None, e
            if isinstance(raised, McpError):
                w.captured(f, "D1", {"error": dump(raised.error)})
            elif raised is not None:
                w.failed(f, "D1", f"{error_text(raised)} (the MCP server answered {calls.count()} tools/call)")
            else:
                w.captured(f, "D1", dump(result))
            calls.remove()
            for stage in ("A2", "M3", "H4"):
                w.not_applicable(f, stage)
    finally:
        close()
    finish()


if __name__ == "__main__":
    asyncio.run(main())
