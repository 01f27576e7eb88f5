import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { fixturePath } from '../support/mcp-fixtures.js';
import { startServe } from '../support/serve.js';

/*
 * MCP_DRIFT_HOME on the embedded database, made from nothing by real commands (server add,
 * check, serve, alerts test writing an .eml), holds nothing another local user can read or
 * write: checked by mode bits on every entry, and as `nobody` with runuser where the test
 * runs as root. The folder above the home is world-readable on purpose, so that only the
 * home's own modes stand between `nobody` and its files.
 */

let dir: string;
let home: string;
const env = () => ({ MCP_DRIFT_HOME: home, ALERT_TO: 'ops@example.com' });
const cli = (...args: string[]) => runCli(args, { env: env(), cwd: dir });

/** Every entry under `root`, the root included, with its permission bits. */
function entries(root: string): { path: string; mode: number; dir: boolean }[] {
  const found = [];
  const pending = [root];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    const stat = lstatSync(entry);
    found.push({ path: entry, mode: stat.mode & 0o7777, dir: stat.isDirectory() });
    if (stat.isDirectory()) pending.push(...readdirSync(entry).map((n) => path.join(entry, n)));
  }
  return found;
}

const openToOthers = (root: string) =>
  entries(root)
    .filter((entry) => (entry.mode & 0o077) !== 0)
    .map((entry) => `${entry.path} ${entry.mode.toString(8)}`);

function firstFile(under: string): string {
  const file = entries(under).find((entry) => !entry.dir);
  if (!file) throw new Error(`no file under ${under}`);
  return file.path;
}

const runuser = spawnSync('sh', ['-c', 'command -v runuser'], { encoding: 'utf8' }).stdout.trim();
const asRoot = process.getuid?.() === 0;
const asNobody = (...command: string[]) =>
  spawnSync(runuser, ['-u', 'nobody', '--', ...command], { encoding: 'utf8' });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-private-'));
  chmodSync(dir, 0o755);
  home = path.join(dir, 'home');
  const added = await cli(
    'server',
    'add',
    'fixture',
    '--stdio',
    '--',
    process.execPath,
    fixturePath('sdk2-server.mjs'),
  );
  expect(added.code, added.stderr).toBe(0);
  const checked = await cli('check', 'fixture');
  expect(checked.code, checked.stderr).toBe(0);
  const serve = await startServe({ env: env(), cwd: dir });
  expect((await serve.stop()).code).toBe(0);
  const mailed = await cli('alerts', 'test', '--channel', 'email');
  expect(mailed.code, mailed.stderr).toBe(0);
  // A new data directory takes initdb and every migration: seconds, not the unit default.
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('MCP_DRIFT_HOME made by mcp-drift', () => {
  it('has no group or other permission bit on any entry', () => {
    const all = entries(home);
    // The data directory, the token and the outbox are all there to be checked.
    expect(all.length).toBeGreaterThan(500);
    expect(existsSync(path.join(home, 'console-token'))).toBe(true);
    expect(readdirSync(path.join(home, 'outbox')).some((n) => n.endsWith('.eml'))).toBe(true);
    expect(openToOthers(home)).toEqual([]);
    for (const entry of all) expect(entry.mode & 0o077, entry.path).toBe(0);
  });

  it.skipIf(!asRoot || runuser === '')(
    'lets the user nobody read or write nothing in it (runuser; skipped when not root or without runuser)',
    () => {
      // The control: nobody can read a world-readable file next to the home.
      const control = path.join(dir, 'readable');
      writeFileSync(control, 'public\n', { mode: 0o644 });
      chmodSync(control, 0o644);
      expect(asNobody('cat', control).status).toBe(0);
      const targets = [
        path.join(home, 'console-token'),
        path.join(home, 'db', 'postgresql.conf'),
        firstFile(path.join(home, 'db', 'pg_wal')),
        firstFile(path.join(home, 'outbox')),
      ];
      for (const file of targets) {
        expect(asNobody('cat', file).status, file).not.toBe(0);
        expect(asNobody('test', '-w', file).status, file).not.toBe(0);
      }
      expect(asNobody('ls', home).status).not.toBe(0);
    },
  );

  it('is made private again, with a warning, when it was opened up', async () => {
    for (const entry of entries(home)) chmodSync(entry.path, entry.dir ? 0o777 : 0o666);
    expect(openToOthers(home).length).toBeGreaterThan(500);
    const listed = await cli('server', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toMatch(/"level":40.*open to other users.*private \(0700\/0600\) now/);
    expect(openToOthers(home)).toEqual([]);
    // Once private, the next command has nothing to say.
    const again = await cli('server', 'list');
    expect(again.stderr).toBe('');
  });
});
