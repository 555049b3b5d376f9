"""Interop driver: the Python SDK 1.x client (`mcp==1.22.0`, venv B) against a streamable HTTP server.

    TOKEN=... $TOOLWIRE_PY_MCP1 tests/peers/clients/py1_http_client.py --url http://127.0.0.1:P/mcp \
        [--token-env TOKEN] [--golden-dir DIR] [-v]

A real 2025-06-18 client over HTTP (the newest version this SDK offers). The server must
serve the example-server contract (`contract.json`). The bearer token comes from the
variable named by `--token-env` (never argv).

API used: `mcp.client.streamable_http.streamablehttp_client(url, headers=...,
httpx_client_factory=...)` -> (read, write, get_session_id); `mcp.ClientSession(read, write)`;
`initialize()`, `list_tools()`, `call_tool(name, args, progress_callback=cb)`; a JSON-RPC error
is `McpError` (`.error.code`, `.error.message`). The client factory adds httpx event hooks, so
the script checks the wire too: `initialize` first, then `Mcp-Session-Id` and
`MCP-Protocol-Version: 2025-06-18` on every later POST, JSON for a plain call and SSE for the
progress call, the bearer on every request, and 401 without it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import timedelta
from typing import Any

import anyio
import httpx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as h  # noqa: E402

from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamablehttp_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.shared.exceptions import McpError  # noqa: E402

WANT_VERSION = "2025-06-18"


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--token-env", default=None)
    ap.add_argument("--golden-dir", default=h.DEFAULT_GOLDEN)
    ap.add_argument("--timeout", type=float, default=90.0)
    ap.add_argument("--call-timeout", type=float, default=20.0)
    ap.add_argument("--verbose", "-v", action="store_true")
    opts = ap.parse_args()
    opts.lenient_texts = False
    opts.token = os.environ.get(opts.token_env) if opts.token_env else None
    if opts.token_env and not opts.token:
        ap.error(f"--token-env {opts.token_env}: the variable is unset or empty")
    return opts


class Wire:
    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []

    async def on_request(self, request: httpx.Request) -> None:
        rpc = None
        if request.method == "POST":
            try:
                body = json.loads(request.content or b"null")
                rpc = body.get("method") if isinstance(body, dict) else None
            except ValueError:
                pass
        request.extensions["toolwire_index"] = len(self.exchanges)
        self.exchanges.append({"http": request.method, "rpc": rpc, "status": None, "content_type": None,
                               "headers": {k.lower(): v for k, v in request.headers.items()}})

    async def on_response(self, response: httpx.Response) -> None:
        i = response.request.extensions.get("toolwire_index")
        if i is not None:
            self.exchanges[i]["status"] = response.status_code
            self.exchanges[i]["content_type"] = response.headers.get("content-type", "").split(";")[0]


def factory(wire: Wire):
    def make(headers=None, timeout=None, auth=None) -> httpx.AsyncClient:
        client = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        client.event_hooks["request"].append(wire.on_request)
        client.event_hooks["response"].append(wire.on_response)
        return client
    return make


async def connect_and_run(opts, checks, contract, wire: Wire, with_token: bool, body) -> None:
    headers = {"Authorization": f"Bearer {opts.token}"} if (opts.token and with_token) else None
    async with streamablehttp_client(opts.url, headers=headers, httpx_client_factory=factory(wire)) as (r, w, _):
        async with ClientSession(r, w, read_timeout_seconds=timedelta(seconds=opts.call_timeout)) as session:
            init = await session.initialize()
            await body(session, init)


async def drive(opts, checks: h.Checks, contract: dict[str, Any]) -> None:
    wire = Wire()

    async def body(session: ClientSession, init) -> None:
        checks.ok("connect")
        got = init.protocolVersion
        checks.check("protocol_version", [] if got == WANT_VERSION else [f"{got!r}, want {WANT_VERSION!r}"])
        got_info = (init.serverInfo.name, init.serverInfo.version)
        want_info = (contract["server_name"], contract["server_version"])
        checks.check("server_info", [] if got_info == want_info else [f"{got_info!r}, want {want_info!r}"])

        list_tools, call = h.sdk_calls(session.list_tools, session.call_tool, v1=True, error_type=McpError)

        await h.run_contract(checks, contract, opts, list_tools, call)

    try:
        await connect_and_run(opts, checks, contract, wire, True, body)
    except Exception as exc:  # noqa: BLE001
        checks.fail("session", f"{type(exc).__name__}: {h.short(exc)}")

    posts = [e for e in wire.exchanges if e["http"] == "POST"]
    problems = []
    if not posts or posts[0]["rpc"] != "initialize":
        problems.append(f"first POST {[p['rpc'] for p in posts[:1]]}, want initialize")
    for p in posts[1:]:
        if not p["headers"].get("mcp-session-id"):
            problems.append(f"{p['rpc']} without Mcp-Session-Id")
        if p["headers"].get("mcp-protocol-version") != WANT_VERSION:
            problems.append(f"{p['rpc']} with MCP-Protocol-Version {p['headers'].get('mcp-protocol-version')!r}")
    bad = [(p["rpc"], p["status"]) for p in posts if p["status"] not in (200, 202)]
    if bad:
        problems.append(f"non-2xx answers {bad}")
    checks.check("wire_session_headers", problems)
    types = sorted({p["content_type"] for p in posts if p["rpc"] == "tools/call"})
    checks.check("wire_json_and_sse", [] if types == ["application/json", "text/event-stream"] else [f"{types}"])
    if opts.token:
        missing = [e["rpc"] or e["http"] for e in wire.exchanges
                   if e["headers"].get("authorization") != f"Bearer {opts.token}"]
        checks.check("wire_bearer_on_every_request", [f"no bearer on {missing}"] if missing else [])
        refused = Wire()
        try:
            async def never(session, init) -> None:
                checks.fail("no_token_refused", "connected without the bearer token")
            with anyio.fail_after(opts.call_timeout):
                await connect_and_run(opts, checks, contract, refused, False, never)
        except BaseException as exc:  # noqa: BLE001 - refusal is the point (it may arrive as a group)
            statuses = [e["status"] for e in refused.exchanges if e["http"] == "POST"]
            checks.check("no_token_refused", [] if statuses == [401] else [f"statuses {statuses} ({exc!r})"])


def main() -> int:
    opts = parse_args()
    contract = h.load_contract()
    checks = h.Checks(verbose=opts.verbose)

    async def bounded() -> None:
        with anyio.move_on_after(opts.timeout) as scope:
            await drive(opts, checks, contract)
        if scope.cancelled_caught:
            checks.fail("overall_timeout", f"gave up after {opts.timeout}s")

    try:
        anyio.run(bounded)
    except BaseException as exc:  # noqa: BLE001
        checks.fail("driver", f"{type(exc).__name__}: {exc}")
    return checks.finish(["connect", "protocol_version", "server_info", "tools_list", "wire_session_headers",
                          "wire_json_and_sse"] + (["wire_bearer_on_every_request", "no_token_refused"] if opts.token else []))


if __name__ == "__main__":
    sys.exit(main())
