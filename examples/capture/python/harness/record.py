"""Observation records (SPEC section 7), one JSON object per line, and the fixtures the lanes serve.

The fields and their order are those of examples/internal/record (Go), and strings are escaped as
Go's encoding/json escapes them (<, >, &, U+2028 and U+2029 as \\u escapes), so a Python lane's
records read like every other lane's. Carriers are written from the Python values the framework
holds: dict order kept, ints exact, floats as Python writes them (repr), and RawNumber values (a
number parsed from a request body with its spelling kept) exactly as spelt.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from typing import Any, Iterable, TextIO


@dataclass(frozen=True)
class Fixture:
    """One source result as served: its id, file and exact bytes."""

    id: str
    path: str
    bytes: bytes
    sha256: str


def fixtures(directory: str) -> list[Fixture]:
    """Lists directory/<suite>/<id>.json sorted by id."""
    out: list[Fixture] = []
    for suite in sorted(os.listdir(directory)):
        sdir = os.path.join(directory, suite)
        if not os.path.isdir(sdir):
            continue
        for name in os.listdir(sdir):
            if not name.endswith(".json"):
                continue
            path = os.path.join(sdir, name)
            with open(path, "rb") as f:
                data = f.read()
            out.append(Fixture(name[: -len(".json")], path, data, hashlib.sha256(data).hexdigest()))
    out.sort(key=lambda f: f.id)
    if not out:
        raise ValueError(f"no fixtures under {directory}")
    return out


class RawNumber(str):
    """A JSON number kept as it was spelt (parse_int / parse_float of json.loads)."""


def loads_exact(text: str | bytes) -> Any:
    """json.loads keeping every number's spelling (as RawNumber), for bodies read off the wire."""
    return json.loads(text, parse_int=RawNumber, parse_float=RawNumber, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# _ESCAPES are the characters Go's encoding/json writes as an escape of its own: JSON's short
# escapes, and the HTML-sensitive and line-separator characters it writes as \u escapes.
_ESCAPES = {
    '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f",
    "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029",
}


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        escaped = _ESCAPES.get(ch)
        if escaped is not None:
            out.append(escaped)
        elif o < 0x20:
            out.append("\\u%04x" % o)
        elif 0xD800 <= o <= 0xDFFF:
            raise ValueError("a lone surrogate has no UTF-8 spelling")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def marshal(value: Any) -> str:
    """Writes a JSON-shaped Python value compactly, strings escaped as Go's encoding/json does.

    Non-finite floats are an error (they are not JSON); so is any other type.
    """
    parts: list[str] = []
    _marshal_to(parts, value)
    return "".join(parts)


def _marshal_to(parts: list[str], v: Any) -> None:
    if v is None:
        parts.append("null")
    elif v is True:
        parts.append("true")
    elif v is False:
        parts.append("false")
    elif isinstance(v, RawNumber):
        parts.append(str.__str__(v))
    elif isinstance(v, str):
        parts.append(_string(v))
    elif isinstance(v, int):
        parts.append(int.__repr__(v))
    elif isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"the float {v!r} is not JSON")
        parts.append(float.__repr__(v))
    elif isinstance(v, dict):
        parts.append("{")
        for i, (k, e) in enumerate(v.items()):
            if not isinstance(k, str):
                raise ValueError(f"a dict key {k!r} is not a string")
            if i:
                parts.append(",")
            parts.append(_string(k))
            parts.append(":")
            _marshal_to(parts, e)
        parts.append("}")
    elif isinstance(v, (list, tuple)):
        parts.append("[")
        for i, e in enumerate(v):
            if i:
                parts.append(",")
            _marshal_to(parts, e)
        parts.append("]")
    else:
        raise ValueError(f"{type(v).__name__} is not a JSON value")


@dataclass
class Stage:
    """One observed stage: its carrier, or why there is none."""

    stage: str
    carrier: Any = None
    has_carrier: bool = False
    missing: str = ""


class Writer:
    """Writes the records of one lane, version, configuration and repetition to a text stream."""

    def __init__(self, out: TextIO, lane: str, lane_version: str, configuration: str, repetition: int):
        self.out = out
        self.lane = lane
        self.lane_version = lane_version
        self.configuration = configuration
        self.repetition = repetition

    def write(self, f: Fixture, stage: str, state: str, carrier: Any = None, has_carrier: bool = False, error: str = "") -> None:
        rec: dict[str, Any] = {
            "fixture": f.id,
            "lane": self.lane,
            "laneVersion": self.lane_version,
            "configuration": self.configuration,
            "stage": stage,
            "repetition": self.repetition,
            "state": state,
        }
        if has_carrier:
            rec["carrier"] = carrier
        if error:
            rec["error"] = error
        rec["sourceSha256"] = f.sha256
        rec["origin"] = "captured"
        line = marshal(rec)  # marshalled whole first: a carrier that is not JSON writes nothing
        self.out.write(line + "\n")
        self.out.flush()

    def captured(self, f: Fixture, stage: str, carrier: Any) -> None:
        self.write(f, stage, "captured", carrier, True)

    def failed(self, f: Fixture, stage: str, error: str) -> None:
        self.write(f, stage, "execution_failed", error=error or "execution failed")

    def not_reached(self, f: Fixture, stage: str) -> None:
        self.write(f, stage, "not_reached")

    def not_applicable(self, f: Fixture, stage: str) -> None:
        self.write(f, stage, "not_applicable")

    def not_observable(self, f: Fixture, stage: str) -> None:
        self.write(f, stage, "not_observable")

    def stages(self, f: Fixture, stages: Iterable[Stage], run_error: str = "") -> None:
        """Writes the observed stages in order.

        A stage with a carrier is captured; the first stage without one is execution_failed (with
        its reason and the run's error), and every later stage not_reached. No retries.
        """
        failed = False
        for st in stages:
            if failed:
                self.not_reached(f, st.stage)
            elif st.has_carrier:
                self.captured(f, st.stage, st.carrier)
            else:
                failed = True
                msg = st.missing
                if run_error:
                    msg += ": " + run_error
                self.failed(f, st.stage, msg)
