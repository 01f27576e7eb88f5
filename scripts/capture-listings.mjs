#!/usr/bin/env node
/*
 * Captures the listings of published MCP servers as test data.
 *
 * For every entry of scripts/capture-manifest.json (or the manifest given with --manifest),
 * each version is installed from the npm registry into a scratch directory under the
 * system's temporary directory (never into this repository), started over stdio, and asked
 * for `initialize` and every page of `tools/list`. The answer is written as one JSON file per
 * package and version, `{package, version, serverInfo, instructions?, tools}`, with every key
 * the server sent: the messages are read off the SDK's stdio transport as raw JSON-RPC, so no
 * result schema strips what a server adds.
 *
 *   node scripts/capture-listings.mjs [--manifest FILE] [--only SUBSTRING] [--jobs N] [--force]
 *
 * Entries of `published` go to test/fixtures/listings/published/, entries of `releases`
 * (several versions each) to test/fixtures/listings/releases/. Install scripts are not run
 * (`--ignore-scripts`, unless an entry says `"scripts": true`): they download browsers and
 * toolchains that this capture neither needs nor may fetch. A server that fails to start or
 * to answer is reported on stderr and skipped; the run goes on with the others.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCRATCH = join(tmpdir(), 'mcp-drift-capture');
const OUT = {
  published: join(ROOT, 'test/fixtures/listings/published'),
  releases: join(ROOT, 'test/fixtures/listings/releases'),
};
const PROTOCOL_VERSION = '2025-06-18';
const REQUEST_TIMEOUT_MS = 60_000;
const MAX_PAGES = 50;

function options(argv) {
  const opts = { manifest: join(ROOT, 'scripts/capture-manifest.json'), only: null, jobs: 2 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--manifest') opts.manifest = resolve(argv[++i]);
    else if (arg === '--only') opts.only = argv[++i];
    else if (arg === '--jobs') opts.jobs = Number(argv[++i]);
    else if (arg === '--force') opts.force = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  return opts;
}

/** One capture per package and version, with the way that entry is run. */
function jobs(manifest) {
  const list = [];
  for (const [kind, entries] of Object.entries(manifest)) {
    if (!(kind in OUT)) continue;
    for (const entry of entries) {
      const versions = entry.versions ?? [entry.version];
      for (const version of versions) list.push({ kind, entry, version });
    }
  }
  return list;
}

/** Fixture file name: "@scope/name" becomes "scope__name", then "@version". */
function fileName(pkg, version) {
  return `${pkg.replace(/^@/, '').replace('/', '__')}@${version}.json`;
}

const run = promisify(execFile);

async function install(pkg, version, entry) {
  const dir = join(SCRATCH, fileName(pkg, version).replace(/\.json$/, ''));
  // Written last: a directory without it is an install that was cut short, and is redone.
  const done = join(dir, '.installed');
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  const args = ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error'];
  if (!entry.scripts) args.push('--ignore-scripts');
  args.push(`${pkg}@${version}`);
  try {
    await run('npm', args, {
      cwd: dir,
      timeout: 15 * 60_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    });
  } catch (error) {
    throw new Error(`npm install failed: ${String(error.stderr ?? error.message).slice(-800)}`);
  }
  writeFileSync(done, '');
  return dir;
}

/** The command that starts the package's server: node on its bin (the named one, or the only one). */
function command(dir, pkg, entry) {
  const pkgDir = join(dir, 'node_modules', pkg);
  const meta = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  let bin = meta.bin;
  if (typeof bin === 'object' && bin !== null) {
    const names = Object.keys(bin);
    const name =
      entry.bin ??
      (names.length === 1 ? names[0] : names.find((n) => n === meta.name.split('/').pop()));
    if (!name || !(name in bin)) throw new Error(`choose a bin among ${names.join(', ')}`);
    bin = bin[name];
  }
  if (typeof bin !== 'string') throw new Error('the package has no bin');
  // One working directory per package, not per version: a server that prints it in a
  // description (an image folder) then prints the same text in every version.
  const work = join(SCRATCH, 'run', pkg.replace(/^@/, '').replace('/', '__'));
  mkdirSync(work, { recursive: true });
  const args = (entry.args ?? []).map((arg) => arg.replaceAll('{dir}', work));
  return {
    version: meta.version,
    command: process.execPath,
    args: [join(pkgDir, bin), ...args],
    cwd: work,
  };
}

/** A JSON-RPC client over the SDK's stdio transport that keeps messages as they came. */
async function listServer(run, env) {
  const transport = new StdioClientTransport({
    command: run.command,
    args: run.args,
    cwd: run.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: run.cwd, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  const pending = new Map();
  let nextId = 1;
  let closed = null;
  transport.onmessage = (message) => {
    if ('id' in message && pending.has(message.id) && !('method' in message)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    } else if ('id' in message && 'method' in message) {
      // Server-to-client requests (roots, sampling, ping): answer so the server is not left waiting.
      const result = message.method === 'roots/list' ? { roots: [] } : {};
      void transport.send({ jsonrpc: '2.0', id: message.id, result });
    }
  };
  transport.onclose = () => {
    closed = new Error(`server exited: ${stderr.trim().slice(-600)}`);
    for (const reject of pending.values()) reject({ error: { message: closed.message } });
    pending.clear();
  };
  const request = (method, params) =>
    new Promise((resolveRequest, reject) => {
      if (closed) return reject(closed);
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method} timed out; stderr: ${stderr.trim().slice(-600)}`));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolveRequest(message.result);
      });
      transport.send({ jsonrpc: '2.0', id, method, params }).catch(reject);
    });
  await transport.start();
  try {
    const init = await request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: { roots: { listChanged: false } },
      clientInfo: { name: 'mcp-drift-capture', version: '1' },
    });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const tools = [];
    let cursor;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await request('tools/list', cursor === undefined ? {} : { cursor });
      tools.push(...(result.tools ?? []));
      cursor = result.nextCursor;
      if (cursor === undefined || cursor === null) break;
    }
    return { init, tools };
  } finally {
    await transport.close().catch(() => {});
  }
}

async function capture({ kind, entry, version }, force) {
  const out = join(OUT[kind], fileName(entry.package, version));
  if (!force && existsSync(out)) return `kept ${out}`;
  const dir = await install(entry.package, version, entry);
  const server = command(dir, entry.package, entry);
  const { init, tools } = await listServer(server, entry.env ?? {});
  if (tools.length === 0 && !entry.allowEmpty) throw new Error('tools/list returned no tools');
  const doc = {
    package: entry.package,
    version: server.version,
    serverInfo: init.serverInfo ?? null,
  };
  if (typeof init.instructions === 'string') doc.instructions = init.instructions;
  doc.tools = tools;
  mkdirSync(OUT[kind], { recursive: true });
  writeFileSync(out, `${JSON.stringify(doc, null, 1)}\n`);
  return `${tools.length} tools -> ${out}`;
}

async function main() {
  const opts = options(process.argv.slice(2));
  const manifest = JSON.parse(readFileSync(opts.manifest, 'utf8'));
  const queue = jobs(manifest).filter(
    (job) => !opts.only || `${job.entry.package}@${job.version}`.includes(opts.only),
  );
  let failed = 0;
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const name = `${job.entry.package}@${job.version}`;
      try {
        console.error(`ok   ${name}: ${await capture(job, opts.force)}`);
      } catch (error) {
        failed++;
        console.error(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.jobs) }, worker));
  console.error(failed === 0 ? 'all captured' : `${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
