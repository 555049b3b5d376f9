"""Interop driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) against a stdio server.

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_client.py --mode auto|legacy [--golden-dir DIR] \
        [--lenient-texts] [-v] -- <server command and args...>

API used: `mcp.Client(StdioServerParameters(...), mode=..., read_timeout_seconds=...)` as an async
context manager; `client.protocol_version`, `client.server_info`, `client.list_tools()`,
`client.call_tool(name, args, progress_callback=cb)`; a JSON-RPC error surfaces as
`mcp.shared.exceptions.MCPError` (`.code`, `.message`). The server runs behind wiretap.py so the
script can also assert what went on the wire (auto: `server/discover` first and no `initialize`).

auto   -> negotiated protocol version must be 2026-07-28
legacy -> the initialize handshake, negotiated 2025-11-25
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as h  # noqa: E402

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25", "2026-07-28": "2026-07-28"}


async def drive(opts, checks: h.Checks, contract: dict[str, Any], wire_log: str) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[h.WIRETAP, wire_log, "--", *opts.server],
        env=dict(os.environ),  # stdio_client's default passes only a few variables
    )
    connected = False
    try:
        async with Client(params, mode=opts.mode, read_timeout_seconds=opts.call_timeout) as client:
            connected = True
            checks.ok("connect")
            await run_checks(opts, checks, contract, client, wire_log)
    except Exception as exc:  # noqa: BLE001 - a connect or transport failure is a failed check
        checks.fail("connect" if not connected else "session", f"{type(exc).__name__}: {h.short(exc)}")


async def run_checks(opts, checks: h.Checks, contract, client: Client, wire_log: str) -> None:
    lenient = opts.lenient_texts
    want_version = EXPECTED_VERSION[opts.mode]
    got_version = client.protocol_version
    checks.check("protocol_version", [] if got_version == want_version else [f"{got_version!r}, want {want_version!r}"])

    info = client.server_info
    got = (info.name, info.version) if info is not None else None
    want = (contract["server_name"], contract["server_version"])
    checks.check("server_info", [] if got == want else [f"serverInfo {got!r}, want {want!r}"])

    sent = h.wire_requests(wire_log)
    methods = [m.get("method") for m in sent if "method" in m]
    problems = h.handshake_problems(methods, opts.mode)
    offered = sent[0].get("params", {}).get("protocolVersion") if sent else None
    if opts.mode == "legacy" and not problems and offered != "2025-11-25":
        problems.append(f"initialize offered {offered!r}")
    checks.check("wire_handshake", problems)
    checks.note(f"mode={opts.mode}: handshake requests on the wire: {methods}")

    list_tools, call = h.sdk_calls(client.list_tools, client.call_tool, v1=False, error_type=MCPError)

    await h.run_contract(checks, contract, opts, list_tools, call)


EXPECTED_CHECKS = ["connect", "protocol_version", "server_info", "wire_handshake", "tools_list"]


def main() -> int:
    opts = h.parse_args(__doc__.splitlines()[0], modes=list(EXPECTED_VERSION), default_mode="auto")
    contract = h.load_contract()
    checks = h.Checks(lenient=opts.lenient_texts, verbose=opts.verbose)
    with tempfile.TemporaryDirectory(prefix="toolwire-py-client-") as tmp:
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
