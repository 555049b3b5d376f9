"""Interop driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) against a streamable HTTP server.

    TOKEN=... $TOOLWIRE_PY_MCP2 tests/peers/clients/py_http_client.py --mode auto|legacy \
        --url http://127.0.0.1:P/mcp [--token-env TOKEN] [--golden-dir DIR] [-v]

The server must serve the example-server contract (`contract.json`: the tools of
`toolwire_examples::example_tools`). The bearer token is read from the environment variable
named by `--token-env` (never from argv) and sent as `Authorization: Bearer <token>` on every
request.

API used: `mcp.Client(streamable_http_client(url, http_client=create_mcp_http_client(headers=...)),
mode=...)`. An httpx event hook records every HTTP exchange, so the script also checks the wire:

auto   -> negotiated 2026-07-28: `server/discover` first, no `initialize`, no `Mcp-Session-Id`,
          `Mcp-Method` on every POST
legacy -> the initialize handshake at 2025-11-25, and every later POST carries the session id

In both modes a plain call must come back as `application/json` and the progress call as
`text/event-stream` (progress forces SSE), every request must carry the bearer header, and a
client without the token must be refused with 401.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as h  # noqa: E402

import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=list(EXPECTED_VERSION), default="auto")
    ap.add_argument("--url", required=True, help="the MCP endpoint, http://127.0.0.1:P/mcp")
    ap.add_argument("--token-env", default=None,
                    help="environment variable holding the bearer token (omit for a server without auth)")
    ap.add_argument("--golden-dir", default=h.DEFAULT_GOLDEN)
    ap.add_argument("--timeout", type=float, default=90.0)
    ap.add_argument("--call-timeout", type=float, default=20.0)
    ap.add_argument("--verbose", "-v", action="store_true")
    opts = ap.parse_args()
    opts.lenient_texts = False
    opts.token = None
    if opts.token_env:
        opts.token = os.environ.get(opts.token_env)
        if not opts.token:
            ap.error(f"--token-env {opts.token_env}: the variable is unset or empty")
    return opts


class Wire:
    """Every HTTP exchange the client made: request method, headers, JSON-RPC method; response
    status and content type."""

    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []

    async def on_request(self, request: httpx2.Request) -> None:
        rpc_method = None
        if request.method == "POST":
            try:
                body = json.loads(request.content or b"null")
                if isinstance(body, dict):
                    rpc_method = body.get("method")
            except ValueError:
                pass
        request.extensions["toolwire_index"] = len(self.exchanges)
        self.exchanges.append({
            "http": request.method,
            "rpc": rpc_method,
            "headers": {k.lower(): v for k, v in request.headers.items()},
            "status": None,
            "content_type": None,
        })

    async def on_response(self, response: httpx2.Response) -> None:
        i = response.request.extensions.get("toolwire_index")
        if i is not None:
            self.exchanges[i]["status"] = response.status_code
            self.exchanges[i]["content_type"] = response.headers.get("content-type", "").split(";")[0]

    def posts(self) -> list[dict[str, Any]]:
        return [e for e in self.exchanges if e["http"] == "POST"]


def http_client(opts, wire: Wire | None, with_token: bool = True) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {opts.token}"} if (opts.token and with_token) else None
    client = create_mcp_http_client(headers=headers)
    if wire is not None:
        client.event_hooks["request"].append(wire.on_request)
        client.event_hooks["response"].append(wire.on_response)
    return client


async def drive(opts, checks: h.Checks, contract: dict[str, Any], wire: Wire) -> None:
    connected = False
    try:
        async with http_client(opts, wire) as hc:
            transport = streamable_http_client(opts.url, http_client=hc)
            async with Client(transport, mode=opts.mode, read_timeout_seconds=opts.call_timeout) as client:
                connected = True
                checks.ok("connect")
                await run_checks(opts, checks, contract, client, wire)
    except Exception as exc:  # noqa: BLE001 - a connect or transport failure is a failed check
        checks.fail("connect" if not connected else "session", f"{type(exc).__name__}: {h.short(exc)}")


async def run_checks(opts, checks: h.Checks, contract, client: Client, wire: Wire) -> None:
    want_version = EXPECTED_VERSION[opts.mode]
    got_version = client.protocol_version
    checks.check("protocol_version", [] if got_version == want_version else [f"{got_version!r}, want {want_version!r}"])

    info = client.server_info
    got = (info.name, info.version) if info is not None else None
    want = (contract["server_name"], contract["server_version"])
    checks.check("server_info", [] if got == want else [f"serverInfo {got!r}, want {want!r}"])

    posts = wire.posts()
    methods = [p["rpc"] for p in posts]
    checks.check("wire_handshake", h.handshake_problems(methods, opts.mode))
    checks.note(f"mode={opts.mode}: handshake requests on the wire: {methods}")

    list_tools, call = h.sdk_calls(client.list_tools, client.call_tool, v1=False, error_type=MCPError)

    await h.run_contract(checks, contract, opts, list_tools, call)
    wire_checks(opts, checks, wire)


def wire_checks(opts, checks: h.Checks, wire: Wire) -> None:
    posts = wire.posts()
    # Every request carried the token (when there is one).
    if opts.token:
        missing = [p["rpc"] for p in wire.exchanges if p["headers"].get("authorization") != f"Bearer {opts.token}"]
        checks.check("wire_bearer_on_every_request", [f"no bearer header on {missing}"] if missing else [])
    # JSON for a plain answer, SSE for the progress call.
    calls = [p for p in posts if p["rpc"] == "tools/call"]
    types = sorted({p["content_type"] for p in calls})
    problems = []
    if "application/json" not in types:
        problems.append(f"no tools/call answered with application/json (content types {types})")
    if "text/event-stream" not in types:
        problems.append(f"no tools/call answered with text/event-stream (content types {types})")
    checks.check("wire_json_and_sse", problems)
    # Era mechanics on every POST after the first.
    problems = []
    for p in posts[1:]:
        hd = p["headers"]
        if opts.mode == "legacy":
            if not hd.get("mcp-session-id"):
                problems.append(f"{p['rpc']} without Mcp-Session-Id")
        else:
            if "mcp-session-id" in hd:
                problems.append(f"{p['rpc']} carried Mcp-Session-Id")
            if p["rpc"] and hd.get("mcp-method") != p["rpc"]:
                problems.append(f"{p['rpc']} with Mcp-Method {hd.get('mcp-method')!r}")
        if hd.get("mcp-protocol-version") != EXPECTED_VERSION[opts.mode]:
            problems.append(f"{p['rpc']} with MCP-Protocol-Version {hd.get('mcp-protocol-version')!r}")
    bad_status = [(p["rpc"], p["status"]) for p in posts if p["status"] not in (200, 202)]
    if bad_status:
        problems.append(f"non-2xx answers: {bad_status}")
    checks.check("wire_era_headers", problems)


async def no_token_refused(opts, checks: h.Checks) -> None:
    """Without the token, connecting fails, and the server said 401."""
    if not opts.token:
        return
    wire = Wire()
    try:
        async with http_client(opts, wire, with_token=False) as hc:
            transport = streamable_http_client(opts.url, http_client=hc)
            with anyio.fail_after(opts.call_timeout):
                async with Client(transport, mode=opts.mode, read_timeout_seconds=opts.call_timeout):
                    checks.fail("no_token_refused", "connected without the bearer token")
                    return
    except Exception as exc:  # noqa: BLE001 - refusal is the point
        statuses = [e["status"] for e in wire.exchanges]
        problems = [] if statuses and all(s == 401 for s in statuses) else [f"statuses {statuses} ({exc!r})"]
        checks.check("no_token_refused", problems)


EXPECTED_CHECKS = ["connect", "protocol_version", "server_info", "wire_handshake", "tools_list",
                   "wire_json_and_sse", "wire_era_headers"]


def main() -> int:
    opts = parse_args()
    contract = h.load_contract()
    checks = h.Checks(verbose=opts.verbose)
    wire = Wire()

    async def bounded() -> None:
        with anyio.move_on_after(opts.timeout) as scope:
            await drive(opts, checks, contract, wire)
            await no_token_refused(opts, checks)
        if scope.cancelled_caught:
            checks.fail("overall_timeout", f"gave up after {opts.timeout}s")

    try:
        anyio.run(bounded)
    except BaseException as exc:  # noqa: BLE001
        checks.fail("driver", f"{type(exc).__name__}: {exc}")
    return checks.finish(EXPECTED_CHECKS + (["wire_bearer_on_every_request", "no_token_refused"] if opts.token else []))


if __name__ == "__main__":
    sys.exit(main())
