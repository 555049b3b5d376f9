"""Interop driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) listing and getting prompts
and completing their arguments, over stdio or streamable HTTP.

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_prompts_client.py --mode auto|legacy -- SERVER...
    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_prompts_client.py --mode auto|legacy --url URL

It prints one JSON object (what the client saw: the negotiated version, the server's
capabilities, the listed prompts, got prompts, completions, and the errors of bad requests as
{"code", "message"}); tests/tests/prompts.rs asserts on it. API used: `Client.list_prompts()`,
`Client.get_prompt(name, args)`, `Client.complete(PromptReference(...), {"name", "value"},
context_arguments)`, `Client.server_capabilities`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import anyio

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def attempt(out, key, coro):
    try:
        out[key] = dump(await coro)
    except MCPError as e:
        out[key] = {"code": e.error.code, "message": e.error.message}


async def drive(client, out):
    out["protocol_version"] = client.protocol_version
    caps = client.server_capabilities
    out["capabilities"] = dump(caps) if caps is not None else None
    listed = await client.list_prompts()
    out["prompts"] = [dump(p) for p in listed.prompts]
    await attempt(out, "greet", client.get_prompt("greet"))
    await attempt(out, "code_review", client.get_prompt("code_review", {"code": "fn main() {}", "language": "rust"}))
    await attempt(out, "media", client.get_prompt("show_media"))
    await attempt(out, "missing", client.get_prompt("code_review", {"language": "rust"}))
    await attempt(out, "bad_enum", client.get_prompt("code_review", {"code": "x", "language": "cobol"}))
    await attempt(out, "unknown", client.get_prompt("nope"))
    await attempt(out, "broken", client.get_prompt("broken"))
    ref = PromptReference(type="ref/prompt", name="code_review")
    await attempt(out, "complete_language", client.complete(ref, {"name": "language", "value": "r"}))
    await attempt(
        out, "complete_focus", client.complete(ref, {"name": "focus", "value": "s"}, {"language": "rust"})
    )
    await attempt(
        out,
        "complete_many",
        client.complete(PromptReference(type="ref/prompt", name="pick"), {"name": "item", "value": "item-"}),
    )
    await attempt(
        out,
        "complete_unknown",
        client.complete(PromptReference(type="ref/prompt", name="nope"), {"name": "x", "value": ""}),
    )
    await attempt(out, "complete_bad_arg", client.complete(ref, {"name": "colour", "value": ""}))


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="auto")
    ap.add_argument("--url")
    ap.add_argument("server", nargs="*")
    opts = ap.parse_args()
    if opts.url:
        from mcp.client.streamable_http import streamable_http_client

        transport = streamable_http_client(opts.url)
    else:
        transport = StdioServerParameters(command=opts.server[0], args=opts.server[1:], env=dict(os.environ))
    out = {}
    async with Client(transport, mode=opts.mode, read_timeout_seconds=30) as client:
        await drive(client, out)
    json.dump(out, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    anyio.run(main)
