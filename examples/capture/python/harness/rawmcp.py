"""A raw MCP server for the capture lanes (no SDK, so nothing re-encodes the fixture on the server side).

The Python port of examples/internal/rawmcp. It speaks newline-delimited JSON-RPC (the stdio
transport's framing), answers initialize (echoing the client's protocol version), ping and
tools/list (one tool, fixture_tool), and answers every tools/call with the fixture's W0 bytes
compacted to one line (insignificant whitespace only: numbers, escapes and key order are kept as
written). A fixture that is itself a JSON-RPC response envelope is served as that envelope's result
or error member under the request's id. Every other method gets -32601.

Run as a process: python3 rawmcp_server.py FIXTURE.json [CALLS_FILE]; it appends one line to
CALLS_FILE for every tools/call it answers, so a harness can tell whether the framework called the
tool.
"""

from __future__ import annotations

import json
from typing import BinaryIO, Callable

TOOL_NAME = "fixture_tool"

_WS = frozenset(b" \t\n\r")


def compact(fixture: bytes) -> bytes:
    """Removes the insignificant whitespace of JSON text and returns the other bytes unchanged.

    It raises ValueError when the text is not JSON.
    """
    json.loads(fixture.decode("utf-8"))  # validates; the bytes below are what is served
    out = bytearray()
    in_string = False
    i = 0
    n = len(fixture)
    while i < n:
        b = fixture[i]
        if in_string:
            out.append(b)
            if b == 0x5C:  # backslash: the escaped byte, whatever it is
                i += 1
                out.append(fixture[i])
            elif b == 0x22:
                in_string = False
        elif b not in _WS:
            out.append(b)
            if b == 0x22:
                in_string = True
        i += 1
    return bytes(out)


def _skip_value(buf: bytes, i: int) -> int:
    """Returns the index just past the compact JSON value starting at i."""
    b = buf[i]
    if b == 0x22:
        i += 1
        while buf[i] != 0x22:
            if buf[i] == 0x5C:
                i += 1
            i += 1
        return i + 1
    if b in (0x7B, 0x5B):
        depth = 0
        in_string = False
        while i < len(buf):
            c = buf[i]
            if in_string:
                if c == 0x5C:
                    i += 1
                elif c == 0x22:
                    in_string = False
            elif c == 0x22:
                in_string = True
            elif c in (0x7B, 0x5B):
                depth += 1
            elif c in (0x7D, 0x5D):
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise ValueError("unterminated JSON value")
    while i < len(buf) and buf[i] not in (0x2C, 0x7D, 0x5D):
        i += 1
    return i


def members(buf: bytes) -> list[tuple[str, bytes]]:
    """Lists the top-level members of a compact JSON object as (key, raw value bytes)."""
    out: list[tuple[str, bytes]] = []
    if not buf or buf[0] != 0x7B:
        return out
    i = 1
    while i < len(buf) and buf[i] != 0x7D:
        key_end = _skip_value(buf, i)
        key = json.loads(buf[i:key_end].decode("utf-8"))
        val_start = key_end + 1  # past ':'
        val_end = _skip_value(buf, val_start)
        out.append((key, buf[val_start:val_end]))
        i = val_end + 1 if val_end < len(buf) and buf[val_end] == 0x2C else val_end
    return out


def response(fixture: bytes, raw_id: bytes) -> bytes:
    """The JSON-RPC response line (no newline) a tools/call with the given raw id gets.

    The fixture is the result or, for an envelope, its own result or error member. As in the Go
    server, the last of duplicate members wins.
    """
    body = compact(fixture)
    env = dict(members(body))
    member, value = "result", body
    if "jsonrpc" in env:
        if "error" in env:
            member, value = "error", env["error"]
        else:
            value = env["result"]
    return b'{"jsonrpc":"2.0","id":' + raw_id + b',"' + member.encode() + b'":' + value + b"}"


def _raw_id(line: bytes) -> bytes | None:
    for key, value in members(compact(line)):
        if key == "id":
            return value
    return None


def answer(fixture: bytes, line: bytes, on_call: Callable[[], None] | None = None) -> bytes | None:
    """The response line for one request line, or None for a notification."""
    req = json.loads(line.decode("utf-8"))
    if not isinstance(req, dict) or "id" not in req or not isinstance(req.get("method"), str):
        return None  # a notification, or a response to nothing we asked
    rid = _raw_id(line)
    assert rid is not None

    def result(v: str) -> bytes:
        return b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + v.encode("utf-8") + b"}"

    method = req["method"]
    if method == "initialize":
        params = req.get("params") if isinstance(req.get("params"), dict) else {}
        version = params.get("protocolVersion")
        if not isinstance(version, str) or version == "":
            version = "2025-11-25"  # accept what the client speaks: the result is what is measured
        return result(
            '{"protocolVersion":%s,"capabilities":{"tools":{}},'
            '"serverInfo":{"name":"contractcheck-fixture","version":"1"}}' % json.dumps(version)
        )
    if method == "ping":
        return result("{}")
    if method == "tools/list":
        return result(
            '{"tools":[{"name":"%s","description":"Returns the fixture result.",'
            '"inputSchema":{"type":"object","properties":{}}}]}' % TOOL_NAME
        )
    if method == "tools/call":
        if on_call is not None:
            on_call()
        return response(fixture, rid)
    message = json.dumps("method not found: " + method)
    return b'{"jsonrpc":"2.0","id":' + rid + b',"error":{"code":-32601,"message":' + message.encode() + b"}}"


def serve(fixture: bytes, inp: BinaryIO, out: BinaryIO, on_call: Callable[[], None] | None = None) -> None:
    """Answers newline-delimited requests from inp on out until inp ends."""
    for line in inp:
        line = line.strip()
        if not line:
            continue
        resp = answer(fixture, line, on_call)
        if resp is not None:
            out.write(resp + b"\n")
            out.flush()
