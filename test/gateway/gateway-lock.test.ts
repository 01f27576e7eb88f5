import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, cliMain, runCli, type CliResult } from '../support/cli.js';
import { awaitRefusal, callTool, loose, type Tool } from '../support/gateway.js';
import { controlFixture, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { waitUntil } from '../support/wait.js';

/*
 * `mcp-drift gateway NAME --lock FILE` in a project folder with no database anywhere
 * (MCP_DRIFT_HOME is never made): the lockfile's definitions are served, changed tools
 * refused, and `lock --update` reaches the running gateway (docs/gateway.md).
 */

let dir: string;
let upstream: HttpFixture;
const hosts: Client[] = [];
const home = () => path.join(dir, 'never-created');
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { cwd: dir, env: { MCP_DRIFT_HOME: home() } });

async function host(era: 'legacy' | 'auto'): Promise<Client> {
  const client = new Client(
    { name: 'test-host', version: '1.0.0' },
    { versionNegotiation: { mode: era } },
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cliMain, 'gateway', 'tenants', '--lock', 'mcp-drift.lock.json'],
      cwd: dir,
      env: childEnv({ MCP_DRIFT_HOME: home() }) as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  hosts.push(client);
  return client;
}

function lockedTools(): Tool[] {
  const lock = JSON.parse(readFileSync(path.join(dir, 'mcp-drift.lock.json'), 'utf8')) as {
    servers: Record<string, { tools: Tool[] }>;
  };
  return lock.servers['tenants']!.tools;
}

function callPurge(client: Client) {
  return callTool(client, 'purge_tenant', { tenant: 't' });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-gateway-lock-'));
  upstream = await startHttpFixture('sdk2-server.mjs');
  writeFileSync(
    path.join(dir, '.mcp.json'),
    JSON.stringify({ mcpServers: { tenants: { type: 'http', url: `${upstream.baseUrl}/mcp` } } }),
  );
  const locked = await cli('lock', '--config', '.mcp.json');
  expect(locked.code, locked.stderr).toBe(0);
}, 60_000);

afterEach(async () => {
  await Promise.allSettled(hosts.splice(0).map((h) => h.close()));
});

afterAll(async () => {
  await upstream?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gateway --lock, without a database', () => {
  it("serves the lockfile's definitions, refuses a changed tool, and follows lock --update", async () => {
    const locked = lockedTools();
    for (const era of ['legacy', 'auto'] as const) {
      const client = await host(era);
      const listed = await client.request({ method: 'tools/list', params: {} }, loose);
      expect(listed['tools']).toEqual(locked);
    }
    const client = hosts[hosts.length - 1]!;
    const called = await callTool(client, 'list_files', { folder: '/x' });
    expect(called['content']).toEqual([{ type: 'text', text: '/x is empty' }]);

    await controlFixture(upstream.baseUrl, { relax: true, notify: false });
    const refusal = await awaitRefusal(client, 'purge_tenant', { tenant: 't' });
    expect(refusal.code).toBe(-32010);
    expect(refusal.message).toMatch(
      /purge_tenant changed .* awaits approval: a change not yet recorded; mcp-drift lock --update/,
    );
    const during = await client.request({ method: 'tools/list', params: {} }, loose);
    expect(during['tools']).toEqual(locked);

    // Accepting the change in the lockfile reaches the running gateway: no restart.
    const updated = await cli('lock', '--config', '.mcp.json', '--update');
    expect(updated.code, updated.stderr).toBe(0);
    let result: Record<string, unknown> | null = null;
    await waitUntil('the gateway to forward purge_tenant again', async () => {
      result = await callPurge(client).catch(() => null);
      return result !== null;
    });
    expect(result!['content']).toEqual([{ type: 'text', text: 'purged t' }]);
    const after = await client.request({ method: 'tools/list', params: {} }, loose);
    expect((after['tools'] as Tool[]).find((t) => t.name === 'purge_tenant')?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(existsSync(home())).toBe(false);
  }, 120_000);
});
