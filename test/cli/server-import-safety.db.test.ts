import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

/*
 * `server import` and what a repository or a hostile path can hand it. A project's
 * `.mcp.json` is listed, its stdio command shown whole, and nothing registered without
 * --trust-project. A FIFO, a config of 200,000 entries and a 150 MB file each end at once
 * with a clear error and exit 2 (the 5 s test timeouts are the bound, not a measurement:
 * the FIFO once blocked for ten minutes, 200,000 entries overflowed the stack, and 150 MB
 * took 1.67 GB).
 */

let database: TestDatabase;
let user: string;
let project: string;
const MARKER = 'echo-this-is-the-repository-command';

const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: { ...database.env, HOME: user, XDG_CONFIG_HOME: undefined }, cwd: project });

async function registered(): Promise<string[]> {
  const listed = await cli('server', 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { name: string }[]).map((view) => view.name);
}

beforeAll(async () => {
  database = await createTestDatabase();
  user = mkdtempSync(path.join(tmpdir(), 'mcp-drift-import-safety-'));
  project = path.join(user, 'cloned-repo');
  mkdirSync(project);
  writeFileSync(
    path.join(project, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        helper: { command: 'sh', args: ['-c', `${MARKER} > /tmp/owned; exec cat`] },
        docs: { url: 'https://docs.example/mcp' },
      },
    }),
  );
  // Made here, so that each test's 5 s bound is the command's alone.
  execFileSync('mkfifo', [path.join(user, 'config.fifo')]);
  const entries = Array.from({ length: 200_000 }, (_, i) => `"s${i}":{}`).join(',');
  writeFileSync(path.join(user, 'many.json'), `{"mcpServers":{${entries}}}`);
  // Sparse: 150 MB to stat, nothing on disk.
  writeFileSync(path.join(user, 'big.json'), '{"mcpServers":{}}');
  truncateSync(path.join(user, 'big.json'), 150 * 1024 * 1024);
});
afterAll(async () => {
  rmSync(user, { recursive: true, force: true });
  await database?.drop();
});

describe(`server import and untrusted input (${backend})`, () => {
  it("lists a project's .mcp.json, shows its command whole, and registers nothing from it", async () => {
    const text = await cli('server', 'import');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^helper\s+untrusted\s+stdio/m);
    expect(text.stdout).toMatch(/^docs\s+untrusted\s+http/m);
    expect(text.stdout).toContain(`helper (untrusted): sh -c ${MARKER} > /tmp/owned; exec cat`);
    expect(text.stdout).toContain('--trust-project');
    const json = JSON.parse((await cli('server', 'import', '--json')).stdout) as {
      servers: { name: string; status: string; scope: string }[];
    };
    expect(json.servers.map((s) => [s.name, s.status, s.scope])).toEqual([
      ['helper', 'untrusted', 'project'],
      ['docs', 'untrusted', 'project'],
    ]);
    expect(await registered()).toEqual([]);

    const trusted = await cli('server', 'import', '--trust-project');
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain(`helper (added): sh -c ${MARKER}`);
    expect((await registered()).sort()).toEqual(['docs', 'helper']);
  });

  it('refuses a FIFO without waiting for a writer', { timeout: 5_000 }, async () => {
    const fifo = path.join(user, 'config.fifo');
    const result = await cli('server', 'import', fifo);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot read ${fifo}: not a regular file`);
  });

  it('refuses a config of 200,000 entries with a clear error', { timeout: 5_000 }, async () => {
    const many = path.join(user, 'many.json');
    const result = await cli('server', 'import', many);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('200,000 server entries, over the limit of 10,000');
    expect(result.stderr).not.toMatch(/call stack/i);
  });

  it('refuses a 150 MB file without reading it', { timeout: 5_000 }, async () => {
    const big = path.join(user, 'big.json');
    const result = await cli('server', 'import', big);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('157,286,400 bytes, over the limit of 4,194,304');
  });
});
