// Interop driver: the TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) against a
// streamable HTTP server that serves the example-server contract (contract.json).
//
//   source tests/peers/env.sh
//   TOKEN=... $TOOLWIRE_NODE22 tests/peers/clients/ts_v2_http_client.mjs --mode legacy|auto \
//       --url http://127.0.0.1:P/mcp [--token-env TOKEN]
//
// The bearer token is read from the variable named by --token-env (never argv) and sent as
// `Authorization: Bearer <token>` through the transport's requestInit headers.
//
// API used: new Client({name, version}, {versionNegotiation: {mode}}); new
// StreamableHTTPClientTransport(url, {requestInit: {headers}}); client.connect();
// client.getNegotiatedProtocolVersion(); client.listTools(); client.callTool({name, arguments},
// {onprogress}). A JSON-RPC error surfaces with .code and .message.
//
// legacy -> initialize at 2025-11-25; auto -> server/discover, settles on 2026-07-28.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WANT = { legacy: '2025-11-25', auto: '2026-07-28' };

const argv = process.argv.slice(2);
const opts = { mode: 'auto', url: null, tokenEnv: null };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--mode') opts.mode = argv[++i];
  else if (a === '--url') opts.url = argv[++i];
  else if (a === '--token-env') opts.tokenEnv = argv[++i];
  else { process.stderr.write(`unknown option ${a}\n`); process.exit(2); }
}
if (!opts.url || !(opts.mode in WANT)) {
  process.stderr.write('usage: ts_v2_http_client.mjs --mode legacy|auto --url URL [--token-env VAR]\n');
  process.exit(2);
}
const token = opts.tokenEnv ? process.env[opts.tokenEnv] : null;
if (opts.tokenEnv && !token) { process.stderr.write(`--token-env ${opts.tokenEnv}: unset or empty\n`); process.exit(2); }

// The SDK from the peers cache, through its package "exports" map.
async function importFromCache(pkg) {
  const nm = process.env.TOOLWIRE_NODE_MODULES;
  if (!nm) throw new Error('TOOLWIRE_NODE_MODULES is not set: run tests/peers/setup.sh and source tests/peers/env.sh');
  const dir = path.join(nm, pkg);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const exp = meta.exports['.'];
  const target = typeof exp === 'string' ? exp : (exp.import?.default ?? exp.import ?? exp.default);
  return import(pathToFileURL(path.join(dir, target)).href);
}

const contract = JSON.parse(fs.readFileSync(path.join(HERE, 'contract.json'), 'utf8'));
let passed = 0, failed = 0;
const check = (name, problems) => {
  if (problems.length) { failed++; process.stdout.write(`FAIL ${name}: ${problems.join('; ')}\n`); }
  else { passed++; process.stdout.write(`ok ${name}\n`); }
};
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function connect(Client, Transport, withToken) {
  const headers = withToken && token ? { Authorization: `Bearer ${token}` } : {};
  const client = new Client({ name: 'toolwire-ts-v2-http', version: '1.0.0' }, { versionNegotiation: { mode: opts.mode } });
  await client.connect(new Transport(new URL(opts.url), { requestInit: { headers } }));
  return client;
}

async function main() {
  const { Client, StreamableHTTPClientTransport } = await importFromCache('@modelcontextprotocol/client');
  const client = await connect(Client, StreamableHTTPClientTransport, true);
  check('connect', []);
  const version = client.getNegotiatedProtocolVersion();
  check('protocol_version', version === WANT[opts.mode] ? [] : [`${version}, want ${WANT[opts.mode]}`]);

  const listed = await client.listTools();
  const names = listed.tools.map((t) => t.name).sort();
  check('tools_list', same(names, contract.tools) ? [] : [`tools ${names}, want ${contract.tools}`]);

  for (const c of contract.calls) {
    const r = await client.callTool({ name: c.tool, arguments: c.args });
    const texts = r.content.filter((b) => b.type === 'text').map((b) => b.text);
    const problems = [];
    if (Boolean(r.isError) !== c.is_error) problems.push(`isError=${r.isError}, want ${c.is_error}`);
    if (!same(texts, [c.text])) problems.push(`texts ${JSON.stringify(texts)}, want ${JSON.stringify([c.text])}`);
    if ('structured' in c && !same(r.structuredContent, c.structured)) problems.push(`structuredContent ${JSON.stringify(r.structuredContent)}`);
    check(c.check, problems);
  }

  const p = contract.progress;
  const seen = [];
  const r = await client.callTool({ name: p.tool, arguments: p.args }, { onprogress: (e) => seen.push([e.progress, e.total]) });
  const problems = [];
  if (r.content[0]?.text !== p.text) problems.push(`text ${r.content[0]?.text}`);
  if (!same(seen.map((s) => s[0]), p.values)) problems.push(`progress ${JSON.stringify(seen)}, want ${p.values}`);
  if (!seen.every((s) => s[1] === p.total)) problems.push(`totals ${JSON.stringify(seen)}, want ${p.total}`);
  check('progress', problems);

  const u = contract.unknown_tool;
  try {
    const res = await client.callTool({ name: u.tool, arguments: {} });
    check('unknown_tool', [`a result, not -32602: ${JSON.stringify(res)}`]);
  } catch (err) {
    const problems = [];
    if (err.code !== u.code) problems.push(`code ${err.code}, want ${u.code}`);
    if (!String(err.message).includes(u.message)) problems.push(`message ${JSON.stringify(err.message)}, want it to contain ${JSON.stringify(u.message)}`);
    check('unknown_tool', problems);
  }
  await client.close();

  if (token) {
    try {
      const c = await connect(Client, StreamableHTTPClientTransport, false);
      await c.close();
      check('no_token_refused', ['connected without the bearer token']);
    } catch (err) {
      check('no_token_refused', err.status === 401 ? [] : [`refused, but not with 401 (status ${err.status}): ${err}`]);
    }
  }
}

try {
  await main();
} catch (err) {
  failed++;
  process.stdout.write(`FAIL driver: ${err?.stack ?? err}\n`);
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
