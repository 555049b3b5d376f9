// Interop driver: the TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.32.2) against a stdio server.
//
//   source tests/peers/env.sh
//   $TOOLWIRE_NODE22 tests/peers/clients/ts_v1_client.mjs [--golden-dir DIR] [--lenient-texts] [-v] \
//       -- <server command and args...>
//
// The SDK is imported from the peers cache: $TOOLWIRE_NODE_MODULES (written by setup.sh), resolved
// through the package's own "exports" map to absolute file URLs, so nothing depends on NODE_PATH or
// on where this script lives.
//
// API used: new Client({name, version}); new StdioClientTransport({command, args, env, stderr});
// await client.connect(transport); client.getServerVersion(); client.listTools();
// client.callTool({name, arguments}, undefined, {onprogress, timeout}). A JSON-RPC error surfaces as
// McpError (.code, .message = "MCP error <code>: <server message>"). The SDK has no getter for the
// negotiated version over stdio, so the script taps transport.send/onmessage and reads the
// initialize exchange (v1 offers 2025-11-25; the check wants 2025-11-25 back).

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(HERE, '..', '..', '..');
const WANT_VERSION = '2025-11-25';

// ---------------------------------------------------------------- args
function usage(msg) {
  if (msg) process.stderr.write(`${msg}\n`);
  process.stderr.write('usage: ts_v1_client.mjs [--golden-dir DIR] [--lenient-texts] [--timeout S] [--call-timeout S] [-v] -- <server command...>\n');
  process.exit(2);
}
const argv = process.argv.slice(2);
const split = argv.indexOf('--');
if (split < 0 || split === argv.length - 1) usage('no server command after --');
const server = argv.slice(split + 1);
const opts = { goldenDir: path.join(REPO_ROOT, 'tests', 'golden', 'example'), lenient: false, timeout: 90, callTimeout: 20, verbose: false };
for (let i = 0; i < split; i++) {
  const a = argv[i];
  if (a === '--golden-dir') opts.goldenDir = argv[++i];
  else if (a === '--lenient-texts') opts.lenient = true;
  else if (a === '--timeout') opts.timeout = Number(argv[++i]);
  else if (a === '--call-timeout') opts.callTimeout = Number(argv[++i]);
  else if (a === '-v' || a === '--verbose') opts.verbose = true;
  else usage(`unknown option ${a}`);
}

