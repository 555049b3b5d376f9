"""Interop driver: the Python SDK 1.x client (`mcp==1.22.0`, venv B) against a stdio server.

    $TOOLWIRE_PY_MCP1 tests/peers/clients/py1_client.py [--golden-dir DIR] [--lenient-texts] [-v] \
        -- <server command and args...>

API used: `mcp.client.stdio.stdio_client(StdioServerParameters(...))` -> (read, write);
`mcp.ClientSession(read, write, read_timeout_seconds=timedelta)`; `await session.initialize()`
(InitializeResult: `.protocolVersion`, `.serverInfo`); `session.list_tools()`;
`session.call_tool(name, args, progress_callback=cb)`. A JSON-RPC error surfaces as
`mcp.shared.exceptions.McpError` with `.error.code` / `.error.message`.
The negotiated protocol version must be 2025-06-18 (the newest this SDK offers).
"""

from __future__ import annotations

import os
import sys
import tempfile
from datetime import timedelta
from typing import Any

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as h  # noqa: E402

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.shared.exceptions import McpError  # noqa: E402

WANT_VERSION = "2025-06-18"


async def drive(opts, checks: h.Checks, contract: dict[str, Any], wire_log: str) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[h.WIRETAP, wire_log, "--", *opts.server],
        env=dict(os.environ),
    )
    connected = False
    try:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=timedelta(seconds=opts.call_timeout)) as session:
                init = await session.initialize()
                connected = True
                checks.ok("connect")
                await run_checks(opts, checks, contract, session, init, wire_log)
    except Exception as exc:  # noqa: BLE001
        checks.fail("connect" if not connected else "session", f"{type(exc).__name__}: {h.short(exc)}")


async def run_checks(opts, checks: h.Checks, contract, session: ClientSession, init, wire_log: str) -> None:
    got = init.protocolVersion
    checks.check("protocol_version", [] if got == WANT_VERSION else [f"{got!r}, want {WANT_VERSION!r}"])
    info = init.serverInfo
    got_info = (info.name, info.version)
    want_info = (contract["server_name"], contract["server_version"])
    checks.check("server_info", [] if got_info == want_info else [f"serverInfo {got_info!r}, want {want_info!r}"])

    sent = [m for m in h.wire_requests(wire_log) if "method" in m]
    problems = []
    if not sent or sent[0]["method"] != "initialize":
        problems.append(f"first request {[m['method'] for m in sent[:1]]}, want initialize")
    elif sent[0].get("params", {}).get("protocolVersion") != WANT_VERSION:
        problems.append(f"initialize offered {sent[0].get('params', {}).get('protocolVersion')!r}")
    checks.check("wire_handshake", problems)

    list_tools, call = h.sdk_calls(session.list_tools, session.call_tool, v1=True, error_type=McpError)

    await h.run_contract(checks, contract, opts, list_tools, call)


EXPECTED_CHECKS = ["connect", "protocol_version", "server_info", "wire_handshake", "tools_list"]


def main() -> int:
    opts = h.parse_args(__doc__.splitlines()[0])
    contract = h.load_contract()
    checks = h.Checks(lenient=opts.lenient_texts, verbose=opts.verbose)
    with tempfile.TemporaryDirectory(prefix="toolwire-py1-client-") as tmp:
        wire_log = os.path.join(tmp, "wire.log")

        async def bounded() -> None:
            with anyio.move_on_after(opts.timeout) as scope:
                await drive(opts, checks, contract, wire_log)
            if scope.cancelled_caught:
                checks.fail("overall_timeout", f"gave up after {opts.timeout}s")

        try:
            anyio.run(bounded)
        except BaseException as exc:  # noqa: BLE001
            checks.fail("driver", f"{type(exc).__name__}: {exc}")
    return checks.finish(EXPECTED_CHECKS)


if __name__ == "__main__":
    sys.exit(main())
