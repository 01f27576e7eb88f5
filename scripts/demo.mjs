#!/usr/bin/env node
// `npm run demo`: mcp-drift catching a silent annotation relaxation, end to end, on a
// throwaway embedded database. It starts examples/search-admin-server.mjs (the tools of the
// annotations article), registers it, runs `mcp-drift serve`, lets the example server
// re-declare purge_tenant as read-only without notifying anyone, waits for the alert email
// (an .eml file in $MCP_DRIFT_HOME/outbox/, since no SMTP_URL is set), prints it, cleans up
// and exits: 0 once the alert is shown, 1 when something went wrong (with serve's log tail).
import { spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const EXAMPLE = path.join(ROOT, 'examples', 'search-admin-server.mjs');
const SERVER_NAME = 'search-admin';
const RECIPIENT = 'ops@example.com';
/** How long after mcp-drift's first listing the example server relaxes purge_tenant. */
const RELAX_AFTER_MS = 2_000;
/**
 * Two bounds, so that the demo always ends by itself. Starting serve is mostly PGlite
 * creating the database, about 10 s of CPU, much longer on a busy machine. From then on:
 * a registry tick (2 s), the relax delay, the next probe (3 s schedule, up to 5 s of random
 * delay), the 2 s grace for a notification, the dispatcher's poll (1 s): about 15 s.
 */
const SERVE_START_DEADLINE_MS = 60_000;
const ALERT_DEADLINE_MS = 60_000;
/** A stopped child gets this long to exit after SIGTERM before SIGKILL (serve drains in 5 s). */
const STOP_GRACE_MS = 7_000;

let startedAt = performance.now();
let home;
let serveLog;
let serveLogPath;
const children = new Set();
let cleaning;
let changeLogged = false;

function say(text) {
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1).padStart(5);
  process.stdout.write(`[${seconds}s] ${text}\n`);
}

/** Control characters (terminal escapes among them) out of text that came from elsewhere. */
function printable(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

function indent(text, prefix = '    ') {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/** Rebuilds dist/ only when src/ changed since the last build (scripts/build.mjs). */
async function ensureBuilt() {
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
      const full = path.join(dir, entry.name);
      return Math.max(max, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
    }, 0);
  const sources = Math.max(
    newest(path.join(ROOT, 'src')),
    statSync(path.join(ROOT, 'scripts', 'build.mjs')).mtimeMs,
  );
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= sources) return;
  say('building dist/ (src/ changed since the last build)…');
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  children.add(child);
  const [code] = await once(child, 'exit');
  children.delete(child);
  if (code !== 0) throw new Error(`the build (npm run build) failed with exit code ${code}`);
  say('built');
}

