"""A raw MCP server (no SDK), for the reproduction: python3 rawmcp_server.py W0.json serves W0.json
over stdio, newline-delimited JSON-RPC. It answers initialize, ping and tools/list, and every
tools/call with the file compacted to one line (insignificant whitespace only: numbers, escapes and
key order are kept as written); a file that is a JSON-RPC response envelope is answered with its own
result or error member. Every other method gets -32601."""

import json
import sys

TOOL = "fixture_tool"


def compact(src: bytes) -> bytes:
    """The JSON text without the whitespace outside strings, byte for byte."""
    json.loads(src)
    out = bytearray()
    in_string = False
    i = 0
    while i < len(src):
        b = src[i]
        if in_string:
            out.append(b)
            if b == 0x5C:
                i += 1
                out.append(src[i])
            elif b == 0x22:
                in_string = False
        elif b not in (0x20, 0x09, 0x0A, 0x0D):
            out.append(b)
            if b == 0x22:
                in_string = True
        i += 1
    return bytes(out)


def member(buf: bytes, name: str) -> bytes:
    """The bytes of a top-level member's value in compact JSON."""
    key = json.dumps(name).encode() + b":"
    depth, in_string, i = 0, False, 0
    while i < len(buf):
        c = buf[i]
        if in_string:
            if c == 0x5C:
                i += 1
            elif c == 0x22:
                in_string = False
        elif c in (0x7B, 0x5B):
            depth += 1
        elif c in (0x7D, 0x5D):
            depth -= 1
        elif c == 0x22:
            if depth == 1 and buf[i : i + len(key)] == key:
                start = i + len(key)
                return buf[start : end(buf, start)]
            in_string = True
        i += 1
    raise ValueError(f"no member {name}")


def end(buf: bytes, i: int) -> int:
    """The index just past the compact JSON value starting at i."""
    depth, in_string, j = 0, False, i
    while j < len(buf):
        c = buf[j]
        if in_string:
            if c == 0x5C:
                j += 1
            elif c == 0x22:
                in_string = False
                if depth == 0:
                    return j + 1
        elif c == 0x22:
            in_string = True
        elif c in (0x7B, 0x5B):
            depth += 1
        elif c in (0x7D, 0x5D):
            depth -= 1
            if depth == 0:
                return j + 1
        elif depth == 0 and c in (0x2C, 0x7D):
            return j
        j += 1
    return len(buf)


def answer(req: dict, fixture: bytes) -> str:
    rid = json.dumps(req.get("id"))
    method = req.get("method")

    def result(v: str) -> str:
        return f'{{"jsonrpc":"2.0","id":{rid},"result":{v}}}'

    if method == "initialize":
        version = (req.get("params") or {}).get("protocolVersion") or "2025-11-25"
        return result(json.dumps({"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "repro", "version": "1"}}))
    if method == "ping":
        return result("{}")
    if method == "tools/list":
        return result(json.dumps({"tools": [{"name": TOOL, "description": "Returns the fixture result.", "inputSchema": {"type": "object", "properties": {}}}]}))
    if method == "tools/call":
        doc = json.loads(fixture)
        if isinstance(doc, dict) and "jsonrpc" in doc:
            which = "error" if "error" in doc else "result"
            return f'{{"jsonrpc":"2.0","id":{rid},"{which}":{member(fixture, which).decode("utf-8")}}}'
        return result(fixture.decode("utf-8"))
    return json.dumps({"jsonrpc": "2.0", "id": req.get("id"), "error": {"code": -32601, "message": f"method not found: {method}"}})


def main() -> None:
    with open(sys.argv[1], "rb") as f:
        fixture = compact(f.read())
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        if req.get("id") is None:
            continue
        # Bytes, UTF-8: the fixture goes out as it is, whatever the locale's encoding.
        sys.stdout.buffer.write(answer(req, fixture).encode("utf-8") + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