// ---------------------------------------------------------------- SDK import from the cache
async function importFromCache(pkg, subpath) {
  const nm = process.env.TOOLWIRE_NODE_MODULES;
  if (!nm) throw new Error('TOOLWIRE_NODE_MODULES is not set: run tests/peers/setup.sh and source tests/peers/env.sh');
  const pkgDir = path.join(nm, pkg);
  const meta = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  let target = null;
  const exp = meta.exports?.[subpath];
  if (exp) target = typeof exp === 'string' ? exp : (exp.import ?? exp.default);
  if (!target) {
    const wildcard = meta.exports?.['./*'];
    const pattern = wildcard && (typeof wildcard === 'string' ? wildcard : (wildcard.import ?? wildcard.default));
    if (pattern) target = pattern.replace('*', subpath.replace(/^\.\//, ''));
  }
  const file = target ? path.join(pkgDir, target) : createRequire(path.join(nm, 'noop.js')).resolve(`${pkg}/${subpath.replace(/^\.\//, '')}`);
  return import(pathToFileURL(file).href);
}

const contract = JSON.parse(fs.readFileSync(path.join(HERE, 'contract.json'), 'utf8'));

// ---------------------------------------------------------------- checks
let passed = 0, failed = 0;
const seen = new Set();
const shortStr = (v, n = 400) => { let s = typeof v === 'string' ? v : JSON.stringify(v); s = (s ?? String(v)).replace(/\n/g, '\\n'); return s.length <= n ? s : s.slice(0, n) + '...'; };
const ok = (name) => { seen.add(name); passed++; process.stdout.write(`ok ${name}\n`); };
const fail = (name, details) => { seen.add(name); failed++; process.stdout.write(`FAIL ${name}: ${shortStr(details, 600)}\n`); };
const check = (name, problems) => (problems.length ? (fail(name, problems.join('; ')), false) : (ok(name), true));
const note = (s) => { if (opts.verbose) process.stderr.write(`note: ${s}\n`); };
const jsonEq = (a, b) => canon(a) === canon(b);
function canon(v) {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

function resultProblems(c, res, lenient) {
  const problems = [];
  const isError = res.isError === true;
  if (isError !== c.is_error) problems.push(`isError=${res.isError}, want ${c.is_error}`);
  const content = res.content ?? [];
  const texts = content.filter((b) => b.type === 'text').map((b) => b.text);
  if (content.length !== 1 || texts.length !== 1) problems.push(`want exactly one text block, got ${shortStr(content)}`);
  else if (lenient && c.is_error) { /* SDK-native fixture: its own error texts */ }
  else if (lenient && 'structured' in c) {
    try { if (!jsonEq(JSON.parse(texts[0]), JSON.parse(c.text))) problems.push(`text ${shortStr(texts[0])} is not the JSON ${c.text}`); }
    catch { problems.push(`text ${shortStr(texts[0])} is not JSON`); }
  } else if (texts[0] !== c.text) problems.push(`text ${JSON.stringify(texts[0])}, want ${JSON.stringify(c.text)}`);
  if ('structured' in c && !jsonEq(res.structuredContent, c.structured)) problems.push(`structuredContent ${shortStr(res.structuredContent)}, want ${JSON.stringify(c.structured)}`);
  return problems;
}

// McpError.message is "MCP error <code>: <server message>"; recover the server's own text.
const serverMessage = (err) => String(err.message).replace(/^MCP error -?\d+: /, '');

async function main() {
  const { Client } = await importFromCache('@modelcontextprotocol/sdk', './client/index.js');
  const { StdioClientTransport } = await importFromCache('@modelcontextprotocol/sdk', './client/stdio.js');
  const { McpError } = await importFromCache('@modelcontextprotocol/sdk', './types.js');

  const transport = new StdioClientTransport({ command: server[0], args: server.slice(1), env: { ...process.env }, stderr: 'inherit' });
  const outbound = [], inbound = [];
  const send = transport.send.bind(transport);
  transport.send = (msg, o) => { outbound.push(msg); return send(msg, o); };
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (fn) => { handler = fn && ((msg, extra) => { inbound.push(msg); return fn(msg, extra); }); },
  });

  const client = new Client({ name: 'toolwire-ts-v1-driver', version: '0.1.0' });
  const reqOpts = { timeout: opts.callTimeout * 1000 };
  try {
    await client.connect(transport, reqOpts);
  } catch (e) {
    fail('connect', `${e?.name}: ${e?.message}`);
    return;
  }
  ok('connect');
  try {
    const init = outbound.find((m) => m.method === 'initialize');
    const initResp = init && inbound.find((m) => m.id === init.id);
    const got = initResp?.result?.protocolVersion;
    check('protocol_version', got === WANT_VERSION ? [] : [`${JSON.stringify(got)}, want ${JSON.stringify(WANT_VERSION)}`]);
    const info = client.getServerVersion();
    const gotInfo = [info?.name, info?.version], wantInfo = [contract.server_name, contract.server_version];
    check('server_info', jsonEq(gotInfo, wantInfo) ? [] : [`serverInfo ${JSON.stringify(gotInfo)}, want ${JSON.stringify(wantInfo)}`]);
    const first = outbound.find((m) => m.method);
    const wp = [];
    if (first?.method !== 'initialize') wp.push(`first request ${first?.method}, want initialize`);
    else if (first.params?.protocolVersion !== WANT_VERSION) wp.push(`initialize offered ${first.params?.protocolVersion}`);
    check('wire_handshake', wp);

    const call = async (name, args, onprogress) => {
      try {
        return await client.callTool({ name, arguments: args }, undefined, { ...reqOpts, ...(onprogress ? { onprogress } : {}) });
      } catch (e) {
        if (e instanceof McpError) { const err = new Error('rpc'); err.rpc = { code: e.code, message: serverMessage(e), raw: e.message }; throw err; }
        throw e;
      }
    };
    const echoSurvives = async (name) => {
      const c = contract.calls[0];
      try { check(name, resultProblems(c, await call(c.tool, c.args), false)); } catch (e) { fail(name, `echo threw ${e?.message}`); }
    };

    // 2 + 3
    try {
      const listed = await client.listTools(undefined, reqOpts);
      const names = listed.tools.map((t) => t.name);
      const np = [];
      if (new Set(names).size !== names.length) np.push(`duplicate names in ${names}`);
      if (!jsonEq([...names].sort(), contract.tools)) np.push(`tools ${JSON.stringify([...names].sort())}, want ${JSON.stringify(contract.tools)}`);
      check('tools_list', np);
      const schemas = Object.fromEntries(listed.tools.map((t) => [t.name, t.inputSchema]));
      for (const tool of contract.tools) {
        const name = `schema_${tool}`;
        if (!(tool in schemas)) { fail(name, 'tool not listed'); continue; }
        let golden;
        try { golden = JSON.parse(fs.readFileSync(path.join(opts.goldenDir, `${tool}.json`), 'utf8')); }
        catch (e) { fail(name, `golden file ${path.join(opts.goldenDir, `${tool}.json`)}: ${e.message}`); continue; }
        if (jsonEq(schemas[tool], golden)) ok(name); else fail(name, `inputSchema ${canon(schemas[tool])} != golden ${canon(golden)}`);
      }
    } catch (e) { fail('tools_list', `${e?.name}: ${e?.message}`); }

    // 4-11, 14
    for (const c of contract.calls) {
      try {
        const res = await call(c.tool, c.args);
        check(c.check, resultProblems(c, res, opts.lenient));
        if (c.is_error) note(`${c.check}: ${shortStr(res.content)}`);
      } catch (e) { fail(c.check, `threw ${e?.rpc ? JSON.stringify(e.rpc) : e?.message}`); }
      if (c.then_echo) await echoSurvives(`${c.check}_session_survives`);
    }

    // 12
    {
      const spec = contract.progress;
      const events = [];
      try {
        const res = await call(spec.tool, spec.args, (p) => events.push([p.progress, p.total]));
        const pp = resultProblems({ is_error: false, text: spec.text }, res, opts.lenient);
        const values = events.map((e) => e[0]);
        if (!jsonEq(values, spec.values)) pp.push(`progress values ${JSON.stringify(values)}, want ${JSON.stringify(spec.values)}`);
        if (values.some((v, i) => i > 0 && v <= values[i - 1])) pp.push(`progress not strictly increasing: ${values}`);
        if (events.some((e) => e[1] !== spec.total)) pp.push(`totals ${JSON.stringify(events.map((e) => e[1]))}, want all ${spec.total}`);
        check('progress', pp);
      } catch (e) { fail('progress', `threw ${e?.message}`); }
    }

    // 13
    {
      const spec = contract.unknown_tool;
      try {
        const res = await call(spec.tool, {});
        note(`unknown tool came back as a result: ${shortStr(res.content)}`);
        check('unknown_tool', opts.lenient ? [] : [`no JSON-RPC error; got a result ${shortStr(res)}`]);
      } catch (e) {
        if (e?.rpc) {
          note(`unknown tool threw McpError code=${e.rpc.code} message=${JSON.stringify(e.rpc.raw)}`);
          const up = [];
          if (e.rpc.code !== spec.code) up.push(`code ${e.rpc.code}, want ${spec.code}`);
          if (!opts.lenient && e.rpc.message !== spec.message) up.push(`message ${JSON.stringify(e.rpc.message)}, want ${JSON.stringify(spec.message)}`);
          check('unknown_tool', up);
        } else fail('unknown_tool', `threw ${e?.name}: ${e?.message}`);
      }
      await echoSurvives('unknown_tool_session_survives');
    }

    // 15
    {
      const spec = contract.slow;
      const order = [];
      const t0 = Date.now();
      const run = async (label, tool, args, delay) => {
        await new Promise((r) => setTimeout(r, delay));
        try { order.push([label, await call(tool, args), Date.now() - t0]); } catch (e) { order.push([label, e, Date.now() - t0]); }
      };
      await Promise.all([run('slow', spec.tool, spec.args, 0), run('echo', 'echo', spec.echo_args, 50)]);
      const sp = [];
      const labels = order.map((o) => o[0]);
      if (!jsonEq(labels, ['echo', 'slow'])) sp.push(`completion order ${labels} (at ${order.map((o) => o[2])} ms), want echo first`);
      for (const [label, res] of order) {
        if (res instanceof Error) sp.push(`${label} threw ${res.rpc ? JSON.stringify(res.rpc) : res.message}`);
        else sp.push(...resultProblems({ is_error: false, text: label === 'slow' ? spec.text : spec.echo_text }, res, false).map((p) => `${label}: ${p}`));
      }
      check('slow_concurrent', sp);
    }
  } finally {
    await Promise.race([client.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
  }
}

const timer = setTimeout(() => { fail('overall_timeout', `gave up after ${opts.timeout}s`); finish(); }, opts.timeout * 1000);
function finish() {
  for (const name of ['connect', 'protocol_version', 'server_info', 'wire_handshake', 'tools_list']) if (!seen.has(name)) fail(name, 'not run (an earlier step aborted the session)');
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
main().catch((e) => fail('driver', `${e?.name}: ${e?.message}`)).finally(() => { clearTimeout(timer); finish(); });
