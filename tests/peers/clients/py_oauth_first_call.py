"""Interop driver: the Python SDK 2.x client (`mcp==2.3.0`, venv A) with its `OAuthClientProvider`,
whose first request is a large `tools/call`.

    $TOOLWIRE_PY_MCP2 tests/peers/clients/py_oauth_first_call.py --url http://127.0.0.1:P/mcp --size 1048576

The client adopts 2026-07-28 without a handshake (`mode="2026-07-28"`), so its first request is
`tools/call measure {"text": "x" * size}`, sent without a token. The provider runs the whole MCP
authorization flow on the 401: the protected resource's metadata, the authorization server's
metadata, dynamic client registration, the authorization code grant with PKCE (the redirect is
followed here, standing in for a browser: the test authorization server consents at once), the
token, and the call again with it. It prints one JSON object: every exchange the client's HTTP
client made (method, URL, status, and for a POST to the MCP endpoint its JSON-RPC method; the
browser's `/authorize` is not one of them), and the call's
outcome (`ok <text>`, `tool-error <text>` or `rpc-error <code> <message>`). A reset where the 401
should be fails the run. It does no checks of its own: the Rust test asserts the JSON exactly.
"""

from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import parse_qs, urlparse

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp.shared.exceptions import MCPError

REDIRECT_URI = "http://127.0.0.1:9/callback"


class Memory:
    """Tokens and the client registration, kept for this run only."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--size", type=int, required=True)
    opts = ap.parse_args()

    redirected: dict[str, str | None] = {}

    async def redirect_handler(authorization_url: str) -> None:
        # The browser's part: open the authorization URL, and land on the redirect.
        async with httpx2.AsyncClient(follow_redirects=False) as browser:
            answer = await browser.get(authorization_url)
        if answer.status_code != 302:
            raise RuntimeError(f"/authorize answered {answer.status_code}: {answer.text}")
        query = parse_qs(urlparse(answer.headers["location"]).query)
        redirected["code"] = query["code"][0]
        redirected["state"] = query.get("state", [None])[0]

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=redirected["code"], state=redirected["state"])

    provider = OAuthClientProvider(
        server_url=opts.url,
        client_metadata=OAuthClientMetadata(
            client_name="py-oauth-first-call",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=Memory(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    exchanges: list[list] = []

    async def note(response: httpx2.Response) -> None:
        request = response.request
        exchange = [request.method, str(request.url), response.status_code]
        if str(request.url) == opts.url and request.method == "POST":
            exchange.append(json.loads(request.content).get("method"))
        exchanges.append(exchange)

    out: dict = {}
    async with create_mcp_http_client(auth=provider) as hc:
        hc.event_hooks = {"response": [note]}
        transport = streamable_http_client(opts.url, http_client=hc)
        async with Client(transport, mode="2026-07-28", read_timeout_seconds=30) as client:
            try:
                result = await client.call_tool("measure", {"text": "x" * opts.size})
                text = " ".join(b.text for b in result.content if getattr(b, "text", None) is not None)
                out["result"] = f"{'tool-error' if result.is_error else 'ok'} {text}"
            except MCPError as exc:
                out["result"] = f"rpc-error {exc.code} {exc.message}"
    out["exchanges"] = exchanges
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
