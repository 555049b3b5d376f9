"""Interop driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) against tests/src/bin/state-server.rs,
a server whose tools hold state (a `State<T>` fn, a `#[toolbox]`), advertise icons and custom
`_meta`, and include a hand-written tool whose structured output the engine checks.

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_state_client.py [--mode auto|legacy] -- <server command...>

Prints `ok <check>` / `FAIL <check>: <details>` and `N passed, N failed`; exits 0 only if all passed.
"""

from __future__ import annotations

import os
import sys

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as h  # noqa: E402

from mcp import Client, StdioServerParameters  # noqa: E402


def text_of(result) -> tuple[bool, str]:
    blocks = [b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in result.content]
    texts = [b.get("text") for b in blocks if b.get("type") == "text"]
    return bool(result.is_error), texts[0] if len(texts) == 1 else repr(blocks)


async def drive(opts, checks: h.Checks) -> None:
    params = StdioServerParameters(command=opts.server[0], args=opts.server[1:], env=dict(os.environ))
    async with Client(params, mode=opts.mode, read_timeout_seconds=opts.call_timeout) as client:
        checks.ok("connect")
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        checks.check("tool_names", [] if sorted(tools) == ["bump", "get", "put", "search", "stats"]
                     else [f"tools {sorted(tools)}"])

        # State is left out of every schema: `bump` takes nothing, `put` only key and value.
        bump_props = tools["bump"].input_schema.get("properties", {})
        put_props = sorted(tools["put"].input_schema.get("properties", {}))
        checks.check("state_not_in_schema", ([] if bump_props == {} else [f"bump properties {bump_props}"])
                     + ([] if put_props == ["key", "value"] else [f"put properties {put_props}"]))

        # Icons and custom _meta as the SDK parsed them.
        search = tools["search"].model_dump(mode="json", by_alias=True, exclude_none=True)
        want_icons = [
            {"src": "https://example.com/search.svg", "mimeType": "image/svg+xml", "sizes": ["any"], "theme": "dark"},
            {"src": "data:image/png;base64,iVBORw0KGgo="},
        ]
        meta = search.get("_meta") or {}
        problems = [] if search.get("icons") == want_icons else [f"icons {search.get('icons')!r}"]
        if meta.get("com.example/owner") != "search-team" or meta.get("com.example/tier") != 2:
            problems.append(f"_meta {meta!r}")
        if (meta.get("toolwire") or {}).get("side_effecting") is not False:
            problems.append(f"toolwire declarations {meta.get('toolwire')!r}")
        checks.check("icons_and_meta", problems)

        # One Counter for the process: each call sees the previous ones.
        seen = []
        for _ in range(3):
            is_error, text = text_of(await client.call_tool("bump", {}))
            seen.append((is_error, text))
        checks.check("state_persists", [] if seen == [(False, "1"), (False, "2"), (False, "3")] else [f"{seen}"])

        # The toolbox: put then get through the same Store.
        put = text_of(await client.call_tool("put", {"key": "k", "value": "v1"}))
        got = text_of(await client.call_tool("get", {"key": "k"}))
        missing = text_of(await client.call_tool("get", {"key": "nope"}))
        checks.check("toolbox", [] if (put, got, missing) == ((False, "stored"), (False, "v1"), (False, ""))
                     else [f"put {put}, get {got}, missing {missing}"])

        # The hand-written tool's output is checked against its outputSchema.
        good = await client.call_tool("stats", {"shape": "good"})
        problems = []
        if good.is_error or good.structured_content != {"count": 3}:
            problems.append(f"good: isError={good.is_error} structured={good.structured_content!r}")
        bad = text_of(await client.call_tool("stats", {"shape": "bad"}))
        want_bad = (True, "tool 'stats' returned output that does not match its outputSchema: "
                          "at /count: \"three\" is not of type \"integer\"")
        if bad != want_bad:
            problems.append(f"bad: {bad!r}, want {want_bad!r}")
        none = text_of(await client.call_tool("stats", {"shape": "none"}))
        want_none = (True, "tool 'stats' returned output that does not match its outputSchema: "
                           "it returned no structured content")
        if none != want_none:
            problems.append(f"none: {none!r}, want {want_none!r}")
        checks.check("output_checked", problems)

        # The session survived all of it.
        checks.check("session_survives", [] if text_of(await client.call_tool("bump", {})) == (False, "4") else ["bump"])


def main() -> int:
    opts = h.parse_args(__doc__, modes=("auto", "legacy"), default_mode="legacy")
    checks = h.Checks(verbose=opts.verbose)
    expected = ["connect", "tool_names", "state_not_in_schema", "icons_and_meta", "state_persists",
                "toolbox", "output_checked", "session_survives"]

    async def run() -> None:
        with anyio.fail_after(opts.timeout):
            try:
                await drive(opts, checks)
            except Exception as exc:  # noqa: BLE001 - a transport failure is a failed check
                checks.fail("session", f"{type(exc).__name__}: {h.short(exc)}")

    anyio.run(run)
    return checks.finish(expected)


if __name__ == "__main__":
    sys.exit(main())
