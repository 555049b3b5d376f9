"""Shared, SDK-free helpers for the Python client driver scripts (py_client.py, py1_client.py).

Standard library only: imported from venv A (mcp 2.x) and venv B (mcp 1.x) alike.
Output protocol of every driver: one `ok <check>` / `FAIL <check>: <details>` line per check,
then `N passed, N failed`; exit 0 only when nothing failed (and something passed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Iterable

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
DEFAULT_GOLDEN = os.path.join(REPO_ROOT, "tests", "golden", "example")
WIRETAP = os.path.join(HERE, "wiretap.py")


def load_contract() -> dict[str, Any]:
    with open(os.path.join(HERE, "contract.json")) as f:
        return json.load(f)


def parse_args(description: str, modes: Iterable[str] | None = None, default_mode: str | None = None):
    """`<script> [options] -- <server command and args...>`."""
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.stderr.write(f"usage: {os.path.basename(sys.argv[0])} [options] -- <server command and args...>\n")
        sys.exit(2)
    split = argv.index("--")
    own, server = argv[:split], argv[split + 1 :]
    ap = argparse.ArgumentParser(description=description)
    if modes:
        ap.add_argument("--mode", choices=list(modes), default=default_mode)
    ap.add_argument("--golden-dir", default=DEFAULT_GOLDEN,
                    help="directory with <tool>.json golden inputSchemas (default: tests/golden/example)")
    ap.add_argument("--lenient-texts", action="store_true",
                    help="self-check only: accept any error text/shape where the contract fixes toolwire's texts")
    ap.add_argument("--timeout", type=float, default=90.0, help="overall time limit in seconds (default 90)")
    ap.add_argument("--call-timeout", type=float, default=20.0, help="per-request time limit in seconds (default 20)")
    ap.add_argument("--verbose", "-v", action="store_true", help="print notes about peer behaviour to stderr")
    opts = ap.parse_args(own)
    if not server:
        ap.error("no server command after --")
    opts.server = server
    return opts


def short(value: Any, limit: int = 400) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + "..."


class Checks:
    def __init__(self, lenient: bool = False, verbose: bool = False):
        self.lenient = lenient
        self.verbose = verbose
        self.passed = 0
        self.failed = 0
        self.seen: set[str] = set()

    def _line(self, text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def ok(self, name: str) -> None:
        self.seen.add(name)
        self.passed += 1
        self._line(f"ok {name}")

    def fail(self, name: str, details: str) -> None:
        self.seen.add(name)
        self.failed += 1
        self._line(f"FAIL {name}: {short(details, 600)}")

    def check(self, name: str, problems: list[str]) -> bool:
        if problems:
            self.fail(name, "; ".join(problems))
            return False
        self.ok(name)
        return True

    def note(self, text: str) -> None:
        if self.verbose:
            sys.stderr.write(f"note: {text}\n")

    def finish(self, expected: Iterable[str] = ()) -> int:
        for name in expected:
            if name not in self.seen:
                self.fail(name, "not run (an earlier step aborted the session)")
        self._line(f"{self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 and self.passed > 0 else 1


def result_problems(case: dict[str, Any], is_error: bool | None, content: list[dict[str, Any]],
                    structured: Any, lenient: bool) -> list[str]:
    """Compare one tools/call result (already reduced to plain JSON values) with a contract case."""
    problems = []
    if bool(is_error) != case["is_error"]:
        problems.append(f"isError={is_error!r}, want {case['is_error']}")
    texts = [b.get("text") for b in content if b.get("type") == "text"]
    want = case["text"]
    if len(content) != 1 or len(texts) != 1:
        problems.append(f"want exactly one text block, got {short(content)}")
    elif lenient and case["is_error"]:
        pass  # self-check against the SDK-native fixture: error texts are the SDK's
    elif lenient and "structured" in case:
        try:
            if json.loads(texts[0]) != json.loads(want):
                problems.append(f"text {texts[0]!r} is not the JSON {want}")
        except ValueError:
            problems.append(f"text {texts[0]!r} is not JSON")
    elif texts[0] != want:
        problems.append(f"text {texts[0]!r}, want {want!r}")
    if "structured" in case and structured != case["structured"]:
        problems.append(f"structuredContent {short(structured)}, want {case['structured']}")
    return problems


def tool_names_problems(names: list[str], contract: dict[str, Any]) -> list[str]:
    problems = []
    if len(names) != len(set(names)):
        problems.append(f"duplicate names in {names}")
    if sorted(names) != contract["tools"]:
        problems.append(f"tools {sorted(names)}, want {contract['tools']}")
    return problems


def schema_checks(checks: Checks, schemas: dict[str, Any], contract: dict[str, Any], golden_dir: str) -> None:
    """One `schema_<tool>` check per contract tool: parsed inputSchema == parsed golden file."""
    for tool in contract["tools"]:
        name = f"schema_{tool}"
        path = os.path.join(golden_dir, f"{tool}.json")
        if tool not in schemas:
            checks.fail(name, "tool not listed")
            continue
        try:
            with open(path) as f:
                golden = json.load(f)
        except (OSError, ValueError) as exc:
            checks.fail(name, f"golden file {path}: {exc}")
            continue
        if schemas[tool] == golden:
            checks.ok(name)
        else:
            checks.fail(name, f"inputSchema {json.dumps(schemas[tool], sort_keys=True)} != golden "
                              f"{json.dumps(golden, sort_keys=True)}")


def progress_problems(seen: list[tuple[float, float | None]], spec: dict[str, Any]) -> list[str]:
    values = [p for p, _ in seen]
    totals = [t for _, t in seen]
    problems = []
    if values != spec["values"]:
        problems.append(f"progress values {values}, want {spec['values']}")
    if any(b <= a for a, b in zip(values, values[1:])):
        problems.append(f"progress not strictly increasing: {values}")
    if any(t != spec["total"] for t in totals):
        problems.append(f"totals {totals}, want all {spec['total']}")
    return problems


def unknown_tool_problems(code: int | None, message: str | None, result_text: str | None,
                          contract: dict[str, Any], lenient: bool) -> list[str]:
    """`code`/`message` from a JSON-RPC error, or `result_text` when the SDK/server gave a result."""
    spec = contract["unknown_tool"]
    if code is None:
        if lenient:
            return []  # SDK-native fixture: an isError result is its way
        return [f"no JSON-RPC error; got a result with text {result_text!r}"]
    problems = []
    if code != spec["code"]:
        problems.append(f"code {code}, want {spec['code']}")
    if not lenient and message != spec["message"]:
        problems.append(f"message {message!r}, want {spec['message']!r}")
    return problems


def wire_requests(log_path: str) -> list[dict[str, Any]]:
    """Client-to-server JSON-RPC messages recorded by wiretap.py, in order."""
    out = []
    try:
        with open(log_path, "rb") as f:
            for raw in f:
                if raw.startswith(b"> "):
                    try:
                        msg = json.loads(raw[2:])
                    except ValueError:
                        continue
                    if isinstance(msg, dict):
                        out.append(msg)
    except OSError:
        pass
    return out


class RpcError(Exception):
    """A JSON-RPC error as an SDK surfaced it, reduced to code + message."""

    def __init__(self, code: int, message: str, sdk_type: str):
        super().__init__(f"{sdk_type}(code={code}, message={message!r})")
        self.code, self.message, self.sdk_type = code, message, sdk_type


def sdk_calls(list_fn, call_fn, *, v1: bool, error_type: type):
    """The two calls `run_contract` needs, over either official Python SDK: `list_fn` and
    `call_fn` are the SDK's `list_tools` and `call_tool`; `v1` picks mcp 1.x's spellings
    (`inputSchema`, `isError`, `McpError.error.code`) over 2.x's."""

    async def list_tools():
        listed = await list_fn()
        return [(t.name, t.inputSchema if v1 else t.input_schema) for t in listed.tools]

    async def call(tool, args, on_progress=None):
        try:
            result = await call_fn(tool, args, progress_callback=on_progress)
        except error_type as exc:
            code, message = (exc.error.code, exc.error.message) if v1 else (exc.code, exc.message)
            raise RpcError(code, message, type(exc).__name__) from exc
        content = [b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in result.content]
        if v1:
            return result.isError, content, result.structuredContent
        return result.is_error, content, result.structured_content

    return list_tools, call


