"""Microsoft Agent Framework (Python) under `contractcheck probe`: an Agent on OpenAIChatClient (the
Responses API client of agent_framework_openai) at OPENAI_BASE_URL with an MCPStdioTool that starts
the probe's stdio server (CONTRACTCHECK_MCP_COMMAND; PROBE_TRANSPORT=http uses MCPStreamableHTTPTool
on CONTRACTCHECK_MCP_URL instead). Configured as examples/capture/python/lane_agent_framework.py is
(model gpt-4.1, tool name contractcheck-fixture, the same agent name and instructions); the lane
has one configuration, default. PROBE_STREAM=1 runs agent.run(..., stream=True).

PROBE_OBSERVE=1 reports the lane's deeper stages through CONTRACTCHECK_OBSERVE_URL (observe.py) as
the capture program records them, for probing under the built-in lane name (--lane
agent-framework observes A2 and M3): A2 Content.to_dict() of the function_result in the run's
messages, M3 the same Content as the chat client is handed it on the second turn.

    contractcheck probe --lane my-af-app --version 1.13.0 --provider openai-responses -- python3 agent_framework_probe.py
"""

import asyncio
import os
import shlex

from agent_framework import Agent, MCPStdioTool, MCPStreamableHTTPTool
from agent_framework_openai import OpenAIChatClient

from observe import observe

OBSERVE = os.environ.get("PROBE_OBSERVE") == "1"
TOOL = os.environ.get("CONTRACTCHECK_TOOL", "fixture_tool")
for name in ("ENABLE_INSTRUMENTATION", "ENABLE_SENSITIVE_DATA"):
    os.environ[name] = "false"  # no telemetry


def function_results(messages):
    return [c.to_dict() for m in messages or [] for c in getattr(m, "contents", None) or [] if getattr(c, "type", None) == "function_result"]


class ObservingClient(OpenAIChatClient):
    """Reports M3: the function_result Content the Responses integration is handed on turn two."""

    turns = 0

    def _inner_get_response(self, *, messages, **kwargs):
        self.turns += 1
        results = function_results(messages)
        if self.turns == 2 and len(results) == 1:
            observe("M3", results[0], results[0].get("call_id"))
        return super()._inner_get_response(messages=messages, **kwargs)


async def main():
    client_class = ObservingClient if OBSERVE else OpenAIChatClient
    client = client_class("gpt-4.1", api_key=os.environ["OPENAI_API_KEY"], base_url=os.environ["OPENAI_BASE_URL"])
    if os.environ.get("PROBE_TRANSPORT") == "http":
        tool = MCPStreamableHTTPTool(name="contractcheck-fixture", url=os.environ["CONTRACTCHECK_MCP_URL"], load_prompts=False, request_timeout=30)
    else:
        command = shlex.split(os.environ["CONTRACTCHECK_MCP_COMMAND"])
        tool = MCPStdioTool(name="contractcheck-fixture", command=command[0], args=command[1:], load_prompts=False, request_timeout=30)
    prompt = os.environ.get("CONTRACTCHECK_PROMPT", f"Call {TOOL}.")
    async with tool:
        agent = Agent(client=client, instructions=f"Call {TOOL}, then answer.", name="capture", tools=[tool])
        if os.environ.get("PROBE_STREAM") == "1":
            stream = agent.run(prompt, stream=True)
            async for _ in stream:
                pass
            response = await stream.get_final_response()
        else:
            response = await agent.run(prompt)
    results = function_results(response.messages)
    if OBSERVE and len(results) == 1:
        observe("A2", results[0], results[0].get("call_id"))
    print(response.text)


if __name__ == "__main__":
    asyncio.run(main())
