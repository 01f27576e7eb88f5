import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startProtectedServer } from '../support/oauth-mcp-server.js';

/*
 * `lock` and `verify` in CI against a server behind OAuth: a fresh folder, a host config
 * whose entry names the client and a ${VAR} for its secret, the secret in the environment
 * only, no database (MCP_DRIFT_HOME is never made).
 */

let dir: string;
let protectedServer: Awaited<ReturnType<typeof startProtectedServer>>;
const home = () => path.join(dir, 'never-created');
const cli = (...args: string[]) =>
  runCli(args, {
    cwd: dir,
    env: {
      MCP_DRIFT_HOME: home(),
      CI_TRACKER_SECRET: protectedServer.provider.machineClient.clientSecret,
    },
  });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-oauth-lock-'));
  protectedServer = await startProtectedServer({ accessTokenTtl: 60 });
  writeFileSync(
    path.join(dir, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        tracker: {
          type: 'http',
          url: protectedServer.mcp.url,
          oauth: {
            grant: 'client_credentials',
            clientId: protectedServer.provider.machineClient.clientId,
            clientSecret: '${CI_TRACKER_SECRET}',
            scopes: ['mcp'],
          },
        },
      },
    }),
  );
});
afterAll(async () => {
  await protectedServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('lock and verify against a server behind OAuth', () => {
  it('locks with client credentials from the environment, then verifies', async () => {
    const locked = await cli('lock', '--config', '.mcp.json');
    expect(locked.code, locked.stderr).toBe(0);
    expect(locked.stdout).toMatch(/^tracker +locked +2 /m);
    const lock = readFileSync(path.join(dir, 'mcp-drift.lock.json'), 'utf8');
    expect(lock).toContain('close_ticket');

    const verified = await cli('verify', '--fail-on', 'high');
    expect(verified.code, verified.stderr).toBe(0);
    expect(existsSync(home())).toBe(false);
    expect(protectedServer.mcp.counts.unauthorized).toBeGreaterThan(0);

    const secret = protectedServer.provider.machineClient.clientSecret;
    for (const text of [lock, locked.stdout, locked.stderr, verified.stdout, verified.stderr]) {
      expect(text).not.toContain(secret);
      for (const token of protectedServer.provider.accessTokens) expect(text).not.toContain(token);
    }
  });

  it('names the variable when the secret is not set', async () => {
    const result = await runCli(['verify'], { cwd: dir, env: { MCP_DRIFT_HOME: home() } });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('CI_TRACKER_SECRET');
  });
});
