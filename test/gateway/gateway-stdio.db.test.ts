import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransport1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, cliMain, runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { controlFixture, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { waitUntil } from '../support/wait.js';

/*
 * `mcp-drift gateway NAME` as a real child process: an SDK client of each line is the host,
 * the sdk2 fixture over Streamable HTTP is the upstream and changes at run time.
 */

let database: TestDatabase;
let upstream: HttpFixture;
const hosts: Array<{ close(): Promise<void> }> = [];

const loose = {
  '~standard': {
    version: 1 as const,
    vendor: 'test',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
    types: undefined as unknown as { input: unknown; output: Record<string, unknown> },
  },
};

function gatewayParams(env: Record<string, string> = {}) {
  return {
    command: process.execPath,
    args: [cliMain, 'gateway', 'up'],
    cwd: database.dir,
    env: childEnv({ ...database.env, ...env }) as Record<string, string>,
    stderr: 'pipe' as const,
  };
}

async function host2(era: 'legacy' | 'auto', env: Record<string, string> = {}) {
  const client = new Client(
    { name: 'test-host', version: '1.0.0' },
    { versionNegotiation: { mode: era } },
  );
  await client.connect(new StdioClientTransport(gatewayParams(env)));
  hosts.push(client);
  return client;
}

/** The upstream as a host would see it without the gateway. */
async function direct() {
  // In the era the gateway's own session negotiates, so that the results are the same bytes.
  const client = new Client(
    { name: 'direct', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  await client.connect(new StreamableHTTPClientTransport(new URL(`${upstream.baseUrl}/mcp`)));
  hosts.push(client);
  return client;
}

function byName(tools: unknown): Array<{ name: string }> {
  return [...(tools as Array<{ name: string }>)].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Each test's hosts end with it, so that their gateways stop polling the database. */
afterEach(async () => {
  await Promise.allSettled(hosts.splice(0).map((h) => h.close()));
});

beforeAll(async () => {
  database = await createTestDatabase();
  upstream = await startHttpFixture('sdk2-server.mjs');
  const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });
  const added = await cli('server', 'add', 'up', '--url', `${upstream.baseUrl}/mcp`);
  expect(added.code, added.stderr).toBe(0);
  const checked = await cli('check', 'up');
  expect(checked.code, checked.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(hosts.map((h) => h.close()));
  await upstream?.stop();
  await database?.drop();
});

describe(`gateway over stdio (${backend})`, () => {
  it('lists exactly the approved definitions and returns upstream results byte for byte (2.x host, both eras; 1.x host)', async () => {
    const reference = await direct();
    const approved = await reference.request({ method: 'tools/list', params: {} }, loose);
    const upstreamCall = await reference.request(
      { method: 'tools/call', params: { name: 'list_files', arguments: { folder: '/tmp' } } },
      loose,
    );
    for (const era of ['legacy', 'auto'] as const) {
      const client = await host2(era);
      const listed = await client.request({ method: 'tools/list', params: {} }, loose);
      // The approved listing is stored in canonical (name) order.
      expect(byName(listed['tools'])).toEqual(byName(approved['tools']));
      const called = await client.request(
        { method: 'tools/call', params: { name: 'list_files', arguments: { folder: '/tmp' } } },
        loose,
      );
      expect(JSON.stringify(called)).toBe(JSON.stringify(upstreamCall));
    }
    const client1 = new Client1({ name: 'test-host-1x', version: '1.0.0' });
    await client1.connect(new StdioClientTransport1(gatewayParams()));
    hosts.push(client1);
    const listed1 = await client1.listTools();
    expect(listed1.tools.map((t) => t.name).sort()).toEqual(
      byName(approved['tools']).map((t) => t.name),
    );
    const called1 = await client1.callTool({ name: 'list_files', arguments: { folder: '/tmp' } });
    expect(called1).toEqual(upstreamCall);
  }, 120_000);

  it('keeps serving the approved annotations of a tool re-declared read-only, and refuses its calls (pin)', async () => {
    const client = await host2('auto');
    const before = await client.request({ method: 'tools/list', params: {} }, loose);
    await controlFixture(upstream.baseUrl, { relax: true, notify: false });
    let refusal: unknown = null;
    await waitUntil('the gateway to refuse purge_tenant', async () => {
      try {
        await client.request(
          { method: 'tools/call', params: { name: 'purge_tenant', arguments: { tenant: 't' } } },
          loose,
        );
        return false;
      } catch (error) {
        refusal = error;
        return true;
      }
    });
    expect(refusal).toBeInstanceOf(ProtocolError);
    expect((refusal as ProtocolError).code).toBe(-32010);
    expect((refusal as ProtocolError).message).toMatch(/purge_tenant changed .* awaits approval/);
    const after = await client.request({ method: 'tools/list', params: {} }, loose);
    expect(after['tools']).toEqual(before['tools']);
    // Unchanged tools are still forwarded.
    const called = await client.request(
      { method: 'tools/call', params: { name: 'list_files', arguments: { folder: '/x' } } },
      loose,
    );
    expect(called['content']).toEqual([{ type: 'text', text: '/x is empty' }]);
    await controlFixture(upstream.baseUrl, { relax: false, notify: false });
  }, 120_000);

  it('withholds the relaxed tool under quarantine and tells the host with list_changed', async () => {
    const client = await host2('legacy', { GATEWAY_POLICY: 'quarantine' });
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    const before = await client.request({ method: 'tools/list', params: {} }, loose);
    expect((before['tools'] as Array<{ name: string }>).map((t) => t.name)).toContain(
      'purge_tenant',
    );
    await controlFixture(upstream.baseUrl, { relax: true, notify: true });
    await waitUntil('list_changed from the gateway', () => changed > 0);
    const after = await client.request({ method: 'tools/list', params: {} }, loose);
    expect((after['tools'] as Array<{ name: string }>).map((t) => t.name)).not.toContain(
      'purge_tenant',
    );
    await controlFixture(upstream.baseUrl, { relax: false, notify: false });
  }, 120_000);
});
