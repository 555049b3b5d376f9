"""Drive a toolwire resources server with the Python SDK 2.3.0 client; one check per line.

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_resources.py [--transport stdio|http] --mode legacy|auto -- SERVER...

With `--transport http` the server is started with `--http` and its `url <URL>` line read; the
client then speaks streamable HTTP (legacy: subscription updates arrive on the GET stream).

The server is `tests/src/bin/resource-server.rs`'s contract: `test://static-text`,
`test://static-binary`, the templates `test://template/{id}/data` and
`test://tables/{table}/rows/{row}` (whose variables complete, `row` from the `table` already
filled in), and a `touch(uri)` tool that notifies `uri`'s subscribers. Legacy mode subscribes with `resources/subscribe`; auto mode
(which settles on 2026-07-28) opens `subscriptions/listen`. Prints `ok <check>` or
`FAIL <check>: <details>`, then `N passed, N failed`; exits 0 only if nothing failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import ResourceTemplateReference

TEXT = "This is the content of the static text resource."
BAD_VAR = (
    "resource 'test://template/x/data' does not fit template 'test://template/{id}/data': "
    "argument 'id' must be an integer between 0 and 4294967295, got a string"
)

results: list[tuple[str, str | None]] = []


def check(name: str, problem: str | None) -> None:
    results.append((name, problem))
    print(f"ok {name}" if problem is None else f"FAIL {name}: {problem}", flush=True)


def want(name: str, got, expected) -> None:
    check(name, None if got == expected else f"got {got!r}, want {expected!r}")


async def expect_error(name: str, coro, code: int, message: str) -> None:
    try:
        got = await coro
    except MCPError as e:
        want(name, (e.error.code, e.error.message), (code, message))
        return
    check(name, f"no error; got {got!r}")


async def drive(transport: str, mode: str, server: list[str]) -> None:
    updates: list[str] = []

    async def on_message(message) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updates.append(str(root.params.uri))

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
        await run(target, mode, updates, on_message)
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()


async def run(target, mode: str, updates: list[str], on_message) -> None:
    async with Client(target, mode=mode, read_timeout_seconds=20, message_handler=on_message) as client:
        modern = client.protocol_version == "2026-07-28"
        want("protocol_version", client.protocol_version, "2026-07-28" if mode == "auto" else "2025-11-25")
        caps = client.server_capabilities.resources
        want("capability", (caps.subscribe, caps.list_changed), (True, False))

        listed = await client.list_resources()
        want("list", sorted((str(r.uri), r.mime_type) for r in listed.resources),
             [("test://static-binary", "image/png"), ("test://static-text", "text/plain")])
        templates = await client.list_resource_templates()
        want("templates", [(t.uri_template, t.title) for t in templates.resource_templates],
             [("test://template/{id}/data", None), ("test://tables/{table}/rows/{row}", "Table row")])
        want("template_icons",
             [[(i.src, i.mime_type, i.sizes) for i in (t.icons or [])] for t in templates.resource_templates],
             [[], [("https://example.com/row.svg", "image/svg+xml", ["any"])]])
        want("completions_capability", client.server_capabilities.completions is not None, True)

        rows = ResourceTemplateReference(type="ref/resource", uri="test://tables/{table}/rows/{row}")
        done = await client.complete(rows, {"name": "table", "value": "u"})
        want("complete_table", (done.completion.values, done.completion.total, done.completion.has_more),
             (["uploads", "users"], 2, False))
        done = await client.complete(rows, {"name": "row", "value": "1"}, {"table": "users"})
        want("complete_row_from_context", (done.completion.values, done.completion.total, done.completion.has_more),
             (["1", "10"], 2, False))
        done = await client.complete(rows, {"name": "row", "value": ""}, {"table": "orders"})
        want("complete_row_capped", (len(done.completion.values), done.completion.values[:2], done.completion.total,
                                     done.completion.has_more), (100, ["1", "2"], 150, True))
        done = await client.complete(rows, {"name": "row", "value": ""})
        want("complete_row_without_table", (done.completion.values, done.completion.has_more), ([], False))
        done = await client.complete(
            ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data"), {"name": "id", "value": ""})
        want("complete_without_completer", done.completion.values, [])
        await expect_error(
            "complete_unknown_template",
            client.complete(ResourceTemplateReference(type="ref/resource", uri="test://nope/{x}"), {"name": "x", "value": ""}),
            -32602,
            "completion for unknown resource template 'test://nope/{x}'; available templates: "
            "['test://tables/{table}/rows/{row}', 'test://template/{id}/data']",
        )
        await expect_error(
            "complete_unknown_variable",
            client.complete(rows, {"name": "column", "value": ""}),
            -32602,
            "resource template 'test://tables/{table}/rows/{row}' has no argument 'column'. "
            "Accepted arguments: ['row', 'table']",
        )
        row = await client.read_resource("test://tables/users/rows/10")
        want("read_completed_template", [c.text for c in row.contents], ["users/10"])

        text = await client.read_resource("test://static-text")
        want("read_text", [(str(c.uri), c.mime_type, c.text) for c in text.contents],
             [("test://static-text", "text/plain", TEXT)])
        blob = await client.read_resource("test://static-binary")
        want("read_blob", [(c.mime_type, c.blob) for c in blob.contents], [("image/png", "AAECAw==")])
        row = await client.read_resource("test://template/7/data")
        want("read_template", json.loads(row.contents[0].text), {"id": 7, "templateTest": True})

        await expect_error("bad_variable", client.read_resource("test://template/x/data"), -32602, BAD_VAR)
        await expect_error("unknown_uri", client.read_resource("test://nope"),
                           -32602 if modern else -32002, "resource 'test://nope' not found")

        if not modern:
            await expect_error("subscribe_unknown", client.subscribe_resource("test://nope"),
                               -32002, "resource 'test://nope' not found")
            await client.subscribe_resource("test://static-text")
            told = await client.call_tool("touch", {"uri": "test://static-text"})
            want("touch", told.content[0].text, "told 1")
            with anyio.move_on_after(10):
                while not updates:
                    await anyio.sleep(0.02)
            want("updated", updates, ["test://static-text"])
            await client.unsubscribe_resource("test://static-text")
            told = await client.call_tool("touch", {"uri": "test://static-text"})
            want("unsubscribed", told.content[0].text, "told 0")
        else:
            async with client.listen(resource_subscriptions=["test://static-text", "test://nope"]) as sub:
                want("listen_honored", list(sub.honored.resource_subscriptions or []), ["test://static-text"])
                told = await client.call_tool("touch", {"uri": "test://static-text"})
                want("touch", told.content[0].text, "told 1")
                event = None
                with anyio.move_on_after(10):
                    async for event in sub:
                        break
                want("updated", getattr(event, "uri", None) and str(event.uri), "test://static-text")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--mode", choices=["legacy", "auto"], default="auto")
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
