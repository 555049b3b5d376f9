"""Cluster driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) through a load balancer in
front of toolwire replicas (`tests/tests/cluster.rs`, replicas of `tests/src/bin/replica.rs`).

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_cluster.py --mode auto|legacy --url URL --calls N
    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_cluster.py --scenario subscribe --url URL --replica URL...
    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_cluster.py --scenario kill --url URL
    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_cluster.py --scenario list-changed --runs N --url URL --replica URL...

`calls` (the default): N `echo` calls with the text `py-<mode>-<i>`; the answer must be that
text, once. Prints one JSON line: {"mode", "protocol_version", "calls", "ok", "wrong": [first few
problems]}, and exits 0 only when every call was answered correctly.

`subscribe`: a legacy client through URL (its GET stream open) subscribes to
`cluster://watched`; then `touch` is called on each `--replica` directly (a modern client each),
for `cluster://watched` and for `cluster://other`; then the client unsubscribes (through URL) and
each replica touches `cluster://watched` again. Prints one JSON line: {"updates": the URIs of the
`notifications/resources/updated` received while subscribed, "after_unsubscribe": those received
after, "told": each touch's answer}.

`kill`: a modern (auto) and a legacy client through URL connect, then each in turn (legacy
first) starts 3 `slow` calls (2 s) at once, so each burst is three consecutive requests to the
load balancer; the line `calling` is printed once both are sent, and collect the outcomes (the test kills a replica
meanwhile); then each makes 3 `echo` calls. Prints one JSON line: {"<auto|legacy>": {"protocol_version",
"ok": calls answered right, "failed": ["<exception type>: <text>", ...], "after": echo calls
answered right}}.

`list-changed` (replicas run with `--live`): N times in a row, a new legacy client through URL
(its GET stream opened as the SDK opens it) waits 0.4 s, then `change` is called on each
`--replica` directly (a modern client each, made once), each change waited for (5 s at most)
before the next; 0.3 s after the last, the session is closed. Prints one JSON line: {"heard": for
each session, how many `notifications/tools/list_changed` it had received after each change (the
last counted after the 0.3 s), "told": each `change`'s answer}.
"""

from __future__ import annotations

import argparse
import contextlib
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


def texts_of(result) -> list[str]:
    return [c.text for c in result.content if getattr(c, "type", None) == "text"]


async def wait_for(predicate, limit: float) -> None:
    with anyio.move_on_after(limit):
        while not predicate():
            await anyio.sleep(0.02)


async def subscribe(opts) -> dict:
    updates: list[str] = []

    async def on_message(message) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updates.append(str(root.params.uri))

    told: list[str] = []

    async def touch_each(hc, uris: list[str]) -> None:
        for replica in opts.replica:
            async with Client(streamable_http_client(replica, http_client=hc), mode="auto") as direct:
                for uri in uris:
                    told.extend(texts_of(await direct.call_tool("touch", {"uri": uri})))

    async with create_mcp_http_client() as hc:
        transport = streamable_http_client(opts.url, http_client=hc)
        async with Client(transport, mode="legacy", read_timeout_seconds=opts.call_timeout,
                          message_handler=on_message) as client:
            # The client opens its GET stream once the handshake is done; subscribe after it is
            # open, so the subscription must reach the stream's replica through the store.
            await anyio.sleep(0.5)
            await client.subscribe_resource("cluster://watched")
            async with create_mcp_http_client() as direct_hc:
                await touch_each(direct_hc, ["cluster://watched", "cluster://other"])
                await wait_for(lambda: len(updates) >= len(opts.replica), 10)
                await anyio.sleep(0.5)  # anything more that was coming
                subscribed = list(updates)
                await client.unsubscribe_resource("cluster://watched")
                await touch_each(direct_hc, ["cluster://watched"])
                await anyio.sleep(1.0)
    return {"updates": subscribed, "after_unsubscribe": updates[len(subscribed):], "told": told}


