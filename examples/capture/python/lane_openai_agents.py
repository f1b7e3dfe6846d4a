"""Lane openai-agents: openai-agents-python with the MCP Python SDK and openai-python, run for real.

An MCPServerStdio (name "contractcheck-fixture") spawns the raw MCP server (rawmcp_server.py) for
each fixture; a Runner runs an Agent whose OpenAIResponsesModel talks to the loopback provider
(harness/provider.py), which asks for one call to fixture_tool and then answers with text.

Stages, per fixture:
  D1 the CallToolResult MCPServer.call_tool (public) returns, as model_dump(mode="json"): every
     field by its name, defaults filled in (what an application reading its attributes sees). When
     call_tool raises the server's JSON-RPC error, {"exception": {"type", "code", "message",
     "data"}}; any other exception (a result mcp rejects) is execution_failed with its text, and the
     run goes on with the SDK's error text as the tool output.
  A2 the run's ToolCallOutputItem (RunResult.new_items): {type, raw_item, output}, and custom_data
     when the item has one (configuration application-context).
  M3 the function_call_output item of the input the runner hands to
     OpenAIResponsesModel.get_response on the turn after the tool call.
  H4 the function_call_output item of the second POST /v1/responses body, as sent.

Configurations: default; use-structured-content (MCPServerStdio(use_structured_content=True),
structured fixtures only); application-context (a custom_data_extractor that returns the result's
structured content, isError and _meta as the extractor context gives them).

    python3 lane_openai_agents.py --repetition 1 --configuration default --out records.jsonl
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from harness import guard  # noqa: F401  (first: nothing may leave the machine)
from harness.lane import (
    STRUCTURED,
    bounded,
    clean_environment,
    error_text,
    leaf,
    run_lane,
)
from harness.provider import Provider
from harness.record import Stage

clean_environment()

from agents import Agent, RunConfig, Runner, set_tracing_disabled  # noqa: E402
from agents.items import ToolCallOutputItem  # noqa: E402
from agents.mcp import MCPServerStdio  # noqa: E402
from agents.models.openai_responses import OpenAIResponsesModel  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402
from pydantic import BaseModel  # noqa: E402

LANE = "openai-agents"
MODEL = "gpt-4.1"
CONFIGURATIONS = ["default", "use-structured-content", "application-context"]

set_tracing_disabled(True)


def plain(v: Any) -> Any:
    """A framework value as the JSON-shaped Python value it holds: pydantic models dumped in JSON
    mode by field name, mappings and sequences copied, scalars as they are."""
    if isinstance(v, BaseModel):
        return v.model_dump(mode="json")
    if isinstance(v, dict) or hasattr(v, "keys"):
        return {k: plain(v[k]) for k in v.keys()}
    if isinstance(v, (list, tuple)):
        return [plain(e) for e in v]
    return v


class CapturingServer(MCPServerStdio):
    """MCPServerStdio with a window on what its public call_tool returns or raises (D1)."""

    d1: Any = None
    d1_error: BaseException | None = None

    async def call_tool(self, *args: Any, **kwargs: Any) -> Any:
        try:
            result = await super().call_tool(*args, **kwargs)
        except BaseException as e:
            self.d1_error = e
            raise
        self.d1 = result
        return result


class CapturingModel(OpenAIResponsesModel):
    """OpenAIResponsesModel with a window on the input the runner hands it (M3)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        self.inputs.append(copy.deepcopy(plain(input)))
        return await super().get_response(system_instructions, input, *args, **kwargs)


def application_context(ctx: Any) -> dict[str, Any]:
    """The custom_data_extractor of configuration application-context: what an application reads
    of the MCP result beside the model-visible output."""
    return {
        "structuredContent": None if ctx.structured_content is None else dict(ctx.structured_content),
        "isError": ctx.is_error,
        "_meta": None if ctx.result_meta is None else dict(ctx.result_meta),
    }


def d1_stage(server: CapturingServer) -> Stage:
    if server.d1 is not None:
        return Stage("D1", plain(server.d1), True)
    err = server.d1_error
    if err is None:
        return Stage("D1", missing="MCPServer.call_tool was never called")
    e = leaf(err)
    data = getattr(e, "error", None)
    if data is not None and type(e).__name__ in ("McpError", "MCPError"):
        return Stage("D1", {"exception": {"type": type(e).__name__, "code": data.code, "message": data.message, "data": plain(data.data)}}, True)
    return Stage("D1", missing=error_text(e))


async def capture(_f: Any, configuration: str, provider: Provider, server: tuple[str, list[str]]) -> dict[str, Any]:
    command, args = server
    o: dict[str, Any] = {}
    server = CapturingServer(
        params={"command": command, "args": args},
        name="contractcheck-fixture",
        client_session_timeout_seconds=30,
        use_structured_content=configuration == "use-structured-content",
        custom_data_extractor=application_context if configuration == "application-context" else None,
    )
    client = AsyncOpenAI(api_key="test", base_url=f"{provider.url}/v1", max_retries=0)
    model = CapturingModel(MODEL, client)

    async def run() -> None:
        async with server:
            agent = Agent(name="capture", instructions="Call fixture_tool, then answer.", model=model, mcp_servers=[server])
            result = await Runner.run(
                agent, "Call fixture_tool.", max_turns=3, run_config=RunConfig(tracing_disabled=True, trace_include_sensitive_data=False)
            )
            items = [i for i in result.new_items if isinstance(i, ToolCallOutputItem)]
            if len(items) == 1:
                item = items[0]
                a2 = {"type": item.type, "raw_item": plain(item.raw_item), "output": plain(item.output)}
                if item.custom_data is not None:
                    a2["custom_data"] = plain(item.custom_data)
                o["a2"] = a2

    try:
        await bounded(run())
    except Exception as e:  # noqa: BLE001  (recorded as the run's error)
        o["run_error"] = e
    finally:
        await client.close()
    o["d1"] = d1_stage(server)
    if len(model.inputs) > 1 and isinstance(model.inputs[1], list):
        items = [i for i in model.inputs[1] if isinstance(i, dict) and i.get("type") == "function_call_output"]
        if len(items) == 1:
            o["m3"] = items[0]
    return o


async def main() -> None:
    await run_lane(
        LANE,
        "openai-agents",
        CONFIGURATIONS,
        capture,
        lambda tool_calls: f"no ToolCallOutputItem in the run (the MCP server answered {tool_calls} tools/call)",
        "the model was never handed the function_call_output",
        skip=lambda f, configuration: configuration == "use-structured-content" and f.id not in STRUCTURED,
    )


if __name__ == "__main__":
    asyncio.run(main())
