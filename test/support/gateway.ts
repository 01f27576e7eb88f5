import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect } from 'vitest';
import { childEnv, cliMain, runCli, type CliResult } from './cli.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { startHttpFixture, type HttpFixture } from './mcp-fixtures.js';
import { waitUntil } from './wait.js';

/*
 * What the gateway tests share: a database with the sdk2 fixture registered as `up` over
 * Streamable HTTP and checked (so its listing is the approved baseline), SDK clients as
 * hosts, and the loose result schema that keeps every key a server sends.
 */

/** A result schema that takes a result as it is, so that byte-for-byte comparisons hold. */
export const loose = {
  '~standard': {
    version: 1 as const,
    vendor: 'test',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
    types: undefined as unknown as { input: unknown; output: Record<string, unknown> },
  },
};

export interface Tool {
  name: string;
  description?: string;
  annotations?: Record<string, unknown>;
}

export type Era = 'legacy' | 'auto';

export interface GatewaySetup {
  database: TestDatabase;
  upstream: HttpFixture;
  /** `mcp-drift ARGS…` on this database. */
  cli(...args: string[]): Promise<CliResult>;
  /** Closed after each test (`closeHosts`) and at the end. */
  hosts: Array<{ close(): Promise<void> }>;
  closeHosts(): Promise<void>;
  /** Records the change and approves the latest listing, as an operator would from the CLI. */
  checkAndApprove(): Promise<void>;
  close(): Promise<void>;
}

/** The registered server's name in every gateway test. */
export const UPSTREAM = 'up';

export async function startGatewaySetup(): Promise<GatewaySetup> {
  const database = await createTestDatabase();
  const upstream = await startHttpFixture('sdk2-server.mjs');
  const hosts: GatewaySetup['hosts'] = [];
  const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });
  const added = await cli('server', 'add', UPSTREAM, '--url', `${upstream.baseUrl}/mcp`);
  expect(added.code, added.stderr).toBe(0);
  const checked = await cli('check', UPSTREAM);
  expect(checked.code, checked.stderr).toBe(0);
  const closeHosts = async () => {
    await Promise.allSettled(hosts.splice(0).map((h) => h.close()));
  };
  return {
    database,
    upstream,
    cli,
    hosts,
    closeHosts,
    async checkAndApprove() {
      const check = await cli('check', UPSTREAM);
      expect(check.code, check.stderr).not.toBe(2);
      const approved = await cli('baseline', 'approve', UPSTREAM, '--yes');
      expect(approved.code, approved.stderr).toBe(0);
    },
    async close() {
      await closeHosts();
      await upstream.stop();
      await database.drop();
    },
  };
}

/** How a host starts `mcp-drift gateway up` over stdio on the set-up's database. */
export function gatewayParams(setup: GatewaySetup, env: Record<string, string> = {}) {
  return {
    command: process.execPath,
    args: [cliMain, 'gateway', UPSTREAM],
    cwd: setup.database.dir,
    env: childEnv({ ...setup.database.env, ...env }) as Record<string, string>,
    stderr: 'pipe' as const,
  };
}

/** A 2.x host in `era` behind a stdio gateway; kept in `setup.hosts`. */
export async function stdioHost(
  setup: GatewaySetup,
  era: Era,
  env: Record<string, string> = {},
): Promise<Client> {
  const client = new Client(
    { name: 'test-host', version: '1.0.0' },
    { versionNegotiation: { mode: era } },
  );
  await client.connect(new StdioClientTransport(gatewayParams(setup, env)));
  setup.hosts.push(client);
  return client;
}

/** A 2026 connection listens for tool changes, as a host would (the SDK does not). */
export async function listenWhenModern(client: Client): Promise<void> {
  if (!client.getNegotiatedProtocolVersion()?.startsWith('2025')) {
    await client.listen({ toolsListChanged: true });
  }
}

/** The upstream as a host would see it without the gateway, in the era the gateway uses. */
export async function directClient(setup: GatewaySetup): Promise<Client> {
  const client = new Client(
    { name: 'direct', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${setup.upstream.baseUrl}/mcp`)));
  setup.hosts.push(client);
  return client;
}

export async function listed(client: Client): Promise<Tool[]> {
  const result = await client.request({ method: 'tools/list', params: {} }, loose);
  return result['tools'] as Tool[];
}

/** What the upstream lists now. */
export async function upstreamTools(setup: GatewaySetup): Promise<Tool[]> {
  const client = await directClient(setup);
  try {
    return await listed(client);
  } finally {
    await client.close();
  }
}

export function named(tools: Tool[], name: string): Tool | undefined {
  return tools.find((tool) => tool.name === name);
}

export function byName<T extends { name: string }>(tools: readonly T[]): T[] {
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : 1));
}

export function callTool(client: Client, name: string, args: Record<string, unknown>) {
  return client.request({ method: 'tools/call', params: { name, arguments: args } }, loose);
}

/** Calls `tool` until the gateway refuses it (it decides on the next poll), and returns the error. */
export async function awaitRefusal(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
): Promise<ProtocolError> {
  let refusal: unknown = null;
  await waitUntil(`the gateway to refuse ${tool}`, async () => {
    try {
      await callTool(client, tool, args);
      return false;
    } catch (error) {
      refusal = error;
      return true;
    }
  });
  expect(refusal).toBeInstanceOf(ProtocolError);
  return refusal as ProtocolError;
}

/** A 2.x host in `era` behind serve's HTTP gateway at `url`, with the gateway token. */
export async function httpHost(
  setup: GatewaySetup,
  url: URL,
  token: string,
  era: Era,
): Promise<Client> {
  const client = new Client(
    { name: 'test-host', version: '1.0.0' },
    { versionNegotiation: { mode: era } },
  );
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  setup.hosts.push(client);
  await listenWhenModern(client);
  return client;
}
