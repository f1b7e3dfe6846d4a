"""openai-agents (Python) under `contractcheck probe`: an Agent whose MCPServerStdio starts the probe's
stdio server (CONTRACTCHECK_MCP_COMMAND; PROBE_TRANSPORT=http uses MCPServerStreamableHttp on
CONTRACTCHECK_MCP_URL instead) and whose OpenAIResponsesModel talks to OPENAI_BASE_URL. Configured as
examples/capture/python/lane_openai_agents.py is (model gpt-4.1, server name contractcheck-fixture,
the same agent name and instructions); PROBE_CONFIGURATION picks the lane's configuration:
default, use-structured-content (use_structured_content=True) or application-context (a
custom_data_extractor returning the result's structuredContent, isError and _meta).
PROBE_STREAM=1 runs Runner.run_streamed (a streamed Responses request).

PROBE_OBSERVE=1 reports the lane's deeper stages through CONTRACTCHECK_OBSERVE_URL (observe.py) as
the capture program records them, for probing under the built-in lane name (--lane openai-agents
observes D1, A2 and M3): D1 the CallToolResult MCPServer.call_tool returns (model_dump(mode="json"),
or {"exception": …} for a JSON-RPC error), A2 the run's ToolCallOutputItem, M3 the
function_call_output item of the input the model is handed on the second turn.

    contractcheck probe --lane my-agents-app --version 0.22.0 --provider openai-responses -- python3 openai_agents_probe.py
"""

import asyncio
import copy
import os
import shlex
import sys

from agents import Agent, RunConfig, Runner, set_tracing_disabled
from agents.items import ToolCallOutputItem
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from agents.models.openai_responses import OpenAIResponsesModel
from openai import AsyncOpenAI
from pydantic import BaseModel

from observe import observe

CONFIGURATION = os.environ.get("PROBE_CONFIGURATION", "default")
OBSERVE = os.environ.get("PROBE_OBSERVE") == "1"
TOOL = os.environ.get("CONTRACTCHECK_TOOL", "fixture_tool")
set_tracing_disabled(True)  # no trace export: nothing leaves the machine


def plain(v):
    """A framework value as JSON-shaped Python (pydantic models dumped in JSON mode)."""
    if isinstance(v, BaseModel):
        return v.model_dump(mode="json")
    if isinstance(v, dict) or hasattr(v, "keys"):
        return {k: plain(v[k]) for k in v.keys()}
    if isinstance(v, (list, tuple)):
        return [plain(e) for e in v]
    return v


def application_context(ctx):
    return {
        "structuredContent": None if ctx.structured_content is None else dict(ctx.structured_content),
        "isError": ctx.is_error,
        "_meta": None if ctx.result_meta is None else dict(ctx.result_meta),
    }


def observing(server_class):
    """server_class whose call_tool reports D1 (the result, or the server's JSON-RPC error)."""

    class Observing(server_class):
        async def call_tool(self, *args, **kwargs):
            try:
                result = await super().call_tool(*args, **kwargs)
            except Exception as e:
                data = getattr(e, "error", None)
                if data is not None and type(e).__name__ in ("McpError", "MCPError"):
                    observe("D1", {"exception": {"type": type(e).__name__, "code": data.code, "message": data.message, "data": plain(data.data)}})
                raise
            observe("D1", plain(result))
            return result

    return Observing


class ObservingModel(OpenAIResponsesModel):
    """Reports M3: the function_call_output item of the input handed to the model on turn two."""

    turns = 0

    async def get_response(self, system_instructions, input, *args, **kwargs):  # noqa: A002
        self._observe(input)
        return await super().get_response(system_instructions, input, *args, **kwargs)

    def stream_response(self, system_instructions, input, *args, **kwargs):  # noqa: A002
        self._observe(input)
        return super().stream_response(system_instructions, input, *args, **kwargs)

    def _observe(self, input):  # noqa: A002
        self.turns += 1
        if self.turns == 2 and isinstance(input, list):
            items = [i for i in copy.deepcopy(plain(input)) if isinstance(i, dict) and i.get("type") == "function_call_output"]
            if len(items) == 1:
                observe("M3", items[0], items[0].get("call_id"))


async def main():
    options = dict(
        name="contractcheck-fixture",
        client_session_timeout_seconds=30,
        use_structured_content=CONFIGURATION == "use-structured-content",
        custom_data_extractor=application_context if CONFIGURATION == "application-context" else None,
    )
    http = os.environ.get("PROBE_TRANSPORT") == "http"
    server_class = MCPServerStreamableHttp if http else MCPServerStdio
    if OBSERVE:
        server_class = observing(server_class)
    if http:
        server = server_class(params={"url": os.environ["CONTRACTCHECK_MCP_URL"]}, **options)
    else:
        command = shlex.split(os.environ["CONTRACTCHECK_MCP_COMMAND"])
        server = server_class(params={"command": command[0], "args": command[1:]}, **options)
    model_class = ObservingModel if OBSERVE else OpenAIResponsesModel
    model = model_class("gpt-4.1", AsyncOpenAI(max_retries=0))  # OPENAI_BASE_URL, OPENAI_API_KEY
    async with server:
        agent = Agent(name="capture", instructions=f"Call {TOOL}, then answer.", model=model, mcp_servers=[server])
        prompt = os.environ.get("CONTRACTCHECK_PROMPT", f"Call {TOOL}.")
        config = RunConfig(tracing_disabled=True, trace_include_sensitive_data=False)
        if os.environ.get("PROBE_STREAM") == "1":
            result = Runner.run_streamed(agent, prompt, max_turns=3, run_config=config)
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, prompt, max_turns=3, run_config=config)
    if OBSERVE:
        for item in result.new_items:
            if isinstance(item, ToolCallOutputItem):
                a2 = {"type": item.type, "raw_item": plain(item.raw_item), "output": plain(item.output)}
                if item.custom_data is not None:
                    a2["custom_data"] = plain(item.custom_data)
                observe("A2", a2, a2["raw_item"].get("call_id") if isinstance(a2["raw_item"], dict) else None)
    print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
