"""Cluster driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) runs N tool calls through a
load balancer in front of toolwire replicas (`tests/tests/cluster.rs`).

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_cluster.py --mode auto|legacy --url URL --calls N

Each call is `echo` with the text `py-<mode>-<i>`; the answer must be that text, once. Prints one
JSON line: {"mode", "protocol_version", "calls", "ok", "wrong": [first few problems]}, and exits 0
only when every call was answered correctly.
"""

from __future__ import annotations

import argparse
import json
import sys

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def run(opts) -> dict:
    wrong: list[str] = []
    ok = 0
    async with create_mcp_http_client() as hc:
        transport = streamable_http_client(opts.url, http_client=hc)
        async with Client(transport, mode=opts.mode, read_timeout_seconds=opts.call_timeout) as client:
            version = client.protocol_version
            for i in range(opts.calls):
                want = f"py-{opts.mode}-{i}"
                try:
                    result = await client.call_tool("echo", {"text": want})
                    texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
                    if texts == [want] and not result.is_error:
                        ok += 1
                    else:
                        wrong.append(f"call {i}: {texts!r} error={result.is_error}")
                except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
                    wrong.append(f"call {i}: {type(exc).__name__}: {exc}")
    return {"mode": opts.mode, "protocol_version": version, "calls": opts.calls, "ok": ok, "wrong": wrong[:5]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["auto", "legacy"], default="auto")
    ap.add_argument("--url", required=True)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--call-timeout", type=float, default=20.0)
    opts = ap.parse_args()
    summary = anyio.run(run, opts)
    print(json.dumps(summary))
    return 0 if summary["ok"] == opts.calls else 1


if __name__ == "__main__":
    sys.exit(main())
