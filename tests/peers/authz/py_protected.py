"""The Python SDK 2.3.0's MCPServer as a protected resource (tests/tests/client_oauth.rs): its
TokenVerifier checks the JWT access tokens oidc-provider issues (ES256 from the provider's
JWKS, the audience this server's URL, the provider as issuer), and its AuthSettings publish
the RFC 9728 metadata and require scope `mcp`.

    python py_protected.py PORT ISSUER
"""

import asyncio
import sys

import jwt
from jwt import PyJWKClient
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

port, issuer = int(sys.argv[1]), sys.argv[2]
resource = f"http://127.0.0.1:{port}/mcp"


class JwtVerifier(TokenVerifier):
    def __init__(self) -> None:
        self.jwks = PyJWKClient(f"{issuer}/jwks")

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            key = await asyncio.to_thread(self.jwks.get_signing_key_from_jwt, token)
            claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=resource, issuer=issuer)
        except jwt.PyJWTError:
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id", "")),
            scopes=str(claims.get("scope", "")).split(),
            expires_at=claims.get("exp"),
            resource=resource,
            subject=claims.get("sub"),
        )


mcp = MCPServer(
    "py-protected",
    token_verifier=JwtVerifier(),
    auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=["mcp"]),
)


@mcp.tool()
def whoami() -> str:
    """Say who is calling."""
    token = get_access_token()
    return f"{token.subject} {token.scopes}" if token else "nobody"


mcp.run("streamable-http", host="127.0.0.1", port=port)
