"""Drive toolwire's live server (`tests/src/bin/live-server.rs`) with the Python SDK 2.3.0 client.

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_live.py --transport stdio|http --mode legacy|auto -- SERVER...

With `--transport http` the server is started with `--http` and its `url <URL>` line read; the
client then speaks legacy streamable HTTP, so every notification outside a call reaches it on
the session's GET stream. The checks: `listChanged` is advertised; `grow` adds `extra` and a
`notifications/tools/list_changed` arrives (legacy: unsolicited; auto, which settles on
2026-07-28: on a `subscriptions/listen` asking for `toolsListChanged`); `extra` is then listed
and called; `slow` is removed while a call to it is in flight, and that call still completes;
a call to it afterwards is the exact unknown-tool error. Over legacy HTTP a `resources/subscribe`
then gets its `notifications/resources/updated` on the GET stream. Prints `ok <check>` or
`FAIL <check>: <details>`, then `N passed, N failed`; exits 0 only if nothing failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

UNKNOWN_SLOW = "unknown tool 'slow'; available tools: ['extra', 'grow', 'shrink', 'touch']"

results: list[tuple[str, str | None]] = []


def check(name: str, problem: str | None) -> None:
    results.append((name, problem))
    print(f"ok {name}" if problem is None else f"FAIL {name}: {problem}", flush=True)


def want(name: str, got, expected) -> None:
    check(name, None if got == expected else f"got {got!r}, want {expected!r}")


def text(result) -> str:
    return result.content[0].text if result.content else repr(result)


async def wait_for(seen: list, count: int, seconds: float = 10) -> None:
    with anyio.move_on_after(seconds):
        while len(seen) < count:
            await anyio.sleep(0.02)


async def names(client) -> list[str]:
    return sorted(t.name for t in (await client.list_tools()).tools)


async def drive(transport: str, mode: str, server: list[str]) -> None:
    seen: dict[str, list] = {"tools": [], "updated": []}

    async def on_message(message) -> None:
        root = getattr(message, "root", message)
        method = getattr(root, "method", None)
        if method == "notifications/tools/list_changed":
            seen["tools"].append(method)
        elif method == "notifications/resources/updated":
            seen["updated"].append(str(root.params.uri))

    proc = None
    if transport == "http":
        proc = subprocess.Popen([*server, "--http"], stdout=subprocess.PIPE, text=True)
        line = proc.stdout.readline().strip()
        if not line.startswith("url "):
            check("server_url", f"the server printed {line!r}")
            proc.kill()
            return
        target = streamable_http_client(line.removeprefix("url "))
    else:
        target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    try:
        async with Client(target, mode=mode, read_timeout_seconds=20, message_handler=on_message) as client:
            await run(client, mode, transport, seen)
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()


async def changes(client, modern: bool, seen: dict[str, list], next_event) -> None:
    want("grow", text(await client.call_tool("grow", {})), "added extra")
    if modern:
        want("tools_list_changed", await next_event(), "ToolsListChanged")
    else:
        await wait_for(seen["tools"], 1)
        want("tools_list_changed", seen["tools"], ["notifications/tools/list_changed"])
    want("listed_after_grow", await names(client), ["extra", "grow", "shrink", "slow", "touch"])
    want("call_added", text(await client.call_tool("extra", {"text": "hi"})), "extra: hi")

    # `slow` is removed while a call to it is in flight; that call finishes on it.
    done: list[str] = []

    async def call_slow() -> None:
        done.append(text(await client.call_tool("slow", {"ms": 1500})))

    async with anyio.create_task_group() as tg:
        tg.start_soon(call_slow)
        await anyio.sleep(0.4)
        want("shrink", text(await client.call_tool("shrink", {"name": "slow"})), "removed slow")
    want("in_flight_completes", done, ["slow done"])
    if modern:
        want("tools_list_changed_again", await next_event(), "ToolsListChanged")
    else:
        await wait_for(seen["tools"], 2)
        want("tools_list_changed_again", len(seen["tools"]), 2)
    want("listed_after_shrink", await names(client), ["extra", "grow", "shrink", "touch"])
    try:
        got = await client.call_tool("slow", {"ms": 1})
        check("removed_is_unknown", f"no error; got {got!r}")
    except MCPError as e:
        want("removed_is_unknown", (e.error.code, e.error.message), (-32602, UNKNOWN_SLOW))


async def run(client, mode: str, transport: str, seen: dict[str, list]) -> None:
    modern = client.protocol_version == "2026-07-28"
    want("protocol_version", client.protocol_version, "2026-07-28" if mode == "auto" else "2025-11-25")
    caps = client.server_capabilities
    want("list_changed_advertised", (caps.tools.list_changed, caps.resources.list_changed), (True, True))
    want("listed_before", await names(client), ["grow", "shrink", "slow", "touch"])

    if modern:
        # 2026-07-28 clients cache lists for the server's ttl; the listen stream's events are
        # what evicts them, so it stays open for every change.
        async with client.listen(tools_list_changed=True) as sub:
            want("listen_honored", bool(sub.honored.tools_list_changed), True)

            async def next_event() -> str | None:
                with anyio.move_on_after(10):
                    async for event in sub:
                        return type(event).__name__
                return None

            await changes(client, modern, seen, next_event)
    else:
        await changes(client, modern, seen, None)

    if transport == "http" and not modern:
        await client.subscribe_resource("test://live")
        want("touch", text(await client.call_tool("touch", {"uri": "test://live"})), "told 1")
        await wait_for(seen["updated"], 1)
        want("resource_updated_on_get_stream", seen["updated"], ["test://live"])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--mode", choices=["legacy", "auto"], default="legacy")
    p.add_argument("server", nargs="+")
    args = p.parse_args()

    async def bounded() -> None:
        with anyio.move_on_after(60) as scope:
            await drive(args.transport, args.mode, args.server)
        if scope.cancelled_caught:
            check("overall_timeout", "gave up after 60s")

    try:
        anyio.run(bounded)
    except BaseException as exc:  # noqa: BLE001 - any failure is a failed check
        check("driver", f"{type(exc).__name__}: {exc}")
    failed = sum(1 for _, p in results if p is not None)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 0 if failed == 0 and results else 1


if __name__ == "__main__":
    sys.exit(main())
