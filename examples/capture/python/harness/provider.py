"""A loopback HTTP server that plays the model provider: the OpenAI Responses API (POST .../responses).

The first request of a fixture gets a function call to fixture_tool (call id CALL_ID, item id
ITEM_ID), every later one a final text answer; every request body is recorded as sent, so the
provider SDK's real request body is the H4 carrier. It listens on 127.0.0.1 only, in a thread of
the capture process.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .record import Stage, loads_exact

CALL_ID = "call_fixture_tool_1"
ITEM_ID = "fc_fixture_tool_1"
TEXT = "Done."

_USAGE = {
    "input_tokens": 1,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 1,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 2,
}


def responses_answer(n: int, body: Any) -> dict[str, Any]:
    """The Responses API answer to the n-th request (1-based) of a fixture."""
    if n == 1:
        output: list[dict[str, Any]] = [
            {"type": "function_call", "id": ITEM_ID, "call_id": CALL_ID, "name": "fixture_tool", "arguments": "{}", "status": "completed"}
        ]
    else:
        output = [
            {
                "type": "message",
                "id": "msg_fixture_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": TEXT, "annotations": [], "logprobs": []}],
            }
        ]
    model = body.get("model") if isinstance(body, dict) and isinstance(body.get("model"), str) else "gpt-4.1"
    return {
        "id": f"resp_fixture_{n}",
        "object": "response",
        "created_at": 1700000000,
        "status": "completed",
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "temperature": 1,
        "top_p": 1,
        "text": {"format": {"type": "text"}},
        "usage": _USAGE,
    }


class Provider:
    """The fake provider: url, bodies() (raw bytes, in order), requests(), reset(), close()."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bodies: list[bytes] = []
        self._requests: list[str] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # no access log on stderr

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with provider._lock:
                    provider._bodies.append(raw)
                    provider._requests.append(f"POST {self.path}")
                    n = len(provider._bodies)
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                path = self.path.split("?", 1)[0]
                if path.endswith("/responses"):
                    self._send(200, responses_answer(n, body))
                else:
                    self._send(404, {"error": {"message": f"fake provider: no route for POST {self.path}"}})

            def do_GET(self) -> None:  # noqa: N802
                with provider._lock:
                    provider._requests.append(f"GET {self.path}")
                self._send(404, {"error": {"message": f"fake provider: no route for GET {self.path}"}})

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def bodies(self) -> list[bytes]:
        with self._lock:
            return list(self._bodies)

    def requests(self) -> list[str]:
        with self._lock:
            return list(self._requests)

    def reset(self) -> None:
        with self._lock:
            self._bodies.clear()
            self._requests.clear()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def responses_tool_output(raw: bytes | None) -> Any:
    """The function_call_output item of a POST /responses body, numbers spelt as sent.

    A body without exactly one such item raises ValueError naming what is missing: the tool output
    never reached the wire, which is an execution failure of the capture, never a carrier.
    """
    if raw is None:
        raise ValueError("the provider received no request after the tool call")
    body = loads_exact(raw)
    inp = body.get("input") if isinstance(body, dict) else None
    items = [i for i in inp if isinstance(i, dict) and i.get("type") == "function_call_output"] if isinstance(inp, list) else []
    if not items:
        raise ValueError("the provider request body has no function_call_output input item")
    if len(items) > 1:
        raise ValueError(f"the provider request body has {len(items)} function_call_output input items")
    return items[0]


def h4(bodies: list[bytes]) -> Stage:
    """Stage H4: the carrier read from the request that followed the tool call (the second body),
    or the reason it cannot be had."""
    try:
        return Stage("H4", responses_tool_output(bodies[1] if len(bodies) > 1 else None), True)
    except ValueError as e:
        return Stage("H4", missing=str(e))
