"""Interop driver: the Python SDK 2.x client (`mcp==2.3.0`) against toolwire's intercepted demo
server (`toolwire_examples::intercept_demo`), over streamable HTTP or stdio.

    $TOOLWIRE_PY_MCP2 py_intercept.py --mode auto|legacy --url http://127.0.0.1:P/mcp
    $TOOLWIRE_PY_MCP2 py_intercept.py --mode auto|legacy -- <server command and args...>

Over HTTP every request carries the header `X-Tenant: acme`. It calls:

- `whoami` with `_meta` `{"com.example/run": "run-7"}`: the tool's own report of its request;
- `deploy`, which the server's interceptor refuses: the error's code and message;
- `canned`, which the interceptor answers (it is no tool): the result's text;
- `hello`, served as usual;

and prints one JSON object with what it got, for the Rust test to judge. Exit 0 unless the
driver itself failed.
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
    opts = ap.parse_args(argv)
    if not opts.url and not server:
        ap.error("give --url or a server command after --")
    opts.server = server
    return opts


def texts(result) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


async def call(client: Client, name: str, arguments: dict, meta=None) -> dict:
    try:
        result = await client.call_tool(name, arguments, meta=meta)
    except MCPError as e:
        return {"error": {"code": e.error.code, "message": e.error.message}}
    return {"texts": texts(result), "isError": bool(result.is_error)}


async def run(opts) -> dict:
    if opts.url:
        http = create_mcp_http_client(headers={"X-Tenant": "acme"})
        transport = streamable_http_client(opts.url, http_client=http)
    else:
        transport = StdioServerParameters(command=opts.server[0], args=opts.server[1:], env=dict(os.environ))
    report: dict = {}
    with anyio.fail_after(90):
        return await calls(transport, opts, report)


async def calls(transport, opts, report: dict) -> dict:
    async with Client(transport, mode=opts.mode, read_timeout_seconds=20) as client:
        report["whoami"] = await call(client, "whoami", {}, meta={"com.example/run": "run-7"})
        report["deploy"] = await call(client, "deploy", {"target": "prod"})
        report["canned"] = await call(client, "canned", {})
        report["hello"] = await call(client, "hello", {"name": "py"})
    return report


def main() -> None:
    opts = parse_args()
    report = anyio.run(run, opts)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