function once(emitter, event) {
  return new Promise((resolve) => emitter.once(event, (...args) => resolve(args)));
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** The environment of every mcp-drift process: only the temp home, nothing of the user's. */
function driftEnv(logLevel) {
  return {
    ...process.env,
    MCP_DRIFT_HOME: home,
    // Empty counts as unset: the embedded database, and .eml files instead of SMTP.
    DATABASE_URL: '',
    SMTP_URL: '',
    ALERT_TO: RECIPIENT,
    ALERT_MIN_SEVERITY: 'medium',
    DIGEST_SECONDS: '0',
    HTTP_PORT: '0',
    LOG_LEVEL: logLevel,
    // The demo reads serve's log as JSON, whatever the terminal it runs in.
    LOG_FORMAT: 'json',
  };
}

/** Runs a one-shot CLI command; resolves with its exit code and output. */
async function cli(args, { timeoutMs = 15_000 } = {}) {
  // cwd is the temp home, so that no .env of the working copy is read.
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: home,
    env: driftEnv('warn'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  children.delete(child);
  return { code: code ?? (signal ? 128 : 1), stdout, stderr };
}

/** Starts the example server; resolves with its URL and a stream of its events. */
function startExample() {
  const child = spawn(
    process.execPath,
    [EXAMPLE, '--port', '0', '--relax-after-ms', String(RELAX_AFTER_MS)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const listeners = [];
  const exitedEarly = once(child, 'exit').then(([code]) => {
    throw new Error(`the example server exited (code ${code}): ${stderr.trim()}`);
  });
  exitedEarly.catch(() => {}); // raced by main(); an exit after success is the cleanup's
  return new Promise((resolve, reject) => {
    exitedEarly.catch(reject);
    createInterface({ input: child.stdout }).on('line', (line) => {
      let event;
      try {
        event = JSON.parse(line);
      } catch {
        return;
      }
      if (event.event === 'listening')
        resolve({ url: event.url, exitedEarly, onEvent: (fn) => listeners.push(fn) });
      for (const listener of listeners) listener(event);
    });
  });
}

/** Starts `mcp-drift serve`, its output to serve.log; calls `onLog` with each JSON log line. */
function startServe(onLog) {
  serveLogPath = path.join(home, 'serve.log');
  serveLog = createWriteStream(serveLogPath);
  const child = spawn(process.execPath, [CLI, 'serve'], {
    cwd: home,
    env: driftEnv('info'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.stdout.pipe(serveLog, { end: false });
  child.stderr.pipe(serveLog, { end: false });
  createInterface({ input: child.stderr }).on('line', (line) => {
    try {
      onLog(JSON.parse(line));
    } catch {
      // Not a log line.
    }
  });
  return child;
}

/** The end of serve's log, each line cut short: an error line carries its whole stack. */
function serveLogTail(lines = 25, width = 600) {
  if (!serveLogPath || !existsSync(serveLogPath)) return '(serve did not start)';
  const text = readFileSync(serveLogPath, 'utf8').trimEnd();
  if (text === '') return '(empty)';
  const tail = text
    .split('\n')
    .slice(-lines)
    .map((line) => (line.length > width ? `${line.slice(0, width)}…` : line));
  return printable(tail.join('\n'));
}

/** The first complete alert: the dispatcher writes each one to a temp file and renames it. */
async function waitForEml(outbox) {
  for (;;) {
    const emls = existsSync(outbox)
      ? readdirSync(outbox)
          .filter((name) => name.endsWith('.eml'))
          .sort()
      : [];
    if (emls.length > 0) return path.join(outbox, emls[0]);
    await sleep(250);
  }
}

async function printEml(file) {
  const mail = await simpleParser(readFileSync(file));
  const to = [mail.to].flat().filter(Boolean);
  process.stdout.write(
    [
      '',
      `  ${path.basename(file)}`,
      `  From:    ${printable(mail.from?.text ?? '')}`,
      `  To:      ${printable(to.map((address) => address.text).join(', '))}`,
      `  Subject: ${printable(mail.subject ?? '')}`,
      '',
      indent(printable(mail.text ?? '(no text part)')),
      '',
      '',
    ].join('\n'),
  );
}

/** Prints a CLI command's output when the command exists and succeeds. */
async function show(args) {
  const result = await cli(args);
  if (result.code !== 0) return false;
  say(`$ mcp-drift ${args.join(' ')}`);
  process.stdout.write(`${indent(printable(result.stdout))}\n\n`);
  return true;
}

async function stopChild(child) {
  if (exited(child)) return;
  const gone = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await gone;
  clearTimeout(timer);
}

/** Idempotent: stops every child (serve first, so it closes its sessions) and removes home. */
function cleanup() {
  cleaning ??= (async () => {
    const all = [...children];
    await Promise.all(all.map((child) => stopChild(child)));
    await new Promise((resolve) => (serveLog ? serveLog.end(resolve) : resolve()));
    if (home) rmSync(home, { recursive: true, force: true });
  })();
  return cleaning;
}

async function main() {
  await ensureBuilt();
  startedAt = performance.now();
  home = mkdtempSync(path.join(tmpdir(), 'mcp-drift-demo-'));
  const outbox = path.join(home, 'outbox');
  let deadline = setTimeout(() => {
    void fail(
      new Error(`mcp-drift serve did not start within ${SERVE_START_DEADLINE_MS / 1000} s`),
    );
  }, SERVE_START_DEADLINE_MS).unref();
  say(`throwaway home ${home}: embedded database, alerts as .eml files in outbox/`);

  // serve creates the database (the slow part of a first start); the registration then goes
  // through serve's socket and is picked up within 2 s, without a second database start.
  let onServing;
  const serving = new Promise((resolve) => (onServing = resolve));
  const serve = startServe((line) => {
    if (line.msg === 'mcp-drift serving') onServing();
    if (line.msg === 'listing changed' && line.server === SERVER_NAME) {
      changeLogged = true;
      say(
        `mcp-drift recorded ${line.headline}: ${line.findings} findings (${line.trigger === 'poll' ? 'seen by a fresh probe' : line.trigger})`,
      );
    }
  });
  const serveExited = once(serve, 'exit').then(([code]) => {
    throw new Error(`mcp-drift serve exited early (code ${code})`);
  });
  serveExited.catch(() => {}); // raced below; an exit after success is the cleanup's

  const example = await Promise.race([startExample(), serveExited]);
  say(`example MCP server "${SERVER_NAME}" listening at ${example.url}, offering`);
  say('  list_indexes (read-only), wipe_index (destructive), reindex_document (idempotent),');
  say('  purge_tenant (no annotations, so hosts treat it as destructive), append_note,');
  say('  send_invoice_email (open world)');
  example.onEvent((event) => {
    if (event.event === 'listed') {
      say(`mcp-drift listed ${SERVER_NAME}; its held session keeps that listing, as a host would`);
    }
    if (event.event === 'relaxed') {
      say(
        `${SERVER_NAME} re-declared purge_tenant as read-only WITHOUT notifying: no list_changed`,
      );
      say('  a host connecting now would stop asking before calls to purge_tenant');
      say('waiting for mcp-drift to notice, and for its alert…');
    }
  });

  await Promise.race([serving, serveExited]);
  say('mcp-drift serve is running');
  clearTimeout(deadline);
  deadline = setTimeout(() => {
    const what = changeLogged
      ? `the change was recorded, but no alert appeared in ${outbox}`
      : 'no change was recorded';
    void fail(new Error(`${what} within ${ALERT_DEADLINE_MS / 1000} s of serve starting`));
  }, ALERT_DEADLINE_MS).unref();
  const add = ['server', 'add', SERVER_NAME, '--url', example.url];
  const flags = ['--schedule', '*/3 * * * * *', '--trust', 'partial'];
  const added = await Promise.race([cli([...add, ...flags]), serveExited]);
  if (added.code !== 0) {
    throw new Error(`mcp-drift server add failed (exit ${added.code}): ${added.stderr.trim()}`);
  }
  say(`$ mcp-drift server add ${SERVER_NAME} --url ${example.url} \\`);
  say(`    --schedule '*/3 * * * * *' --trust partial      (a fresh probe every 3 s)`);

  const found = await Promise.race([waitForEml(outbox), serveExited, example.exitedEarly]);
  // From here on each command has its own timeout.
  clearTimeout(deadline);
  say(`the alert email, ${path.relative(home, found)}:`);
  await printEml(found);
  await show(['alerts', 'list']);
  if (!(await show(['changes', '--server', SERVER_NAME]))) {
    await show(['history', SERVER_NAME, '--limit', '5']);
  }
  say('done: stopping mcp-drift serve and the example server, removing the throwaway home');
}

/** The one way out: cleans up, then exits with `code`; later calls wait for the first. */
let ending;
function end(code, report = '') {
  ending ??= (async () => {
    if (report) process.stderr.write(report);
    await cleanup();
    process.exit(code);
  })();
  return ending;
}

function fail(error) {
  const message = error instanceof Error ? error.message : String(error);
  return end(
    1,
    `\ndemo failed: ${message}\n\nlast lines of the mcp-drift serve log:\n${indent(serveLogTail())}\n`,
  );
}

let firstSignalAt;
function onSignal(signal) {
  // Ctrl-C under npm arrives twice at once (from the terminal and forwarded by npm): only a
  // later one means "leave now".
  if (firstSignalAt !== undefined) {
    if (performance.now() - firstSignalAt > 1_000) process.exit(130);
    return;
  }
  firstSignalAt = performance.now();
  void end(130, `\ndemo: ${signal}, cleaning up…\n`);
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

main().then(() => end(0), fail);
