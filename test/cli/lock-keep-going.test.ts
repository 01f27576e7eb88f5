import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMain, runCli, type CliResult } from '../support/cli.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';

/*
 * `lock` with one server that answers and one that does not: all or nothing by default,
 * `--keep-going` writes what answered and still fails. On a terminal (a pseudo-terminal
 * from `script`), lock and verify print a line per server as it finishes; piped, nothing but
 * the result.
 */

let dir: string;
let notes: HttpFixture;
const lockfile = () => path.join(dir, 'mcp-drift.lock.json');
const env = () => ({ MCP_DRIFT_HOME: path.join(dir, 'never-created') });
const cli = (...args: string[]): Promise<CliResult> => runCli(args, { cwd: dir, env: env() });

/** The command run in a pseudo-terminal: what a person at a terminal sees, stdout and stderr. */
async function inTerminal(args: string[]): Promise<string> {
  const command = [process.execPath, cliMain, ...args].map((word) => `'${word}'`).join(' ');
  const result = await promisify(execFile)('script', ['-qfec', command, '/dev/null'], {
    cwd: dir,
    env: { ...process.env, ...env(), TERM: 'xterm' },
  }).catch((error: { stdout: string }) => error);
  return result.stdout;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-keep-going-'));
  notes = await startHttpFixture('sdk1-server.mjs');
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  writeFileSync(
    path.join(dir, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        notes: { type: 'http', url: `${notes.baseUrl}/mcp` },
        gone: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      },
    }),
  );
});
afterAll(async () => {
  await notes?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('lock when a server does not answer', () => {
  it('writes nothing by default, and names the server that failed', async () => {
    const locked = await cli('lock', '--config', '.mcp.json');
    expect(locked.code).toBe(4);
    expect(locked.stderr).toMatch(/nothing locked: gone: /);
    expect(existsSync(lockfile())).toBe(false);
  });

  it('with --keep-going writes the servers that answered and still exits non-zero', async () => {
    const locked = await cli('lock', '--config', '.mcp.json', '--keep-going', '--json');
    expect(locked.code).toBe(4);
    const report = JSON.parse(locked.stdout) as {
      written: boolean;
      servers: { name: string; status: string; error: { reason: string } | null }[];
    };
    expect(report.written).toBe(true);
    expect(report.servers.map((server) => [server.name, server.status])).toEqual([
      ['gone', 'failed'],
      ['notes', 'locked'],
    ]);
    expect(report.servers[0]!.error!.reason.length).toBeGreaterThan(0);
    expect(locked.stderr).toMatch(
      /not locked: gone \(.*\); the servers that answered were written/,
    );
    const lock = JSON.parse(readFileSync(lockfile(), 'utf8')) as {
      servers: Record<string, unknown>;
    };
    expect(Object.keys(lock.servers)).toEqual(['notes']);
  });

  it('shows a line per server as it finishes on a terminal, and none when piped', async () => {
    const seen = await inTerminal(['lock', '--config', '.mcp.json', '--keep-going']);
    expect(seen).toMatch(/✓ notes: \d+ tools, \d+ ms/);
    expect(seen).toMatch(/✗ gone: .+ \(\d+ ms\)/);
    const verified = await inTerminal(['verify', '--config', '.mcp.json']);
    expect(verified).toMatch(/✓ notes: \d+ tools/);

    const piped = await cli('lock', '--config', '.mcp.json', '--keep-going');
    expect(piped.stderr).not.toMatch(/[✓✗⠋]/);
    expect(piped.stdout).toMatch(/^gone +failed/m);
  });
});