def handshake_problems(methods: list[str | None], mode: str) -> list[str]:
    """What is wrong with the first requests on the wire: legacy starts with `initialize`;
    auto and modern start with `server/discover` and never fall back."""
    problems = []
    if mode == "legacy":
        if not methods or methods[0] != "initialize":
            problems.append(f"first request {methods[:1]}, want initialize")
    else:
        if not methods or methods[0] != "server/discover":
            problems.append(f"first request {methods[:1]}, want server/discover")
        if "initialize" in methods:
            problems.append("fell back to initialize")
    return problems


async def run_contract(checks: Checks, contract: dict[str, Any], opts, list_tools, call) -> None:
    """Checks 2-15 of the contract, SDK-independent.

    list_tools() -> list of (name, inputSchema); call(tool, args, on_progress=None) ->
    (is_error, content blocks as JSON, structuredContent), raising RpcError for a JSON-RPC error.
    """
    import time

    import anyio

    lenient = opts.lenient_texts

    # 2 + 3: tools/list and schemas
    try:
        listed = await list_tools()
        checks.check("tools_list", tool_names_problems([n for n, _ in listed], contract))
        schema_checks(checks, dict(listed), contract, opts.golden_dir)
    except Exception as exc:  # noqa: BLE001
        checks.fail("tools_list", f"{type(exc).__name__}: {exc}")

    async def echo_survives(name: str) -> None:
        case = contract["calls"][0]
        try:
            checks.check(name, result_problems(case, *(await call(case["tool"], case["args"])), False))
        except Exception as exc:  # noqa: BLE001
            checks.fail(name, f"echo raised {type(exc).__name__}: {exc}")

    # 4-11, 14: plain calls
    for case in contract["calls"]:
        try:
            res = await call(case["tool"], case["args"])
            checks.check(case["check"], result_problems(case, *res, lenient))
            if case["is_error"]:
                checks.note(f"{case['check']}: {short(res[1])}")
        except Exception as exc:  # noqa: BLE001
            checks.fail(case["check"], f"raised {type(exc).__name__}: {exc}")
        if case.get("then_echo"):
            await echo_survives(f"{case['check']}_session_survives")

    # 12: progress
    spec = contract["progress"]
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None = None) -> None:
        seen.append((progress, total))

    try:
        is_error, content, _ = await call(spec["tool"], spec["args"], on_progress)
        problems = result_problems({"is_error": False, "text": spec["text"]}, is_error, content, None, lenient)
        checks.check("progress", problems + progress_problems(seen, spec))
    except Exception as exc:  # noqa: BLE001
        checks.fail("progress", f"raised {type(exc).__name__}: {exc}")

    # 13: unknown tool -> JSON-RPC -32602
    spec = contract["unknown_tool"]
    try:
        _, content, _ = await call(spec["tool"], {})
        checks.check("unknown_tool", unknown_tool_problems(None, None, short(content), contract, lenient))
        checks.note(f"unknown tool came back as a result: {short(content)}")
    except RpcError as exc:
        checks.check("unknown_tool", unknown_tool_problems(exc.code, exc.message, None, contract, lenient))
        checks.note(f"unknown tool raised {exc}")
    except Exception as exc:  # noqa: BLE001
        checks.fail("unknown_tool", f"raised {type(exc).__name__}: {exc}")
    await echo_survives("unknown_tool_session_survives")

    # 15: slow + echo concurrently; echo must finish first
    spec = contract["slow"]
    order: list[tuple[str, Any, float]] = []
    start = time.monotonic()

    async def run(label: str, tool: str, args: dict[str, Any], delay: float) -> None:
        await anyio.sleep(delay)
        try:
            order.append((label, await call(tool, args), time.monotonic() - start))
        except Exception as exc:  # noqa: BLE001
            order.append((label, exc, time.monotonic() - start))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "slow", spec["tool"], spec["args"], 0.0)
        tg.start_soon(run, "echo", "echo", spec["echo_args"], 0.05)  # after slow is on the wire
    problems = []
    labels = [o[0] for o in order]
    if labels != ["echo", "slow"]:
        problems.append(f"completion order {labels} (at {[round(o[2], 3) for o in order]} s), want echo first")
    for label, res, _ in order:
        if isinstance(res, Exception):
            problems.append(f"{label} raised {type(res).__name__}: {res}")
        else:
            want = spec["text"] if label == "slow" else spec["echo_text"]
            problems += [f"{label}: {p}" for p in result_problems({"is_error": False, "text": want}, *res, False)]
    checks.check("slow_concurrent", problems)
