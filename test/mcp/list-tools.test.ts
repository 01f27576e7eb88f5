import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { isDriftError } from '../../src/errors.js';
import { listAllTools, type ListAllToolsOptions } from '../../src/mcp/index.js';

// listAllTools against a scripted in-process server: every page is exactly what the test
// says, which no SDK server would send for some of these cases.

type Page = Record<string, unknown>;

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function clientFor(pages: Record<string, Page>): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message: JSONRPCMessage) => {
    if (!('id' in message) || !('method' in message)) return;
    const reply = (result: unknown) =>
      void serverSide.send({ jsonrpc: '2.0', id: message.id, result } as JSONRPCMessage);
    if (message.method === 'initialize') {
      reply({
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'scripted', version: '1.0.0' },
      });
    } else if (message.method === 'tools/list') {
      const cursor = (message.params as { cursor?: string } | undefined)?.cursor ?? 'first';
      reply(pages[cursor] ?? { tools: [] });
    }
  };
  await serverSide.start();
  const client = new Client({ name: 'test', version: '0' });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  inputSchema: { type: 'object' },
  ...extra,
});

async function listingError(client: Client, options: ListAllToolsOptions = {}): Promise<string> {
  const error: unknown = await listAllTools(client, {
    failure: { target: 'server "s"' },
    ...options,
  }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isDriftError(error)) throw new Error(`expected a DriftError, got ${String(error)}`);
  expect(error.code).toBe('REMOTE_PROTOCOL');
  return error.message;
}

describe('listAllTools', () => {
  it('keeps every key the server sent, and the first page cache hints', async () => {
    const client = await clientFor({
      first: {
        tools: [
          tool('a', { annotations: { readOnlyHint: true, vendorHint: [1, 2] }, x_extra: 'kept' }),
        ],
        nextCursor: 'p2',
        ttlMs: 5000,
        cacheScope: 'public',
        _meta: { note: 'ignored' },
      },
      p2: { tools: [tool('b')], ttlMs: 0, cacheScope: 'private', nextCursor: '' },
    });
    const listing = await listAllTools(client);
    expect(listing).toEqual({
      tools: [
        tool('a', { annotations: { readOnlyHint: true, vendorHint: [1, 2] }, x_extra: 'kept' }),
        tool('b'),
      ],
      pages: 2,
      bytes:
        JSON.stringify(
          tool('a', { annotations: { readOnlyHint: true, vendorHint: [1, 2] }, x_extra: 'kept' }),
        ).length + JSON.stringify(tool('b')).length,
      ttlMs: 5000,
      cacheScope: 'public',
    });
  });

  it('counts tools across pages against the tool cap', async () => {
    const client = await clientFor({
      first: { tools: [tool('a'), tool('b')], nextCursor: 'p2' },
      p2: { tools: [tool('c'), tool('d')] },
    });
    expect(await listingError(client, { caps: { maxTools: 3 } })).toBe(
      'server "s": the listing has more than 3 tools (4 by page 2; tool cap maxTools=3)',
    );
  });

  it('counts bytes across pages against the size cap', async () => {
    const client = await clientFor({
      first: { tools: [tool('a', { description: 'x'.repeat(60) })], nextCursor: 'p2' },
      p2: { tools: [tool('b', { description: 'y'.repeat(60) })] },
    });
    const bytes = JSON.stringify(tool('a', { description: 'x'.repeat(60) })).length * 2;
    expect(await listingError(client, { caps: { maxBytes: 150 } })).toBe(
      `server "s": the listing is larger than 150 bytes (${bytes} bytes by page 2; size cap maxBytes=150)`,
    );
  });

  it('refuses a cursor that is not a string', async () => {
    const client = await clientFor({ first: { tools: [tool('a')], nextCursor: 2 } });
    expect(await listingError(client)).toBe(
      'server "s": page 1 of tools/list has a nextCursor that is not a string',
    );
  });

  it('refuses a cursor that comes back after other pages', async () => {
    const client = await clientFor({
      first: { tools: [tool('a')], nextCursor: 'p2' },
      p2: { tools: [tool('b')], nextCursor: 'p3' },
      p3: { tools: [tool('c')], nextCursor: 'p2' },
    });
    expect(await listingError(client)).toBe(
      'server "s": page 3 of tools/list repeats an earlier cursor "p2"; the listing would never end',
    );
  });

  it('refuses a tool that is not an object, and duplicates across pages', async () => {
    const notObject = await clientFor({ first: { tools: [tool('a'), 'b'] } });
    expect(await listingError(notObject)).toBe(
      'server "s" sent an invalid listing: the tools list: the tool at index 1 must be an object, but it is a string ("b")',
    );
    const twice = await clientFor({
      first: { tools: [tool('a')], nextCursor: 'p2' },
      p2: { tools: [tool('a')] },
    });
    expect(await listingError(twice)).toBe(
      'server "s" sent an invalid listing: the tools list: two tools are named "a" (at index 0 and 1); tool names must be unique',
    );
  });

  it('accepts an empty listing that the server really sent', async () => {
    const client = await clientFor({ first: { tools: [] } });
    expect(await listAllTools(client)).toEqual({
      tools: [],
      pages: 1,
      bytes: 0,
      ttlMs: null,
      cacheScope: null,
    });
  });
});
