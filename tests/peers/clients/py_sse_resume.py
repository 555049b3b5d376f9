"""Resumable-stream driver: the Python SDK 2.x client (`mcp==2.3.0`, legacy era) against a
toolwire streamable-HTTP server that polls (`HttpConfig::sse_polling`), with a
`logging_callback`.

    py_sse_resume.py --url URL

Cases, one JSON line each (`{"case": ...}`), asserted by tests/tests/sse_resume.rs:

- `polled`: `steps` (silent at first, so the server closes its POST stream after the priming
  event with `retry:`) is answered after the client resumed with `Last-Event-ID`; the logs it
  sent on the resumed stream reached the callback, in order;
- `out_of_call`: `linger` answers at once and logs after its call ended; those logs reach the
  callback on the session's GET stream.
"""

from __future__ import annotations

import argparse
import json
import sys

import anyio

from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client


def emit(case: str, **fields) -> None:
    print(json.dumps({"case": case, **fields}, sort_keys=True), flush=True)


async def run(opts) -> None:
    logs: list = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)

    def text(result) -> str:
        return " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")

    transport = streamable_http_client(opts.url)
    async with Client(transport, mode="legacy", read_timeout_seconds=30, logging_callback=on_log) as client:
        result = await client.call_tool("steps", {"count": 3, "gap_ms": 300})
        emit("polled", text=text(result), is_error=bool(result.is_error), logs=list(logs))
        logs.clear()
        result = await client.call_tool("linger", {"count": 3, "gap_ms": 100})
        answered_with = list(logs)
        with anyio.move_on_after(10):
            while len(logs) < 3:
                await anyio.sleep(0.05)
        emit("out_of_call", text=text(result), logs_before_answer=answered_with, logs=list(logs))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True)
    opts = p.parse_args()
    anyio.run(run, opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
