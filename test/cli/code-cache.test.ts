import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMain } from '../support/cli.js';

// A database command runs from its own CommonJS file, compiled with the V8 code cache the
// build wrote beside it (src/cli/main.cts, scripts/build.mjs). A cache that does not fit
// (another Node version, a damaged file) or none at all must only make it slower. Here on
// a copy of dist/, so that the other tests keep the real one.
const root = path.resolve(path.dirname(cliMain), '..', '..');
let copy: string;
let home: string;

beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), 'mcp-drift-code-cache-'));
  cpSync(path.join(root, 'dist'), path.join(copy, 'dist'), { recursive: true });
  for (const entry of ['node_modules', 'package.json', 'drizzle']) {
    symlinkSync(path.join(root, entry), path.join(copy, entry));
  }
  home = path.join(copy, 'home');
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const cache = () => path.join(copy, 'dist', 'cli', 'command-server.cjs.cache');

function cli(...args: string[]) {
  return spawnSync(process.execPath, [path.join(copy, 'dist', 'cli', 'main.js'), ...args], {
    cwd: copy,
    env: { PATH: process.env.PATH ?? '', MCP_DRIFT_HOME: home },
    encoding: 'utf8',
  });
}

describe('the code cache of a command file', () => {
  it('is there after a build', () => {
    expect(existsSync(cache())).toBe(true);
    expect(readFileSync(cache()).length).toBeGreaterThan(10_000);
  });

  it('runs the command as without it', () => {
    const added = cli('server', 'add', 'web', '--url', 'http://127.0.0.1:9/mcp');
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    const listed = cli('server', 'list');
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(/^web\s+http\s/m);
  });

  it('is ignored when it does not fit the file, and when it is missing', () => {
    writeFileSync(cache(), Buffer.alloc(64 * 1024, 7));
    const damaged = cli('server', 'list', '--json');
    expect(damaged.stderr).toBe('');
    expect(JSON.parse(damaged.stdout)).toMatchObject([{ name: 'web' }]);
    rmSync(cache());
    const missing = cli('server', 'list', '--json');
    expect(missing.stderr).toBe('');
    expect(JSON.parse(missing.stdout)).toMatchObject([{ name: 'web' }]);
  });
});
