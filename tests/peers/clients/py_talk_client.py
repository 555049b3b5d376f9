"""Talk-back driver: the Python SDK 2.x client (`mcp==2.3.0`) with sampling, elicitation, roots
and logging callbacks, against the `talk-back` example server (legacy era: `mode="legacy"`;
`--mode 2026-07-28`: the same tools, asked in `input_required` rounds, which the SDK's client
drives itself, with logs opted into by `log_level="info"`).

    py_talk_client.py --stdio -- SERVER...      # a stdio child
    py_talk_client.py --url URL --token-env VAR # streamable HTTP with a bearer token

Each scenario calls one tool and prints one JSON line `{"case": ..., ...}` with what the
tool returned (its text and isError) and what the callbacks saw; the Rust test
(tests/tests/talk_back.rs) asserts on them. `--answers` picks what the elicitation callback
does: accept, decline, cancel, bad (content of the wrong type), error (a JSON-RPC error),
hang (never answers). `--bare` declares no capabilities at all (no callbacks). In 2026-07-28
there is no `logging/setLevel` and no roots cache: `logs.warning` is not run, and every
`show_roots` call asks again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import anyio

from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def emit(case: str, **fields) -> None:
    print(json.dumps({"case": case, **fields}, sort_keys=True), flush=True)


async def run(opts) -> None:
    logs: list[dict] = []
    seen: dict[str, list] = {"elicit": [], "sample": [], "roots": 0}

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append({"level": params.level, "logger": params.logger, "data": params.data})

    async def on_elicit(context, params):
        seen["elicit"].append(params.model_dump(by_alias=True, exclude_none=True))
        if opts.answers == "accept":
            if getattr(params, "mode", None) == "url":
                return types.ElicitResult(action="accept")
            return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})
        if opts.answers == "decline":
            return types.ElicitResult(action="decline")
        if opts.answers == "cancel":
            return types.ElicitResult(action="cancel")
        if opts.answers == "bad":
            return types.ElicitResult(action="accept", content={"name": 7})
        if opts.answers == "error":
            return types.ErrorData(code=-32000, message="no user here")
        await anyio.sleep(3600)

    async def on_sample(context, params):
        seen["sample"].append(params.model_dump(by_alias=True, exclude_none=True))
        text = " / ".join(m.content.text for m in params.messages)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"echo: {text}"),
            model="py-test-model",
            stop_reason="endTurn",
        )

    async def on_roots(context):
        seen["roots"] += 1
        return types.ListRootsResult(roots=[
            types.Root(uri="file:///tmp", name="tmp"),
            types.Root(uri="file:///work/my%20project", name="project"),
        ])

    callbacks = {} if opts.bare else dict(
        logging_callback=on_log,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        list_roots_callback=on_roots,
    )

    async def drive(client: Client) -> None:
        async def call(case: str, tool: str, args: dict, **extra) -> None:
            with anyio.move_on_after(opts.call_timeout) as scope:
                result = await client.call_tool(tool, args)
            if scope.cancelled_caught:
                emit(case, timed_out=True, **extra)
                return
            text = " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            emit(case, text=text, is_error=bool(result.is_error), **extra)

        if opts.only in (None, "log"):
            await call("log_default", "chatty", {})
            await anyio.sleep(0.2)
            default_logs = list(logs)
            logs.clear()
            if opts.mode == "legacy":
                await client.set_logging_level("warning")
                await call("log_warning", "chatty", {})
                await anyio.sleep(0.2)
            emit("logs", default=default_logs, warning=list(logs))
        if opts.only in (None, "elicit"):
            await call("elicit", "ask_contact", {"question": "Who should we contact?"})
            await call("elicit_nested", "ask_nested", {})
            await call("elicit_url", "ask_url", {"url": "https://example.com/login"})
            emit("elicit_seen", requests=seen["elicit"])
        if opts.only in (None, "sample"):
            await call("sample", "ask_model", {"prompt": "Name a colour."})
            emit("sample_seen", requests=seen["sample"])
        if opts.only in (None, "roots"):
            args = {"path": "/work/my project/src/lib.rs", "relative": "notes.txt"}
            await call("roots", "show_roots", args)
            await call("roots_cached", "show_roots", {"path": "/etc/passwd", "relative": "../x"})
            emit("roots_asked", count=seen["roots"])
            if not opts.bare and opts.mode == "legacy":
                await client.send_roots_list_changed()
                await anyio.sleep(0.2)
                await call("roots_after_change", "show_roots", args)
                emit("roots_asked_after_change", count=seen["roots"])

    timeout = opts.call_timeout + 5
    if opts.mode != "legacy" and not opts.bare:
        callbacks["log_level"] = "info"
    if opts.stdio:
        params = StdioServerParameters(command=opts.server[0], args=opts.server[1:], env=dict(os.environ))
        async with Client(params, mode=opts.mode, read_timeout_seconds=timeout, **callbacks) as client:
            await drive(client)
    else:
        token = os.environ[opts.token_env]
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as hc:
            transport = streamable_http_client(opts.url, http_client=hc)
            async with Client(transport, mode=opts.mode, read_timeout_seconds=timeout, **callbacks) as client:
                await drive(client)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stdio", action="store_true")
    p.add_argument("--url")
    p.add_argument("--token-env")
    p.add_argument("--answers", default="accept", choices=["accept", "decline", "cancel", "bad", "error", "hang"])
    p.add_argument("--only", choices=["log", "elicit", "sample", "roots"])
    p.add_argument("--bare", action="store_true")
    p.add_argument("--mode", default="legacy", choices=["legacy", "2026-07-28"])
    p.add_argument("--call-timeout", type=float, default=20.0)
    p.add_argument("server", nargs="*")
    opts = p.parse_args()
    if opts.server and opts.server[0] == "--":
        opts.server = opts.server[1:]
    anyio.run(run, opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
