// Interop driver: the TypeScript SDK 2.4 SkillsClient (@modelcontextprotocol/client/ext/skills)
// reading a toolwire server's skills (the Skills extension, SEP-2640) over HTTP.
//
//   source tests/peers/env.sh
//   $TOOLWIRE_NODE22 tests/peers/clients/ts_v2_skills.mjs --mode legacy|auto --url http://127.0.0.1:P/mcp
//
// It asserts nothing itself: it prints ONE JSON object on stdout with what the SDK handed back,
// after its own checks (entries validated by list(); every read() verified against the entry:
// listed, size, digest, and for SKILL.md the frontmatter), and the Rust test
// (tests/tests/skills_interop.rs) compares it with exact values. A refusal is recorded as
// {"error": {"name", "reason", "message"}}.
//
// API used: new Client({name, version}, {versionNegotiation: {mode}});
// StreamableHTTPClientTransport(url); client.connect(); new SkillsClient(client);
// supported; directoryRead; list(); get(uri); read(skill[, ref]); readDirectory(uri).

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const opts = { mode: 'auto', url: null };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--mode') opts.mode = argv[++i];
  else if (a === '--url') opts.url = argv[++i];
  else { process.stderr.write(`unknown option ${a}\n`); process.exit(2); }
}
if (!['legacy', 'auto'].includes(opts.mode) || !opts.url) {
  process.stderr.write('usage: ts_v2_skills.mjs --mode legacy|auto --url URL\n');
  process.exit(2);
}

async function importFromCache(pkg, sub = '.') {
  const nm = process.env.TOOLWIRE_NODE_MODULES;
  if (!nm) throw new Error('TOOLWIRE_NODE_MODULES is not set: run tests/peers/setup.sh and source tests/peers/env.sh');
  const dir = path.join(nm, pkg);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const exp = meta.exports[sub];
  const target = typeof exp === 'string' ? exp : (exp.import?.default ?? exp.import ?? exp.default);
  return import(pathToFileURL(path.join(dir, target)).href);
}

async function attempt(f) {
  try {
    return await f();
  } catch (e) {
    return { error: { name: e.constructor?.name ?? null, reason: e.reason ?? null, message: e.message } };
  }
}

// A SkillFile as JSON: bytes as their length and a hex prefix (the binary file), text whole.
function file(f) {
  if (f.error) return f;
  return {
    uri: f.uri,
    mimeType: f.mimeType ?? null,
    size: f.bytes.length,
    text: f.text ?? null,
    head: Buffer.from(f.bytes.slice(0, 8)).toString('hex'),
    verified: f.verified,
    frontmatter: f.frontmatter ?? null,
    body: f.body ?? null,
  };
}

async function main() {
  const { Client, StreamableHTTPClientTransport } = await importFromCache('@modelcontextprotocol/client');
  const { SkillsClient } = await importFromCache('@modelcontextprotocol/client', './ext/skills');
  const client = new Client({ name: 'ts-skills-interop', version: '1.0.0' }, { versionNegotiation: { mode: opts.mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(opts.url)));
  const skills = new SkillsClient(client);
  const report = { protocolVersion: client.getNegotiatedProtocolVersion?.() ?? null };
  report.supported = skills.supported;
  report.directoryRead = skills.directoryRead;
  const listing = await skills.list();
  report.list = { skills: listing.skills, invalid: listing.invalid, ttlMs: listing.ttlMs ?? null, cacheScope: listing.cacheScope ?? null };
  const pdf = listing.skills.find((s) => s.frontmatter.name === 'pdf-processing');
  const notes = listing.skills.find((s) => s.frontmatter.name === 'release-notes');
  report.get = await attempt(async () => (await skills.get(pdf.uri)).skill);
  report.readSkill = file(await attempt(() => skills.read(pdf)));
  report.readForms = file(await attempt(() => skills.read(pdf, 'references/FORMS.md')));
  report.readBinary = file(await attempt(() => skills.read(pdf, 'scripts/marker.bin')));
  report.readNotes = file(await attempt(() => skills.read(notes)));
  report.readUnlisted = await attempt(() => skills.read(pdf, 'references/MISSING.md'));
  report.dirRoot = await attempt(async () => (await skills.readDirectory(pdf.uri.replace(/\/SKILL\.md$/, ''))).resources);
  report.dirRefs = await attempt(async () => (await skills.readDirectory(pdf.uri.replace(/SKILL\.md$/, 'references'))).resources);
  report.getUnknown = await attempt(() => skills.get('skill://no-such-skill/SKILL.md'));
  await client.close();
  process.stdout.write(JSON.stringify(report) + '\n');
}

main().catch((e) => {
  process.stderr.write(`ts_v2_skills: ${e.stack ?? e}\n`);
  process.exit(1);
});
