import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransport1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../support/database.js';
import {
  awaitRefusal,
  byName,
  callTool,
  directClient,
  gatewayParams,
  listed,
  startGatewaySetup,
  stdioHost,
  type GatewaySetup,
  type Tool,
} from '../support/gateway.js';
import { controlFixture } from '../support/mcp-fixtures.js';
import { waitUntil } from '../support/wait.js';

/*
 * `mcp-drift gateway NAME` as a real child process: an SDK client of each line is the host,
 * the sdk2 fixture over Streamable HTTP is the upstream and changes at run time.
 */

let setup: GatewaySetup;

/** Each test's hosts end with it, so that their gateways stop polling the database. */
afterEach(async () => {
  await setup.closeHosts();
});

beforeAll(async () => {
  setup = await startGatewaySetup();
}, 120_000);

afterAll(async () => {
  await setup?.close();
});

describe(`gateway over stdio (${backend})`, () => {
  it('lists exactly the approved definitions and returns upstream results byte for byte (2.x host, both eras; 1.x host)', async () => {
    const reference = await directClient(setup);
    const approved = await listed(reference);
    const upstreamCall = await callTool(reference, 'list_files', { folder: '/tmp' });
    for (const era of ['legacy', 'auto'] as const) {
      const client = await stdioHost(setup, era);
      // The approved listing is stored in canonical (name) order.
      expect(byName(await listed(client))).toEqual(byName(approved));
      const called = await callTool(client, 'list_files', { folder: '/tmp' });
      expect(JSON.stringify(called)).toBe(JSON.stringify(upstreamCall));
    }
    const client1 = new Client1({ name: 'test-host-1x', version: '1.0.0' });
    await client1.connect(new StdioClientTransport1(gatewayParams(setup)));
    setup.hosts.push(client1);
    const listed1 = await client1.listTools();
    expect(listed1.tools.map((t) => t.name).sort()).toEqual(byName(approved).map((t) => t.name));
    const called1 = await client1.callTool({ name: 'list_files', arguments: { folder: '/tmp' } });
    expect(called1).toEqual(upstreamCall);
  }, 120_000);

  it('keeps serving the approved annotations of a tool re-declared read-only, and refuses its calls (pin)', async () => {
    const client = await stdioHost(setup, 'auto');
    const before = await listed(client);
    await controlFixture(setup.upstream.baseUrl, { relax: true, notify: false });
    const refusal = await awaitRefusal(client, 'purge_tenant', { tenant: 't' });
    expect(refusal.code).toBe(-32010);
    expect(refusal.message).toMatch(/purge_tenant changed .* awaits approval/);
    expect(await listed(client)).toEqual(before);
    // Unchanged tools are still forwarded.
    const called = await callTool(client, 'list_files', { folder: '/x' });
    expect(called['content']).toEqual([{ type: 'text', text: '/x is empty' }]);
    await controlFixture(setup.upstream.baseUrl, { relax: false, notify: false });
  }, 120_000);

  it('withholds the relaxed tool under quarantine and tells the host with list_changed', async () => {
    const client = await stdioHost(setup, 'legacy', { GATEWAY_POLICY: 'quarantine' });
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    const names = (tools: Tool[]) => tools.map((t) => t.name);
    expect(names(await listed(client))).toContain('purge_tenant');
    await controlFixture(setup.upstream.baseUrl, { relax: true, notify: true });
    await waitUntil('list_changed from the gateway', () => changed > 0);
    expect(names(await listed(client))).not.toContain('purge_tenant');
    await controlFixture(setup.upstream.baseUrl, { relax: false, notify: false });
  }, 120_000);
});