async def list_changed(opts) -> dict:
    heard: list[list[int]] = []
    told: list[str] = []
    async with create_mcp_http_client() as direct_hc, contextlib.AsyncExitStack() as stack:
        direct = [
            await stack.enter_async_context(Client(streamable_http_client(r, http_client=direct_hc), mode="auto"))
            for r in opts.replica
        ]
        for _ in range(opts.runs):
            changes: list[str] = []

            async def on_message(message) -> None:
                root = getattr(message, "root", message)
                if getattr(root, "method", None) == "notifications/tools/list_changed":
                    changes.append("tools")

            counts: list[int] = []
            async with create_mcp_http_client() as hc:
                transport = streamable_http_client(opts.url, http_client=hc)
                async with Client(transport, mode="legacy", read_timeout_seconds=opts.call_timeout,
                                  message_handler=on_message):
                    await anyio.sleep(0.4)
                    for i, replica in enumerate(direct):
                        told.extend(texts_of(await replica.call_tool("change", {})))
                        await wait_for(lambda: len(changes) > i, 5)
                        if i == len(direct) - 1:
                            await anyio.sleep(0.3)  # anything more that was coming
                        counts.append(len(changes))
            heard.append(counts)
    return {"heard": heard, "told": told}


async def kill(opts) -> dict:
    async def one(mode: str, results: dict, ready: anyio.Event, go: anyio.Event, sent: anyio.Event) -> None:
        async with create_mcp_http_client() as hc:
            transport = streamable_http_client(opts.url, http_client=hc)
            async with Client(transport, mode=mode, read_timeout_seconds=opts.call_timeout) as client:
                out = {"protocol_version": client.protocol_version, "ok": 0, "failed": [], "after": 0}
                results[mode] = out
                ready.set()
                await go.wait()

                async def slow(i: int) -> None:
                    want = f"slow-{mode}-{i}"
                    try:
                        result = await client.call_tool("slow", {"ms": 2000, "text": want})
                        if texts_of(result) == [want] and not result.is_error:
                            out["ok"] += 1
                        else:
                            out["failed"].append(f"wrong answer: {texts_of(result)!r}")
                    except Exception as exc:  # noqa: BLE001 - what the client sees is the point
                        out["failed"].append(f"{type(exc).__name__}: {exc}")

                async with anyio.create_task_group() as tg:
                    for i in range(3):
                        tg.start_soon(slow, i)
                    await anyio.sleep(0.3)
                    sent.set()
                for i in range(3):
                    try:
                        if texts_of(await client.call_tool("echo", {"text": f"after-{i}"})) == [f"after-{i}"]:
                            out["after"] += 1
                    except Exception as exc:  # noqa: BLE001
                        out["failed"].append(f"after {i}: {type(exc).__name__}: {exc}")

    # Both connect first; then each client's burst goes out alone (legacy, then modern), so the
    # three calls of a burst are three consecutive requests to nginx's round-robin: one lands
    # on each replica, whichever the test kills.
    results: dict = {}
    modes = ["legacy", "auto"]
    ready = {m: anyio.Event() for m in modes}
    go = {m: anyio.Event() for m in modes}
    sent = {m: anyio.Event() for m in modes}
    async with anyio.create_task_group() as tg:
        for mode in modes:
            tg.start_soon(one, mode, results, ready[mode], go[mode], sent[mode])
        for mode in modes:
            await ready[mode].wait()
        for mode in modes:
            go[mode].set()
            await sent[mode].wait()
        print("calling", flush=True)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", choices=["calls", "subscribe", "kill", "list-changed"], default="calls")
    ap.add_argument("--mode", choices=["auto", "legacy"], default="auto")
    ap.add_argument("--url", required=True)
    ap.add_argument("--replica", action="append", default=[])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--call-timeout", type=float, default=20.0)
    opts = ap.parse_args()
    if opts.scenario != "calls":
        scenario = {"subscribe": subscribe, "kill": kill, "list-changed": list_changed}[opts.scenario]
        summary = anyio.run(scenario, opts)
        print(json.dumps(summary), flush=True)
        return 0
    summary = anyio.run(run, opts)
    print(json.dumps(summary))
    return 0 if summary["ok"] == opts.calls else 1


if __name__ == "__main__":
    sys.exit(main())
