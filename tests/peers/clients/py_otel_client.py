"""The first hop of Python client -> toolwire -> Python server, for tests/tests/otel.rs: the
mcp 2.3.0 client traced with opentelemetry-sdk, exporting over OTLP/HTTP.

    py_otel_client.py [--mode legacy|2026-07-28] OTLP_BASE_URL TOOL... -- SERVER...
    py_otel_client.py [--mode legacy|2026-07-28] OTLP_BASE_URL TOOL... -- http://HOST:PORT/mcp

Opens a root span `py client root` and, inside it, calls each TOOL with {"text": "hello"} on
the stdio SERVER (the SDK's client makes a CLIENT span for each request and puts its context
into the request's `_meta`, SEP-414). Prints one JSON line: the root span's trace and span
ids (hex) and, by tool, its text and isError, the JSON-RPC error it got, or that it was
given up (`sleepy` after 1 s; the SDK then sends `notifications/cancelled`). The SERVER child
gets this process's environment.
"""

import argparse
import json
import os
import sys

import anyio
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


async def run(opts) -> None:
    tracer = trace.get_tracer("py-otel-client")
    if opts.server[0].startswith("http://"):
        target = opts.server[0]
    else:
        target = StdioServerParameters(command=opts.server[0], args=opts.server[1:], env=dict(os.environ))
    async with Client(target, mode=opts.mode, read_timeout_seconds=30) as client:
        with tracer.start_as_current_span("py client root") as root:
            calls = {}
            for tool in opts.tools:
                try:
                    with anyio.move_on_after(1.0 if tool == "sleepy" else 30.0) as scope:
                        result = await client.call_tool(tool, {"text": "hello"})
                except MCPError as e:
                    calls[tool] = {"code": e.error.code, "message": e.error.message}
                    continue
                if scope.cancelled_caught:
                    calls[tool] = {"given_up": True}
                    continue
                text = " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                calls[tool] = {"text": text, "is_error": bool(result.is_error)}
            ctx = root.get_span_context()
            print(json.dumps({
                "trace_id": format(ctx.trace_id, "032x"),
                "root_span_id": format(ctx.span_id, "016x"),
                "calls": calls,
            }), flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("endpoint")
    p.add_argument("tools", nargs="+")
    p.add_argument("--mode", default="legacy", choices=["legacy", "2026-07-28"])
    argv = sys.argv[1:]
    cut = argv.index("--")
    opts = p.parse_args(argv[:cut])
    opts.server = argv[cut + 1:]
    provider = TracerProvider(resource=Resource.create({"service.name": "py-otel-client"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{opts.endpoint}/v1/traces")))
    trace.set_tracer_provider(provider)
    try:
        anyio.run(run, opts)
    finally:
        provider.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
