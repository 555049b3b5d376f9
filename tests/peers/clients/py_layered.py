"""Interop driver: the Python SDK 2.x client (`mcp==2.3.0`) against toolwire's layered server
(tests/src/bin/layered-server.rs: every MCP request through tower layers), over stdio or
streamable HTTP.

    $TOOLWIRE_PY_MCP2 py_layered.py --mode auto|legacy --url http://127.0.0.1:P/mcp --token-env VAR
    $TOOLWIRE_PY_MCP2 py_layered.py --mode auto|legacy -- <server command and args...>

It calls `echo` (served as usual), `canned` (answered by the server's own layer), `slow`
(which the server's 1 s timeout layer ends: the error's code and message), then `hold`
(300 ms) and, while it runs, `echo` again (shed by the server's concurrency limit: the
error), and prints one JSON object with what it got, for the Rust test to judge.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import anyio

from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


def parse_args():
    argv = sys.argv[1:]
    server = []
    if "--" in argv:
        split = argv.index("--")
        argv, server = argv[:split], argv[split + 1 :]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["auto", "legacy"], default="auto")
    ap.add_argument("--url", default=None)
    ap.add_argument("--token-env", default=None)
    opts = ap.parse_args(argv)
    if not opts.url and not server:
        ap.error("give --url or a server command after --")
    opts.server = server
    return opts


async def call(client: Client, name: str, arguments: dict) -> dict:
    try:
        result = await client.call_tool(name, arguments)
    except MCPError as e:
        return {"error": {"code": e.error.code, "message": e.error.message}}
    texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
    return {"texts": texts, "isError": bool(result.is_error)}


async def calls(client: Client) -> dict:
    report: dict = {}
    report["echo"] = await call(client, "echo", {"text": "hi"})
    report["canned"] = await call(client, "canned", {})
    report["slow"] = await call(client, "slow", {"label": "timed-out"})

    async def hold() -> None:
        report["hold"] = await call(client, "hold", {})

    async with anyio.create_task_group() as tg:
        tg.start_soon(hold)
        await anyio.sleep(0.1)
        report["shed"] = await call(client, "echo", {"text": "shed?"})
    report["after"] = await call(client, "echo", {"text": "after"})
    return report


async def run(opts) -> dict:
    with anyio.fail_after(60):
        if opts.url:
            headers = {"Authorization": f"Bearer {os.environ[opts.token_env]}"} if opts.token_env else {}
            async with create_mcp_http_client(headers=headers) as http:
                transport = streamable_http_client(opts.url, http_client=http)
                async with Client(transport, mode=opts.mode, read_timeout_seconds=20) as client:
                    return await calls(client)
        target = StdioServerParameters(command=opts.server[0], args=opts.server[1:], env=dict(os.environ))
        async with Client(target, mode=opts.mode, read_timeout_seconds=20) as client:
            return await calls(client)


def main() -> int:
    opts = parse_args()
    report = anyio.run(run, opts)
    print(json.dumps(report, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
