// Multi round-trip driver: the TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) on
// 2026-07-28 against the `talk-back` tools over streamable HTTP. The client declares
// elicitation and sampling and registers a handler for each; its `callTool` follows the
// server's `input_required` results itself (the SDK's auto-fulfilment driver), dispatching each
// input request to the handler and retrying with the answers and the echoed requestState.
//
//   source tests/peers/env.sh
//   TOOLWIRE_TEST_BEARER=... $TOOLWIRE_NODE22 tests/peers/clients/ts_v2_mrtr.mjs URL
//
// Prints one JSON line per case: {"case": "elicit"|"sample", "text": ..., "isError": ...},
// then {"case": "seen", "elicit": N, "sample": N} (how often each handler ran).
//
// API used: new Client({name, version}, {capabilities, versionNegotiation: {mode: 'auto'}});
// client.setRequestHandler('elicitation/create' | 'sampling/createMessage', handler);
// new StreamableHTTPClientTransport(url, {requestInit: {headers}}); client.callTool().

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

async function importFromCache(pkg) {
  const nm = process.env.TOOLWIRE_NODE_MODULES;
  if (!nm) throw new Error('TOOLWIRE_NODE_MODULES is not set: source tests/peers/env.sh');
  const dir = path.join(nm, pkg);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const exp = meta.exports['.'];
  const target = typeof exp === 'string' ? exp : (exp.import?.default ?? exp.import ?? exp.default);
  return import(pathToFileURL(path.join(dir, target)).href);
}

const url = process.argv[2];
if (!url) { process.stderr.write('usage: ts_v2_mrtr.mjs URL\n'); process.exit(2); }
const token = process.env.TOOLWIRE_TEST_BEARER;
const emit = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

async function main() {
  const { Client, StreamableHTTPClientTransport } = await importFromCache('@modelcontextprotocol/client');
  const client = new Client(
    { name: 'toolwire-ts-v2-mrtr', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode: 'auto' } },
  );
  const seen = { elicit: 0, sample: 0 };
  client.setRequestHandler('elicitation/create', async () => {
    seen.elicit++;
    return { action: 'accept', content: { name: 'Grace', age: 85 } };
  });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    seen.sample++;
    const text = request.params.messages.map((m) => m.content.text).join(' / ');
    return { role: 'assistant', content: { type: 'text', text: `echo: ${text}` }, model: 'ts-model', stopReason: 'endTurn' };
  });
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  const version = client.getNegotiatedProtocolVersion();
  if (version !== '2026-07-28') throw new Error(`negotiated ${version}, want 2026-07-28`);
  for (const [name, tool, args] of [
    ['elicit', 'ask_contact', { question: 'Who should we contact?' }],
    ['sample', 'ask_model', { prompt: 'Name a colour.' }],
  ]) {
    const r = await client.callTool({ name: tool, arguments: args });
    const text = r.content.filter((b) => b.type === 'text').map((b) => b.text).join(' ');
    emit({ case: name, text, isError: Boolean(r.isError) });
  }
  emit({ case: 'seen', ...seen });
  await client.close();
}

try {
  await main();
} catch (err) {
  process.stderr.write(`ts_v2_mrtr: ${err?.stack ?? err}\n`);
  process.exit(1);
}
