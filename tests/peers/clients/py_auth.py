"""Interop driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) with an OAuth bearer token.

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_auth.py --url http://127.0.0.1:P/mcp \
        --token-url http://127.0.0.1:Q/token --sub alice --scope "mcp files:read" \
        --mode auto|legacy

It gets an access token from the local authorization server (`POST --token-url` with the form
fields `sub`, `scope` and `aud`, where `aud` is the `resource` that the server's RFC 9728
metadata names), then connects with `Authorization: Bearer <token>`. It prints one JSON
object: the tools it was shown, what `whoami` said, and the outcome of each `call` given with
`--call NAME` (`ok <text>`, `tool-error <text>` or `rpc-error <code> <message>`). Before all
that it records what the server answers a POST without a token (status and
`WWW-Authenticate`). It does no checks of its own: the Rust test asserts the JSON exactly.
"""

from __future__ import annotations

import argparse
import json
import sys

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--token-url", required=True)
    ap.add_argument("--sub", required=True)
    ap.add_argument("--scope", required=True)
    ap.add_argument("--mode", choices=["auto", "legacy"], default="auto")
    ap.add_argument("--call", action="append", default=[], help="a tool to call with {} (or NAME=JSON)")
    return ap.parse_args()


async def main() -> int:
    opts = parse_args()
    out: dict = {}
    async with httpx2.AsyncClient() as plain:
        # Without a token: the challenge names the metadata, which names the resource.
        refused = await plain.post(
            opts.url,
            content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
            headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
        )
        challenge = refused.headers.get("www-authenticate", "")
        out["no_token"] = [refused.status_code, challenge]
        metadata_url = challenge.split('resource_metadata="', 1)[1].split('"', 1)[0]
        metadata = (await plain.get(metadata_url)).json()
        token = (await plain.post(
            opts.token_url,
            data={"sub": opts.sub, "scope": opts.scope, "aud": metadata["resource"]},
        )).json()["access_token"]

    client_http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with client_http as hc:
        transport = streamable_http_client(opts.url, http_client=hc)
        async with Client(transport, mode=opts.mode, read_timeout_seconds=20) as client:
            out["protocol_version"] = client.protocol_version
            out["tools"] = [t.name for t in (await client.list_tools()).tools]
            calls = {}
            for spec in ["whoami"] + opts.call:
                name, _, args = spec.partition("=")
                try:
                    result = await client.call_tool(name, json.loads(args) if args else {})
                    text = " ".join(b.text for b in result.content if getattr(b, "text", None) is not None)
                    calls[name] = f"{'tool-error' if result.is_error else 'ok'} {text}"
                except MCPError as exc:
                    calls[name] = f"rpc-error {exc.code} {exc.message}"
            out["calls"] = calls
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
