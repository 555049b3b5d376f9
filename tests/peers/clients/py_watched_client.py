"""Interceptor-watch driver: the Python SDK 2.x client (`mcp==2.3.0`) against the
`watched-tools` server (tests/src/bin/watched-tools.rs) over stdio, asking each tool what
the interceptor's watch made current where its body ran.

    py_watched_client.py [--mode legacy|2026-07-28] -- SERVER...

Prints one JSON object, by case, of each tool's text; the Rust test (tests/tests/intercept.rs)
asserts on it:

- `async`, `sync`, `local`, `local_sync`, `unwatched`: one call each, one after the other;
- `sync_pooled`: `seen_sync` while two `sleepy` calls hold toolwire's sync workers, so its
  body goes to tokio's blocking pool;
- `unwatched_after`: `unwatched_sync` once those are done.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import anyio

from mcp import Client, StdioServerParameters


def text_of(result) -> str:
    return " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def drive(client: Client) -> dict:
    report: dict = {}

    async def call(case: str, tool: str, args: dict | None = None) -> None:
        result = await client.call_tool(tool, args or {})
        report[case] = text_of(result) if not result.is_error else f"error: {text_of(result)}"

    await call("async", "seen_async")
    await call("sync", "seen_sync")
    await call("local", "seen_local")
    await call("local_sync", "seen_local_sync")
    await call("unwatched", "unwatched_sync")

    async with anyio.create_task_group() as tg:
        for i in range(2):
            tg.start_soon(call, f"sleepy_{i}", "sleepy", {"ms": 1500})
        # Let both reach their bodies, holding the sync workers.
        await anyio.sleep(0.5)
        await call("sync_pooled", "seen_sync")
    await call("unwatched_after", "unwatched_sync")
    return report


async def run(opts) -> None:
    target = StdioServerParameters(command=opts.server[0], args=opts.server[1:], env=dict(os.environ))
    async with Client(target, mode=opts.mode, read_timeout_seconds=30) as client:
        report = await drive(client)
    print(json.dumps(report, sort_keys=True), flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", default="legacy", choices=["legacy", "auto", "2026-07-28"])
    p.add_argument("server", nargs="*")
    opts = p.parse_args()
    if opts.server and opts.server[0] == "--":
        opts.server = opts.server[1:]
    anyio.run(run, opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
