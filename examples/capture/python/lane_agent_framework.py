"""Lane agent-framework: Microsoft Agent Framework for Python (core and the OpenAI integration), run for real.

An MCPStdioTool (name "contractcheck-fixture") spawns the raw MCP server (rawmcp_server.py) for each
fixture; an Agent on OpenAIChatClient (the Responses API client of agent_framework_openai) runs with
the default function invocation configuration against the loopback provider
(harness/provider.py), which asks for one call to fixture_tool and then answers with text.
Non-streaming.

Stages, per fixture:
  D1 not_observable: MCPTool.call_tool hands the decoded CallToolResult straight to its parser and
     returns only the parsed Content list (only a custom parse_tool_results callback sees it, which
     the lane does not set).
  A2 Content.to_dict() of the function_result Content in the run's response messages (what the
     function-invocation loop appended to the conversation, and what an application reads).
  M3 Content.to_dict() of the function_result Content in the messages the OpenAI chat client's
     _inner_get_response receives on the turn after the tool call: the same object (shared
     carrier), recorded as the model integration is handed it.
  H4 the function_call_output item of the second POST /v1/responses body, as sent.

    python3 lane_agent_framework.py --repetition 1 --out records.jsonl
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness import guard  # noqa: F401  (first: nothing may leave the machine)
from harness.lane import bounded, clean_environment, run_lane
from harness.provider import Provider

clean_environment()

from agent_framework import Agent, MCPStdioTool  # noqa: E402
from agent_framework_openai import OpenAIChatClient  # noqa: E402

LANE = "agent-framework"
MODEL = "gpt-4.1"


def function_results(messages: Any) -> list[dict[str, Any]]:
    """Content.to_dict() of every function_result Content in a list of messages."""
    out = []
    for m in messages or []:
        for c in getattr(m, "contents", None) or []:
            if getattr(c, "type", None) == "function_result":
                out.append(c.to_dict())
    return out


class CapturingClient(OpenAIChatClient):
    """OpenAIChatClient with a window on the messages its Responses integration is handed (M3)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.handed: list[list[dict[str, Any]]] = []

    def _inner_get_response(self, *, messages: Any, **kwargs: Any) -> Any:
        self.handed.append(function_results(messages))
        return super()._inner_get_response(messages=messages, **kwargs)


async def capture(provider: Provider, server: tuple[str, list[str]]) -> dict[str, Any]:
    command, args = server
    o: dict[str, Any] = {}
    client = CapturingClient(MODEL, api_key="test", base_url=f"{provider.url}/v1")
    tool = MCPStdioTool(name="contractcheck-fixture", command=command, args=args, load_prompts=False, request_timeout=30)

    async def run() -> None:
        async with tool:
            agent = Agent(client=client, instructions="Call fixture_tool, then answer.", name="capture", tools=[tool])
            response = await agent.run("Call fixture_tool.")
            results = function_results(response.messages)
            if len(results) == 1:
                o["a2"] = results[0]

    try:
        await bounded(run())
    except Exception as e:  # noqa: BLE001  (recorded as the run's error)
        o["run_error"] = e
    if len(client.handed) > 1 and len(client.handed[1]) == 1:
        o["m3"] = client.handed[1][0]
    return o


async def main() -> None:
    await run_lane(
        LANE,
        "agent-framework-core",
        ["default"],
        lambda _f, _configuration, provider, server: capture(provider, server),
        lambda tool_calls: f"no function_result in the run's messages (the MCP server answered {tool_calls} tools/call)",
        "the chat client was never handed the function_result",
    )


if __name__ == "__main__":
    asyncio.run(main())
