// panva's oidc-provider (a certified OpenID provider) as the authorization server of
// tests/tests/client_oauth.rs, configured as a deployment would be: an ES256 signing key of its
// own, dynamic client registration, PKCE, resource indicators (RFC 8707) issuing JWT access
// tokens per resource, refresh tokens for offline_access, client credentials for one static
// client. The person's step is a real page: GET /interaction/:uid shows the consent form, and
// POST /interaction/:uid with decision=approve or decision=deny answers it (the test posts it
// over plain HTTP, as a browser would).
//
//   TOOLWIRE_NODE_MODULES=... node oidc_provider.mjs PORT RESOURCE ACCESS_TOKEN_TTL_SECONDS [EXTRA_SCOPE]
//
// EXTRA_SCOPE, when given, is a second scope the resource offers (besides `mcp`), for step-up.
//
// Prints "ready" on stdout once it listens on 127.0.0.1:PORT. Test-only endpoints:
// GET /admin/counts (grants issued, by grant type, and registrations), POST /admin/revoke
// (forget every client registered dynamically, with its grants and refresh tokens).
import http from 'node:http';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { pathToFileURL } from 'node:url';

// The pinned package, from the peers' cache (tests/peers/setup.sh).
const entry = path.join(process.env.TOOLWIRE_NODE_MODULES, 'oidc-provider', 'lib', 'index.js');
const { default: Provider } = await import(pathToFileURL(entry).href);

const [port, resource, ttl, extraScope] = process.argv.slice(2);
const resourceScopes = extraScope ? `mcp ${extraScope}` : 'mcp';
const issuer = `http://127.0.0.1:${port}`;

// An adapter over one Map, so /admin/revoke can drop what a revocation drops.
const store = new Map();
class MapAdapter {
  constructor(model) { this.model = model; }
  key(id) { return `${this.model}:${id}`; }
  async upsert(id, payload) { store.set(this.key(id), payload); }
  async find(id) { return store.get(this.key(id)); }
  async findByUid(uid) {
    for (const [k, v] of store) if (k.startsWith(`${this.model}:`) && v.uid === uid) return v;
    return undefined;
  }
  async findByUserCode() { return undefined; }
  async consume(id) { const v = store.get(this.key(id)); if (v) v.consumed = Math.floor(Date.now() / 1000); }
  async destroy(id) { store.delete(this.key(id)); }
  async revokeByGrantId(grantId) {
    for (const [k, v] of store) if (v.grantId === grantId) store.delete(k);
  }
}

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'es-1', use: 'sig', alg: 'ES256' };

const counts = { authorization_code: 0, refresh_token: 0, client_credentials: 0, registrations: 0 };

const provider = new Provider(issuer, {
  adapter: MapAdapter,
  jwks: { keys: [jwk] },
  // The one signing key is ES256, so ID tokens are signed with it too.
  clientDefaults: { id_token_signed_response_alg: 'ES256' },
  // One person, alice: who signs in at the consent page.
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  clients: [{
    client_id: 'machine',
    client_secret: 'machine-secret',
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
  }],
  scopes: ['openid', 'offline_access', ...resourceScopes.split(' ')],
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
        return {
          scope: resourceScopes,
          audience: resource,
          accessTokenTTL: Number(ttl),
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  ttl: { AccessToken: Number(ttl), ClientCredentials: Number(ttl) },
});

provider.on('grant.success', (ctx) => {
  const type = ctx.oidc.params.grant_type;
  if (type in counts) counts[type] += 1;
});
provider.on('registration_create.success', () => { counts.registrations += 1; });

async function formBody(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET') {
    res.setHeader('content-type', 'text/html');
    res.end(`<form method="post"><p>${details.params.client_id} asks for ${details.params.scope ?? 'no scope'}
<button name="decision" value="approve">Allow</button><button name="decision" value="deny">Deny</button></form>`);
    return;
  }
  const decision = (await formBody(req)).get('decision');
  if (decision !== 'approve') {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the person declined' });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: 'alice', clientId: details.params.client_id });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes)) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    req, res,
    { login: { accountId: 'alice' }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

async function revoke() {
  for (const [k, v] of [...store]) {
    const dynamic = k.startsWith('Client:') && v.client_id !== 'machine';
    if (dynamic || k.startsWith('RefreshToken:') || k.startsWith('Grant:') || k.startsWith('Session:')) {
      store.delete(k);
    }
  }
}

const callback = provider.callback();
http.createServer(async (req, res) => {
  try {
    if (req.url.startsWith('/interaction/')) return await interaction(req, res);
    if (req.url === '/admin/counts') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(counts));
    }
    if (req.url === '/admin/revoke' && req.method === 'POST') {
      await revoke();
      return res.end('revoked');
    }
    return callback(req, res);
  } catch (e) {
    res.statusCode = 500;
    res.end(String(e));
  }
}).listen(Number(port), '127.0.0.1', () => console.log('ready'));
