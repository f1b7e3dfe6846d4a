"""What every Python lane program shares.

Its command line, the process environment (no key or base URL from outside, tracing and telemetry
off), the raw server's command, a call log per fixture, a per-fixture time bound, the installed
version of a distribution, the final network check, and the run of a lane behind a fake provider
(run_lane).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TextIO

from . import guard
from .provider import Provider, h4
from .record import Fixture, Stage, Writer, fixtures

PY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(PY_DIR, "rawmcp_server.py")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(PY_DIR)))
PER_FIXTURE_SECONDS = 30.0

# The structured fixtures (families structured, structured-stress, structured-2026, numbers and
# visibility, and X09): the only ones a configuration that changes only how structuredContent is carried is
# applied to, as in the other editions' lanes.
STRUCTURED = frozenset({"C01", "C02", "C03", "C04", "C05", "C06", "X01", "X02", "X03", "X08", "X09", "X12", "R09", "V01", "V02", "V03", "V04"})

_ENV_PREFIXES = re.compile(r"^(OPENAI_|AZURE_|GOOGLE_|GEMINI_|ANTHROPIC_|LANGSMITH_|LANGCHAIN_|OTEL_|ENABLE_|AGENT_FRAMEWORK_)")


def clean_environment() -> None:
    """Drops every provider, tracing and telemetry variable and turns tracing off everywhere."""
    for name in list(os.environ):
        if _ENV_PREFIXES.match(name):
            del os.environ[name]
    os.environ.update(
        {
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
            "OPENAI_AGENTS_DONT_LOG_MODEL_DATA": "1",
            "OPENAI_AGENTS_DONT_LOG_TOOL_DATA": "1",
            "OTEL_SDK_DISABLED": "true",
            "OTEL_TRACES_EXPORTER": "none",
            "OTEL_METRICS_EXPORTER": "none",
            "OTEL_LOGS_EXPORTER": "none",
            "ENABLE_INSTRUMENTATION": "false",
            "ENABLE_SENSITIVE_DATA": "false",
        }
    )


def installed_version(distribution: str) -> str:
    """The version of an installed distribution, as importlib.metadata reads it."""
    return importlib.metadata.version(distribution)


@dataclass
class Options:
    fixtures: list[Fixture]
    repetition: int
    configuration: str
    out: str | None


def options(configurations: list[str], distribution: str, argv: list[str] | None = None) -> Options:
    """Parses --fixtures, --repetition, --configuration, --only and --out.

    --print-version prints the installed version of distribution (the lane version) and exits.
    """
    p = argparse.ArgumentParser()
    p.add_argument("--print-version", action="store_true")
    p.add_argument("--fixtures", default=os.path.join(REPO, "fixtures", "sources"))
    p.add_argument("--repetition", type=int, default=1)
    p.add_argument("--configuration", default="default")
    p.add_argument("--only", default="")
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    if a.print_version:
        print(installed_version(distribution))
        sys.exit(0)
    if a.configuration not in configurations:
        p.error(f"unknown configuration {a.configuration} (have {', '.join(configurations)})")
    if a.repetition < 1:
        p.error(f"bad --repetition {a.repetition}")
    fs = fixtures(a.fixtures)
    if a.only:
        only = set(a.only.split(","))
        fs = [f for f in fs if f.id in only]
    return Options(fs, a.repetition, a.configuration, a.out)


class CallLog:
    """A file the raw server appends to for each tools/call; count() reads it."""

    def __init__(self) -> None:
        self._dir = tempfile.mkdtemp(prefix="cc-calls-")
        self.path = os.path.join(self._dir, "calls")

    def count(self) -> int:
        try:
            with open(self.path) as f:
                return sum(1 for line in f if line.strip())
        except FileNotFoundError:
            return 0

    def remove(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)


def server_command(f: Fixture, calls: CallLog) -> tuple[str, list[str]]:
    """The command and arguments that start the raw MCP server for a fixture."""
    return sys.executable, [SERVER, f.path, calls.path]


async def bounded(coro: Awaitable[Any], seconds: float = PER_FIXTURE_SECONDS) -> Any:
    """Awaits coro, failing after seconds: only a hang reaches the bound (the provider answers at once)."""
    try:
        return await asyncio.wait_for(coro, seconds)
    except asyncio.TimeoutError:
        raise TimeoutError(f"no answer within {seconds:g} s") from None


def leaf(err: BaseException) -> BaseException:
    """The exception inside task-group wrappers: an ExceptionGroup of one is unwrapped."""
    while isinstance(err, BaseExceptionGroup) and len(err.exceptions) == 1:
        err = err.exceptions[0]
    return err


def error_text(err: BaseException | None) -> str:
    """The message of an exception as a record's error: its type and str() (task-group wrappers of
    a single exception unwrapped)."""
    if err is None:
        return ""
    err = leaf(err)
    s = str(err)
    return f"{type(err).__name__}: {s}" if s else type(err).__name__


def writer(lane: str, lane_version: str, o: Options) -> tuple[Writer, Callable[[], None]]:
    """The record writer of a lane run and a function closing it.

    Records are appended to --out (frameworks may log to stdout, so stdout is no place for
    records); without it they go to stdout.
    """
    out: TextIO
    if o.out:
        out = open(o.out, "a", encoding="utf-8", newline="\n")
        return Writer(out, lane, lane_version, o.configuration, o.repetition), out.close
    return Writer(sys.stdout, lane, lane_version, o.configuration, o.repetition), lambda: None


def finish() -> None:
    """Fails the process when the guard refused any connection, even one a framework caught."""
    refused = guard.refusals()
    if refused:
        for r in refused:
            sys.stderr.write(r + "\n")
        sys.stderr.write("capture: a non-loopback connection was attempted; the records are void\n")
        sys.exit(3)


async def run_lane(
    lane: str,
    distribution: str,
    configurations: list[str],
    capture: Callable[[Fixture, str, Provider, tuple[str, list[str]]], Awaitable[dict[str, Any]]],
    missing_a2: Callable[[int], str],
    missing_m3: str,
    skip: Callable[[Fixture, str], bool] | None = None,
    argv: list[str] | None = None,
) -> None:
    """Runs a lane behind one fake provider and writes its records.

    The fixtures of the command line (options) are captured one by one; the provider and the
    writer are closed however the loop ends, then finish checks the network. A fixture skip(f,
    configuration) names is left out; for the others the provider is reset and capture(f,
    configuration, provider, command) runs the framework with command (server_command: the raw
    server serving f, logging its tools/call) as its stdio MCP server. It returns a dict with a2,
    m3, run_error and d1 (a Stage) as far as the run gave them. D1 is d1 (captured, or failed
    with the run's error when that says more), else not_observable; then A2, M3, and H4 (the tool
    output of the provider's second request body) with the run's error (Writer.stages).
    missing_a2(tool_calls) and missing_m3 say why A2 or M3 has no carrier.
    """
    opts = options(configurations, distribution, argv)
    w, close = writer(lane, installed_version(distribution), opts)
    provider = Provider()
    try:
        for f in opts.fixtures:
            if skip is not None and skip(f, opts.configuration):
                continue
            provider.reset()
            calls = CallLog()
            try:
                o = await capture(f, opts.configuration, provider, server_command(f, calls))
                tool_calls = calls.count()
            finally:
                calls.remove()
            run_error = error_text(o.get("run_error"))
            d1: Stage | None = o.get("d1")
            if d1 is None:
                w.not_observable(f, "D1")
            elif d1.has_carrier:
                w.captured(f, "D1", d1.carrier)
            else:
                w.failed(f, "D1", d1.missing + (": " + run_error if run_error and d1.missing != run_error else ""))
            w.stages(
                f,
                [
                    Stage("A2", o.get("a2"), "a2" in o, missing_a2(tool_calls)),
                    Stage("M3", o.get("m3"), "m3" in o, missing_m3),
                    h4(provider.bodies()),
                ],
                run_error,
            )
    finally:
        provider.close()
        close()
    finish()
