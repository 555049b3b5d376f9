"""`#[tool(local)]` driver: the Python SDK 2.x client (`mcp==2.3.0`) against the `local-tools`
server (tests/src/bin/local-tools.rs), whose bodies' futures are not `Send`.

    py_local_client.py [--mode legacy|2026-07-28] --stdio -- SERVER...
    py_local_client.py [--mode ...] --url URL --token-env VAR   # streamable HTTP, bearer token

Each scenario prints one JSON line `{"case": ..., ...}`; the Rust test
(tests/tests/local_tools.rs) asserts on them:

- `tally`: a body holding a `RefCell` borrow across awaits, with the progress it reported;
- `boom`: a body that panics after an await (a tool error, the server serves on);
- `whereabouts`: a sync `local` body naming its thread;
- `cancelled`: `forever`, given up after 0.5 s (the SDK sends `notifications/cancelled`),
  and whether its body was dropped within 1 s (its mark in `LOCAL_TOOLS_MARKS`);
- `deadline`: `forever`, waited for until the server's deadline answers it;
- `after`: `tally` again, once all that is over.
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


def emit(case: str, **fields) -> None:
    print(json.dumps({"case": case, **fields}, sort_keys=True), flush=True)


def text_of(result) -> str:
    return " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def drive(client: Client) -> None:
    progress: list[list] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append([p, total, message])

    result = await client.call_tool("tally", {"n": 3}, progress_callback=on_progress)
    emit("tally", text=text_of(result), is_error=bool(result.is_error), progress=progress)

    result = await client.call_tool("boom", {})
    emit("boom", text=text_of(result), is_error=bool(result.is_error))

    result = await client.call_tool("whereabouts", {})
    emit("whereabouts", text=text_of(result), is_error=bool(result.is_error))

    with anyio.move_on_after(0.5) as scope:
        await client.call_tool("forever", {"label": "cancelled"})
    # The body must be dropped by the cancellation, well before the server's deadline (2 s
    # after the call) would drop it: look for its mark for at most 1 s.
    mark = os.path.join(os.environ["LOCAL_TOOLS_MARKS"], "cancelled.dropped")
    waited = 0.0
    while not os.path.exists(mark) and waited < 1.0:
        await anyio.sleep(0.01)
        waited += 0.01
    emit("cancelled", given_up=scope.cancelled_caught, dropped_within_1s=os.path.exists(mark))

    result = await client.call_tool("forever", {"label": "deadline"})
    emit("deadline", text=text_of(result), is_error=bool(result.is_error))

    result = await client.call_tool("tally", {"n": 1})
    emit("after", text=text_of(result), is_error=bool(result.is_error))


async def run(opts) -> None:
    if opts.stdio:
        target = StdioServerParameters(command=opts.server[0], args=opts.server[1:], env=dict(os.environ))
        async with Client(target, mode=opts.mode, read_timeout_seconds=30) as client:
            await drive(client)
        return
    token = os.environ[opts.token_env]
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as hc:
        transport = streamable_http_client(opts.url, http_client=hc)
        async with Client(transport, mode=opts.mode, read_timeout_seconds=30) as client:
            await drive(client)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stdio", action="store_true")
    p.add_argument("--url")
    p.add_argument("--token-env")
    p.add_argument("--mode", default="legacy", choices=["legacy", "auto", "2026-07-28"])
    p.add_argument("server", nargs="*")
    opts = p.parse_args()
    if opts.server and opts.server[0] == "--":
        opts.server = opts.server[1:]
    anyio.run(run, opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
