"""Approval driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) as an untrusted caller of an
approval-gated tool (`tests/tests/approval_console.rs`).

    TOKEN=... $TOOLWIRE_PY_MCP2 tests/peers/clients/py_asker.py --mode auto|legacy \
        --url http://127.0.0.1:P/mcp --token-env TOKEN --amount N [--name NAME --version VERSION]

Connects in `mode` (auto: 2026-07-28, `clientInfo` in every request's `_meta`; legacy: the
initialize handshake, `clientInfo` in `initialize`), with `Authorization: Bearer <token>` on every
request (the token read from the variable `--token-env` names), naming itself `NAME VERSION`
(`client_info`) or, without `--name`, as the SDK does by default. Then calls `wire_money` with
`{"amount": N}`, which waits for a person at the approval console. Prints one JSON line:
{"protocol_version", "text": the result's one text block, "is_error"}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import Implementation


async def run(opts) -> dict:
    headers = {"Authorization": f"Bearer {os.environ[opts.token_env]}"}
    info = Implementation(name=opts.name, version=opts.version) if opts.name is not None else None
    async with create_mcp_http_client(headers=headers) as hc:
        transport = streamable_http_client(opts.url, http_client=hc)
        async with Client(transport, mode=opts.mode, client_info=info, read_timeout_seconds=120) as client:
            result = await client.call_tool("wire_money", {"amount": opts.amount})
            texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
            return {
                "protocol_version": client.protocol_version,
                "text": texts[0] if len(texts) == 1 else texts,
                "is_error": result.is_error,
            }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["auto", "legacy"], required=True)
    ap.add_argument("--url", required=True)
    ap.add_argument("--token-env", required=True)
    ap.add_argument("--amount", type=int, required=True)
    ap.add_argument("--name")
    ap.add_argument("--version", default="1")
    opts = ap.parse_args()
    print(json.dumps(anyio.run(run, opts)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
