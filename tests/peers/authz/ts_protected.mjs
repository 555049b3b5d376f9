// The TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0) as a protected resource
// (tests/tests/client_oauth.rs): createMcpHandler serves Streamable HTTP (both eras) behind the
// SDK's requireBearerAuth, whose verifier checks the JWT access tokens oidc-provider issues
// (ES256 against the provider's JWKS with jose, the provider as issuer, the audience this
// server's URL, the expiry), requiring scope `mcp`; oauthMetadataResponse serves the RFC 9728
// metadata naming the provider, and the 401 challenge points at it.
//
//   TOOLWIRE_NODE_MODULES=... $TOOLWIRE_NODE22 ts_protected.mjs PORT ISSUER
//
// Prints "ready" on stdout once it listens on 127.0.0.1:PORT. Node's http server is bridged to
// the SDK's web-standard fetch face by hand (the SDK has no Node adapter of its own here).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

async function importFromCache(pkg) {
  const nm = process.env.TOOLWIRE_NODE_MODULES;
  if (!nm) throw new Error('TOOLWIRE_NODE_MODULES is not set: run tests/peers/setup.sh');
  const dir = path.join(nm, pkg);
  const exp = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).exports['.'];
  let target = typeof exp === 'string' ? exp : (exp.import?.default ?? exp.import ?? exp.default);
  if (typeof target !== 'string') target = target.default;
  return import(pathToFileURL(path.join(dir, target)).href);
}

const {
  McpServer, OAuthError, OAuthErrorCode, createMcpHandler, getOAuthProtectedResourceMetadataUrl,
  oauthMetadataResponse, requireBearerAuth,
} = await importFromCache('@modelcontextprotocol/server');
const { createRemoteJWKSet, jwtVerify } = await importFromCache('jose');

const [port, issuer] = process.argv.slice(2);
const resource = new URL(`http://127.0.0.1:${port}/mcp`);

// The verifier: a token oidc-provider signed for this resource, not expired.
const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
const verifier = {
  async verifyAccessToken(token) {
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(token, jwks, {
        issuer, audience: resource.href, algorithms: ['ES256'], requiredClaims: ['exp'],
      }));
    } catch (e) {
      throw new OAuthError(OAuthErrorCode.InvalidToken, `the token was refused: ${e.code ?? e.message}`);
    }
    return {
      token,
      clientId: String(claims.client_id ?? ''),
      scopes: String(claims.scope ?? '').split(' ').filter(Boolean),
      expiresAt: claims.exp,
      resource,
      // A client-credentials token has no person: its subject is the client.
      extra: { subject: claims.sub ?? claims.client_id },
    };
  },
};

const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
const gate = requireBearerAuth({
  verifier, requiredScopes: ['mcp'], resourceMetadataUrl, expectedResource: resource,
});
// A call of `write` needs `mcp:write` too: the SDK's gate answers 403 insufficient_scope naming
// both, and the client steps up.
const writeGate = requireBearerAuth({
  verifier, requiredScopes: ['mcp', 'mcp:write'], resourceMetadataUrl, expectedResource: resource,
});
// The provider's own metadata, passed through as the SDK's metadata helper expects.
const oauthMetadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
// The issuer is http://127.0.0.1 in this test; a deployment's is https.
const metadataOptions = {
  oauthMetadata, resourceServerUrl: resource, scopesSupported: ['mcp', 'mcp:write'], dangerouslyAllowInsecureIssuerUrl: true,
};

const handler = createMcpHandler(({ authInfo }) => {
  const server = new McpServer({ name: 'ts-protected', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'whoami',
    { description: 'Say who is calling.', annotations: { readOnlyHint: true } },
    async () => ({
      content: [{ type: 'text', text: authInfo ? `${authInfo.extra.subject} ${authInfo.scopes.join(',')}` : 'nobody' }],
    }),
  );
  server.registerTool(
    'write',
    { description: 'Write something (needs scope mcp:write).' },
    async () => ({ content: [{ type: 'text', text: `written by ${authInfo?.extra.subject}` }] }),
  );
  return server;
});

async function serve(request) {
  const metadata = oauthMetadataResponse(request, metadataOptions);
  if (metadata) return metadata;
  if (new URL(request.url).pathname !== resource.pathname) return new Response('not found', { status: 404 });
  const body = request.method === 'POST' ? await request.text() : undefined;
  let message;
  try { message = body && JSON.parse(body); } catch { message = undefined; }
  const writes = message?.method === 'tools/call' && message.params?.name === 'write';
  const auth = await (writes ? writeGate : gate)(request);
  if (auth instanceof Response) return auth;
  const again = new Request(request.url, { method: request.method, headers: request.headers, body });
  return handler.fetch(again, { authInfo: auth });
}

http.createServer(async (req, res) => {
  try {
    const body = ['GET', 'HEAD'].includes(req.method) ? undefined : Readable.toWeb(req);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method, headers: req.headers, body, duplex: 'half',
    });
    const response = await serve(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  } catch (e) {
    console.error(e);
    if (!res.headersSent) res.writeHead(500);
    res.end(String(e));
  }
}).listen(Number(port), '127.0.0.1', () => console.log('ready'));
