// Resumable-stream driver: the TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0,
// legacy era: initialize at 2025-11-25) against a toolwire server that polls
// (HttpConfig::sse_polling), as tests/tests/sse_resume.rs starts it.
//
//   source tests/peers/env.sh
//   $TOOLWIRE_NODE22 tests/peers/clients/ts_v2_sse_resume.mjs --url http://127.0.0.1:P/mcp
//
// It calls `steps` {count: 3, gap_ms: 300}: the server sends nothing for 300 ms, so it closes
// the POST's stream after the priming event (an id, empty data, `retry:`); the SDK's
// transport reconnects with GET and Last-Event-ID (its `_scheduleReconnection`, after the
// server's retry) and gets the logs and the result on the resumed stream. The resumption
// tokens the SDK saw (callTool's `onresumptiontoken`), the logs (`notifications/message`
// handler) and the result are printed as one JSON line.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const url = argv[argv.indexOf('--url') + 1];
if (!url || argv.indexOf('--url') < 0) {
  process.stderr.write('usage: ts_v2_sse_resume.mjs --url URL\n');
  process.exit(2);
}

async function importFromCache(pkg) {
  const nm = process.env.TOOLWIRE_NODE_MODULES;
  if (!nm) throw new Error('TOOLWIRE_NODE_MODULES is not set: run tests/peers/setup.sh and source tests/peers/env.sh');
  const dir = path.join(nm, pkg);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const exp = meta.exports['.'];
  const target = typeof exp === 'string' ? exp : (exp.import?.default ?? exp.import ?? exp.default);
  return import(pathToFileURL(path.join(dir, target)).href);
}

const { Client, StreamableHTTPClientTransport } = await importFromCache('@modelcontextprotocol/client');
const client = new Client({ name: 'toolwire-ts-v2-resume', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
const logs = [];
client.setNotificationHandler('notifications/message', (n) => { logs.push(n.params.data); });
const errors = [];
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
transport.onerror = (e) => errors.push(String(e?.message ?? e));
const tokens = [];
const result = await client.callTool(
  { name: 'steps', arguments: { count: 3, gap_ms: 300 } },
  { onresumptiontoken: (t) => tokens.push(t), timeout: 20000 },
);
const text = result.content.filter((b) => b.type === 'text').map((b) => b.text).join(' ');
process.stdout.write(JSON.stringify({
  version: client.getNegotiatedProtocolVersion(),
  text,
  is_error: result.isError === true,
  logs,
  tokens,
  errors,
}) + '\n');
await client.close();
