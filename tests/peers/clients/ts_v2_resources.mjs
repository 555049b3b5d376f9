// Interop driver: the TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) reading the
// resources, templates, prompts and completions of a toolwire server, over stdio or HTTP.
//
//   source tests/peers/env.sh
//   $TOOLWIRE_NODE22 tests/peers/clients/ts_v2_resources.mjs --mode legacy|auto -- SERVER [ARGS...]
//   $TOOLWIRE_NODE22 tests/peers/clients/ts_v2_resources.mjs --mode legacy|auto --url http://127.0.0.1:P/mcp
//
// It asserts nothing itself: it prints ONE JSON object on stdout with what the SDK handed back
// (after its own schema validation), and the Rust test (tests/tests/resource_interop.rs)
// compares it with exact values. A request the server refuses is recorded as
// {"error": {"code", "message"}}.
//
// API used: new Client({name, version}, {versionNegotiation: {mode}}); StdioClientTransport
// ({command, args}) from '@modelcontextprotocol/client/stdio' or StreamableHTTPClientTransport
// (url); client.connect(); getNegotiatedProtocolVersion(); listResources();
// listResourceTemplates(); readResource({uri}); listPrompts(); getPrompt({name, arguments});
// complete({ref, argument, context}).
//
// legacy -> initialize at 2025-11-25; auto -> server/discover, settles on 2026-07-28.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const opts = { mode: 'auto', url: null, command: null };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--mode') opts.mode = argv[++i];
  else if (a === '--url') opts.url = argv[++i];
  else if (a === '--') { opts.command = argv.slice(i + 1); break; }
  else { process.stderr.write(`unknown option ${a}\n`); process.exit(2); }
}
if (!['legacy', 'auto'].includes(opts.mode) || (!opts.url && !opts.command?.length)) {
  process.stderr.write('usage: ts_v2_resources.mjs --mode legacy|auto (--url URL | -- SERVER [ARGS...])\n');
  process.exit(2);
}

// The SDK from the peers cache, through its package "exports" map.
async function importFromCache(pkg, sub = '.') {
  const nm = process.env.TOOLWIRE_NODE_MODULES;
  if (!nm) throw new Error('TOOLWIRE_NODE_MODULES is not set: run tests/peers/setup.sh and source tests/peers/env.sh');
  const dir = path.join(nm, pkg);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const exp = meta.exports[sub];
  const target = typeof exp === 'string' ? exp : (exp.import?.default ?? exp.import ?? exp.default);
  return import(pathToFileURL(path.join(dir, target)).href);
}

// A result, or the refusal as {error: {code, message}}.
async function attempt(f) {
  try {
    return await f();
  } catch (e) {
    return { error: { code: e.code ?? null, message: e.message } };
  }
}

async function main() {
  const { Client, StreamableHTTPClientTransport } = await importFromCache('@modelcontextprotocol/client');
  let transport;
  if (opts.url) {
    transport = new StreamableHTTPClientTransport(new URL(opts.url));
  } else {
    const { StdioClientTransport } = await importFromCache('@modelcontextprotocol/client', './stdio');
    transport = new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'inherit' });
  }
  const client = new Client({ name: 'toolwire-ts-v2-resources', version: '1.0.0' }, { versionNegotiation: { mode: opts.mode } });
  await client.connect(transport);

  const report = { protocolVersion: client.getNegotiatedProtocolVersion() };
  report.capabilities = client.getServerCapabilities();
  report.resources = (await client.listResources()).resources;
  report.templates = (await client.listResourceTemplates()).resourceTemplates;
  report.readText = (await client.readResource({ uri: 'test://static-text' })).contents;
  report.readBinary = (await client.readResource({ uri: 'test://static-binary' })).contents;
  report.readTemplate = (await client.readResource({ uri: 'test://template/123/data' })).contents;
  report.readUnknown = await attempt(() => client.readResource({ uri: 'test://no-such-resource' }));
  report.prompts = (await client.listPrompts()).prompts;
  report.getSimple = (await client.getPrompt({ name: 'test_simple_prompt' })).messages;
  report.getWithArgs = (await client.getPrompt({
    name: 'test_prompt_with_arguments', arguments: { arg1: 'paris', arg2: 'london' },
  })).messages;
  report.getMissingArg = await attempt(() => client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } }));
  report.complete = (await client.complete({
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'pa' },
    context: { arguments: { arg2: 'london' } },
  })).completion;
  report.completeUnknown = await attempt(() => client.complete({
    ref: { type: 'ref/prompt', name: 'no_such_prompt' },
    argument: { name: 'arg1', value: 'pa' },
  }));
  await client.close();
  process.stdout.write(JSON.stringify(report) + '\n');
}

main().then(() => process.exit(0), (e) => {
  process.stderr.write(`ts_v2_resources: ${e?.stack ?? e}\n`);
  process.exit(1);
});
