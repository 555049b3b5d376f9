// Sampling with tools (SEP-1577), the server's half: a TypeScript SDK client whose sampling
// handler plays a model that calls the offered tool once (`tool_use`, stopReason `toolUse`) and
// then answers in text, against a toolwire server over streamable HTTP. Its tool
// `weather_agent` samples with `get_temperature` offered, runs the tool the model chose, and
// samples again with the `tool_result`.
//
//   source tests/peers/env.sh
//   TOOLWIRE_TEST_BEARER=... $TOOLWIRE_NODE22 tests/peers/clients/ts_sampling_tools.mjs v1|v2 URL [--no-tools]
//
// v1: @modelcontextprotocol/sdk 1.32.2 (a legacy session, 2025-11-25); v2:
// @modelcontextprotocol/client 2.4.0 on 2026-07-28 (the ask arrives as an `input_required`
// round, which the SDK's callTool follows). `--no-tools` declares `sampling: {}` only.
//
// Prints one JSON line: {"result": {text, isError}, "requests": [params of each
// sampling/createMessage the handler saw], "version": negotiated version}.
//
// API used: new Client({name, version}, {capabilities}); client.setRequestHandler(
// CreateMessageRequestSchema | 'sampling/createMessage', handler); new
// StreamableHTTPClientTransport(url, {requestInit: {headers}}); client.callTool().

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

async function importFromCache(pkg, subpath = '.') {
  const nm = process.env.TOOLWIRE_NODE_MODULES;
  if (!nm) throw new Error('TOOLWIRE_NODE_MODULES is not set: source tests/peers/env.sh');
  const dir = path.join(nm, pkg);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  let exp = meta.exports[subpath];
  if (!exp && meta.exports['./*']) {
    const w = meta.exports['./*'];
    const pattern = typeof w === 'string' ? w : (w.import ?? w.default);
    exp = pattern.replace('*', subpath.replace(/^\.\//, ''));
  }
  const target = typeof exp === 'string' ? exp : (exp.import?.default ?? exp.import ?? exp.default);
  return import(pathToFileURL(path.join(dir, target)).href);
}

const [sdk, url, flag] = process.argv.slice(2);
if (!url || !['v1', 'v2'].includes(sdk)) {
  process.stderr.write('usage: ts_sampling_tools.mjs v1|v2 URL [--no-tools]\n');
  process.exit(2);
}
const sampling = flag === '--no-tools' ? {} : { tools: {} };
const token = process.env.TOOLWIRE_TEST_BEARER;
const headers = token ? { Authorization: `Bearer ${token}` } : {};

async function main() {
  let client, transport, method;
  if (sdk === 'v1') {
    const { Client } = await importFromCache('@modelcontextprotocol/sdk', './client/index.js');
    const { StreamableHTTPClientTransport } = await importFromCache('@modelcontextprotocol/sdk', './client/streamableHttp.js');
    const { CreateMessageRequestSchema } = await importFromCache('@modelcontextprotocol/sdk', './types.js');
    client = new Client({ name: 'toolwire-ts-sampling-tools', version: '1.0.0' }, { capabilities: { sampling } });
    transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    method = CreateMessageRequestSchema;
  } else {
    const mod = await importFromCache('@modelcontextprotocol/client');
    client = new mod.Client(
      { name: 'toolwire-ts-sampling-tools', version: '1.0.0' },
      { capabilities: { sampling }, versionNegotiation: { mode: 'auto' } },
    );
    transport = new mod.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    method = 'sampling/createMessage';
  }
  const requests = [];
  client.setRequestHandler(method, async (request) => {
    const params = request.params;
    requests.push(params);
    const last = params.messages[params.messages.length - 1];
    const blocks = Array.isArray(last.content) ? last.content : [last.content];
    const result = blocks.find((b) => b.type === 'tool_result');
    if (!result) {
      // The model calls the first offered tool, with text beside the call (an array).
      return {
        role: 'assistant',
        model: 'ts-model',
        stopReason: 'toolUse',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'call-1', name: params.tools[0].name, input: { city: 'Paris' } },
        ],
      };
    }
    const said = result.content.map((c) => c.text).join(' ');
    return { role: 'assistant', model: 'ts-model', stopReason: 'endTurn', content: { type: 'text', text: `It is ${said}.` } };
  });
  await client.connect(transport);
  const version = sdk === 'v1' ? transport.protocolVersion : client.getNegotiatedProtocolVersion();
  const r = await client.callTool({ name: 'weather_agent', arguments: { city: 'Paris' } });
  const text = (r.content ?? []).map((c) => c.text).join('');
  process.stdout.write(JSON.stringify({ result: { text, isError: r.isError ?? false }, requests, version }) + '\n');
  await client.close();
}

main().catch((e) => {
  process.stderr.write(`error: ${e?.stack ?? e}\n`);
  process.exit(1);
});
