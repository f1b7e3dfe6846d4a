"""Tests of the Python capture harness itself (standard library only).

Run inside the capture environment, from examples/capture/python:
    python3 -m unittest discover -s tests -t .
"""

from __future__ import annotations

import asyncio
import glob
import io
import json
import os
import socket
import tempfile
import unittest
import unittest.mock
import urllib.request

from harness import guard, rawmcp
from harness.lane import SERVER, installed_version, leaf, run_lane
from harness.provider import CALL_ID, Provider, h4, responses_tool_output
from harness.record import Fixture, RawNumber, Stage, Writer, fixtures, loads_exact, marshal

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "fixtures", "sources"))


def independent_compact(data: bytes) -> str:
    """Whitespace removal written differently from rawmcp.compact: a character scan of the text."""
    out = []
    in_string = escaped = False
    for ch in data.decode("utf-8"):
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch not in " \t\r\n":
            out.append(ch)
            in_string = ch == '"'
    return "".join(out)


class RawMCPTest(unittest.TestCase):
    def test_every_fixture_is_served_as_its_compacted_bytes(self):
        paths = sorted(glob.glob(os.path.join(SOURCES, "*", "*.json")))
        self.assertGreater(len(paths), 20)
        for path in paths:
            with self.subTest(fixture=os.path.basename(path)):
                with open(path, "rb") as f:
                    data = f.read()
                line = rawmcp.response(data, b"7")
                want = independent_compact(data)
                if '"jsonrpc"' not in want:
                    self.assertEqual(line.decode("utf-8"), '{"jsonrpc":"2.0","id":7,"result":' + want + "}")
                json.loads(line)  # one JSON-RPC response

    def test_numbers_escapes_and_order_are_kept(self):
        fixture = b'{ "structuredContent": {"n": 12345678901234567891, "f": 2.5E-7, "s": "\\u00e9\\/"},\n "content": [] }'
        line = rawmcp.response(fixture, b'"x"')
        self.assertEqual(line, b'{"jsonrpc":"2.0","id":"x","result":{"structuredContent":{"n":12345678901234567891,"f":2.5E-7,"s":"\\u00e9\\/"},"content":[]}}')

    def test_an_envelope_is_served_as_its_own_error_under_the_request_id(self):
        fixture = b'{"jsonrpc": "2.0", "id": 17, "error": {"code": -32602, "message": "Unknown tool"}}'
        self.assertEqual(rawmcp.response(fixture, b"3"), b'{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool"}}')
        fixture = b'{"jsonrpc": "2.0", "id": 17, "result": {"content": []}}'
        self.assertEqual(rawmcp.response(fixture, b"3"), b'{"jsonrpc":"2.0","id":3,"result":{"content":[]}}')

    def test_handshake_list_call_and_unknown_methods(self):
        calls = []
        fixture = b'{"content": []}'
        init = rawmcp.answer(fixture, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}')
        self.assertEqual(json.loads(init)["result"]["protocolVersion"], "2025-06-18")
        tools = json.loads(rawmcp.answer(fixture, b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'))
        self.assertEqual([t["name"] for t in tools["result"]["tools"]], ["fixture_tool"])
        self.assertIsNone(rawmcp.answer(fixture, b'{"jsonrpc":"2.0","method":"notifications/initialized"}'))
        call = rawmcp.answer(fixture, b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fixture_tool"}}', lambda: calls.append(1))
        self.assertEqual(call, b'{"jsonrpc":"2.0","id":3,"result":{"content":[]}}')
        self.assertEqual(calls, [1])
        unknown = json.loads(rawmcp.answer(fixture, b'{"jsonrpc":"2.0","id":4,"method":"server/discover"}'))
        self.assertEqual(unknown["error"]["code"], -32601)

    def test_serve_answers_line_by_line(self):
        inp = io.BytesIO(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n\n{"jsonrpc":"2.0","id":2,"method":"tools/call"}\n')
        out = io.BytesIO()
        rawmcp.serve(b'{"content":[{"type":"text","text":"a"}]}', inp, out)
        self.assertEqual(out.getvalue().splitlines(), [b'{"jsonrpc":"2.0","id":1,"result":{}}', b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a"}]}}'])

    def test_invalid_fixture_is_an_error(self):
        with self.assertRaises(ValueError):
            rawmcp.compact(b'{"content": [')


FIXTURE = Fixture("C09", "/dev/null", b"{}", "ab" * 32)


class RecordTest(unittest.TestCase):
    def records(self, fn):
        buf = io.StringIO()
        fn(Writer(buf, "test-lane", "1.0.0", "default", 2))
        lines = buf.getvalue().split("\n")
        self.assertEqual(lines[-1], "")
        return [json.loads(line) for line in lines[:-1]], lines[:-1]

    def test_fields_in_the_order_of_examples_internal_record(self):
        recs, _ = self.records(
            lambda w: (w.captured(FIXTURE, "A2", {"output": "x"}), w.failed(FIXTURE, "M3", "boom"), w.not_reached(FIXTURE, "H4"), w.not_observable(FIXTURE, "D1"))
        )
        base = ["fixture", "lane", "laneVersion", "configuration", "stage", "repetition", "state"]
        self.assertEqual(list(recs[0]), base + ["carrier", "sourceSha256", "origin"])
        self.assertEqual(list(recs[1]), base + ["error", "sourceSha256", "origin"])
        self.assertEqual(list(recs[2]), base + ["sourceSha256", "origin"])
        self.assertEqual([r["state"] for r in recs], ["captured", "execution_failed", "not_reached", "not_observable"])
        self.assertTrue(all(r["origin"] == "captured" and r["repetition"] == 2 for r in recs))

    def test_a_null_carrier_is_written_and_an_empty_error_is_named(self):
        recs, _ = self.records(lambda w: (w.captured(FIXTURE, "D1", None), w.failed(FIXTURE, "D1", "")))
        self.assertIn("carrier", recs[0])
        self.assertIsNone(recs[0]["carrier"])
        self.assertEqual(recs[1]["error"], "execution failed")

    def test_strings_escaped_as_go_does(self):
        self.assertEqual(marshal("<&>\u2028\u2029é\n\x01"), '"\\u003c\\u0026\\u003e\\u2028\\u2029é\\n\\u0001"')

    def test_numbers_exact_and_non_finite_refused(self):
        self.assertEqual(marshal({"i": 12345678901234567891, "f": 2.5e-07, "r": RawNumber("2.5E-7"), "b": True, "n": None}),
                         '{"i":12345678901234567891,"f":2.5e-07,"r":2.5E-7,"b":true,"n":null}')
        for bad in (float("inf"), float("nan"), {1: "x"}, object()):
            with self.assertRaises(ValueError):
                marshal(bad)

    def test_loads_exact_keeps_spelling(self):
        self.assertEqual(marshal(loads_exact('{"a": [1.50, 1e2, -0]}')), '{"a":[1.50,1e2,-0]}')

    def test_a_carrier_that_is_not_json_writes_nothing(self):
        buf = io.StringIO()
        w = Writer(buf, "l", "v", "c", 1)
        with self.assertRaises(ValueError):
            w.captured(FIXTURE, "A2", {"x": float("nan")})
        self.assertEqual(buf.getvalue(), "")

    def test_stages_stop_at_the_first_missing_carrier(self):
        recs, _ = self.records(lambda w: w.stages(FIXTURE, [Stage("A2", {"a": 1}, True), Stage("M3", missing="never handed"), Stage("H4", {"b": 2}, True)], "RuntimeError: x"))
        self.assertEqual([r["state"] for r in recs], ["captured", "execution_failed", "not_reached"])
        self.assertEqual(recs[1]["error"], "never handed: RuntimeError: x")

    def test_fixtures_are_listed_by_id_with_their_digest(self):
        fs = fixtures(SOURCES)
        self.assertEqual([f.id for f in fs], sorted(f.id for f in fs))
        self.assertEqual(len(fs[0].sha256), 64)


class ProviderTest(unittest.TestCase):
    def test_function_call_then_text_and_bodies_recorded_as_sent(self):
        p = Provider()
        try:
            for n, want in ((1, "function_call"), (2, "message")):
                body = json.dumps({"model": "m", "input": [{"type": "function_call_output", "call_id": CALL_ID, "output": "x"}], "n": n}).encode()
                req = urllib.request.Request(p.url + "/v1/responses", data=body, headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(req) as resp:
                    answer = json.load(resp)
                self.assertEqual(answer["output"][0]["type"], want)
            self.assertEqual(len(p.bodies()), 2)
            self.assertEqual(p.requests(), ["POST /v1/responses", "POST /v1/responses"])
            st = h4(p.bodies())
            self.assertEqual((st.stage, st.has_carrier, st.missing), ("H4", True, ""))
            self.assertEqual(st.carrier["output"], "x")
            p.reset()
            self.assertEqual(p.bodies(), [])
        finally:
            p.close()

    def test_a_body_without_the_tool_output_is_a_failure_not_a_carrier(self):
        without = json.dumps({"input": [{"role": "user", "content": "x"}]}).encode()
        st = h4([b"{}", without])
        self.assertFalse(st.has_carrier)
        self.assertIn("no function_call_output", st.missing)
        st = h4([b"{}"])
        self.assertFalse(st.has_carrier)
        self.assertIn("no request after the tool call", st.missing)
        two = json.dumps({"input": [{"type": "function_call_output"}, {"type": "function_call_output"}]}).encode()
        with self.assertRaises(ValueError):
            responses_tool_output(two)

    def test_h4_keeps_number_spelling(self):
        body = b'{"input":[{"type":"function_call_output","call_id":"c","output":"x","n":1.50}]}'
        self.assertEqual(marshal(responses_tool_output(body)), '{"type":"function_call_output","call_id":"c","output":"x","n":1.50}')


class GuardTest(unittest.TestCase):
    def setUp(self):
        self.before = len(guard.refusals())

    def test_loopback_is_recognised(self):
        for host in ("127.0.0.1", "127.9.9.9", "::1", "[::1]", "localhost", "a.localhost", "::ffff:127.0.0.1", ""):
            self.assertTrue(guard.is_loopback(host), host)
        for host in ("10.0.0.1", "192.168.1.1", "8.8.8.8", "example.com", "::ffff:10.0.0.1", "2001:db8::1"):
            self.assertFalse(guard.is_loopback(host), host)

    def test_non_loopback_connections_and_lookups_are_refused_before_anything_is_sent(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            with self.assertRaises(guard.NetworkGuardError):
                s.connect(("192.0.2.1", 443))  # TEST-NET-1: refused by the guard, never dialled
            with self.assertRaises(guard.NetworkGuardError):
                s.connect_ex(("192.0.2.1", 443))
        finally:
            s.close()
        with self.assertRaises(guard.NetworkGuardError):
            socket.getaddrinfo("example.com", 443)
        with self.assertRaises(guard.NetworkGuardError):
            socket.gethostbyname("example.com")
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            with self.assertRaises(guard.NetworkGuardError):
                u.sendto(b"x", ("192.0.2.1", 53))
        finally:
            u.close()
        self.assertEqual(len(guard.refusals()) - self.before, 5)

    def test_loopback_connections_go_through(self):
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            c.connect(srv.getsockname())
        finally:
            c.close()
            srv.close()
        self.assertEqual(len(guard.refusals()), self.before)


class LaneTest(unittest.TestCase):
    def test_task_group_wrappers_of_one_exception_are_unwrapped(self):
        inner = ValueError("x")
        self.assertIs(leaf(ExceptionGroup("g", [ExceptionGroup("h", [inner])])), inner)
        two = ExceptionGroup("g", [ValueError("a"), ValueError("b")])
        self.assertIs(leaf(two), two)

    def test_run_lane_writes_d1_then_a2_m3_h4_for_each_fixture_not_skipped(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "fixtures", "suite"))
            for fid in ("C01", "C02", "C03", "Z09"):
                with open(os.path.join(d, "fixtures", "suite", fid + ".json"), "w") as f:
                    f.write('{"content":[]}')
            out = os.path.join(d, "records.jsonl")
            seen: list[tuple[str, int]] = []

            def post(provider, n):
                body = json.dumps({"input": [{"type": "function_call_output", "call_id": CALL_ID, "output": "x"}], "n": n}).encode()
                req = urllib.request.Request(provider.url + "/v1/responses", data=body, headers={"Content-Type": "application/json"})
                urllib.request.urlopen(req).close()

            async def capture(f, configuration, provider, server):
                # Each fixture starts on a reset provider, with the raw server serving it.
                command, args = server
                seen.append((f.id, len(provider.bodies())))
                self.assertEqual(args[0:2], [SERVER, f.path])
                if f.id == "C01":  # every stage; the tool was called once, H4 from the bodies
                    with open(args[2], "a") as log:
                        log.write("call\n")
                    post(provider, 1)
                    post(provider, 2)
                    return {"a2": {"c": configuration}, "m3": {"m": 1}}
                if f.id == "C02":  # D1 captured, the run failed before A2
                    return {"d1": Stage("D1", {"d": 1}, True), "run_error": ValueError("boom")}
                return {"d1": Stage("D1", missing="no D1"), "run_error": ValueError("boom")}

            # GuardTest's deliberate refusals stay in this process's log; finish reads them.
            with unittest.mock.patch.object(guard, "refusals", return_value=[]):
                asyncio.run(run_lane(
                    "test-lane", "mcp", ["default", "other"], capture,
                    lambda n: f"no A2 ({n} tools/call)", "no M3",
                    skip=lambda f, configuration: f.id == "Z09",
                    argv=["--fixtures", os.path.join(d, "fixtures"), "--configuration", "other", "--repetition", "2", "--out", out],
                ))
            with open(out, encoding="utf-8") as f:
                recs = [json.loads(line) for line in f]
        self.assertEqual(seen, [("C01", 0), ("C02", 0), ("C03", 0)])
        self.assertEqual([(r["fixture"], r["stage"], r["state"], r.get("error")) for r in recs], [
            ("C01", "D1", "not_observable", None),
            ("C01", "A2", "captured", None),
            ("C01", "M3", "captured", None),
            ("C01", "H4", "captured", None),
            ("C02", "D1", "captured", None),
            ("C02", "A2", "execution_failed", "no A2 (0 tools/call): ValueError: boom"),
            ("C02", "M3", "not_reached", None),
            ("C02", "H4", "not_reached", None),
            ("C03", "D1", "execution_failed", "no D1: ValueError: boom"),
            ("C03", "A2", "execution_failed", "no A2 (0 tools/call): ValueError: boom"),
            ("C03", "M3", "not_reached", None),
            ("C03", "H4", "not_reached", None),
        ])
        self.assertEqual(recs[1]["carrier"], {"c": "other"})
        self.assertEqual(recs[3]["carrier"]["output"], "x")
        version = installed_version("mcp")
        self.assertTrue(all(r["lane"] == "test-lane" and r["laneVersion"] == version and r["configuration"] == "other" and r["repetition"] == 2 for r in recs))

if __name__ == "__main__":
    unittest.main()
