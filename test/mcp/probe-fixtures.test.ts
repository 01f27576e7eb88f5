import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  probe,
  type ProbeOptions,
  type ProbeResult,
  type ProbeSuccess,
} from '../../src/mcp/index.js';
import type { RawTool } from '../../src/listings/canonical.js';
import {
  isAlive,
  pidFile,
  startHttpFixture,
  stdioFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';

const options: ProbeOptions = { env: {}, timeoutMs: 10_000, closeGraceMs: 500 };

function expectOk(result: ProbeResult): ProbeSuccess {
  if (!result.ok) throw new Error(`probe failed: ${result.code} ${result.reason}`);
  return result;
}

function annotationsByName(tools: RawTool[]): Record<string, unknown> {
  return Object.fromEntries(tools.map((tool) => [tool.name, tool['annotations']]));
}

function jsonBytes(tools: RawTool[]): number {
  return tools.reduce((sum, tool) => sum + Buffer.byteLength(JSON.stringify(tool)), 0);
}

const SDK1_ANNOTATIONS = {
  search_notes: { readOnlyHint: true, openWorldHint: false },
  delete_note: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  // Not in the spec: the SDK's own listTools() would drop it.
  send_email: { destructiveHint: false, openWorldHint: true, vendorHint: 'mail-v2' },
  relax_delete_note: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
};

const SDK2_ANNOTATIONS = {
  list_files: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  purge_tenant: { readOnlyHint: false, destructiveHint: true },
  post_message: { destructiveHint: false, openWorldHint: true, vendorHint: 'chat-v1' },
  relax_purge_tenant: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
};

function expectSdk1(result: ProbeResult, protocolVersion = '2025-11-25'): ProbeSuccess {
  const ok = expectOk(result);
  expect(ok.tools.map((tool) => tool.name)).toEqual(Object.keys(SDK1_ANNOTATIONS));
  expect(annotationsByName(ok.tools)).toEqual(SDK1_ANNOTATIONS);
  expect(ok.tools[0]).toMatchObject({
    name: 'search_notes',
    title: 'Search notes',
    description: 'Finds notes whose text contains the query.',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  });
  expect(ok).toMatchObject({
    pages: 1,
    era: '2025',
    protocolVersion,
    serverInfo: { name: 'fixture-sdk1', version: '1.4.2' },
    capabilities: { tools: { listChanged: true } },
    ttlMs: null,
    cacheScope: null,
  });
  expect(ok.bytes).toBe(jsonBytes(ok.tools));
  return ok;
}

function expectSdk2(result: ProbeResult, era: '2025' | '2026'): ProbeSuccess {
  const ok = expectOk(result);
  expect(ok.tools.map((tool) => tool.name)).toEqual(Object.keys(SDK2_ANNOTATIONS));
  expect(annotationsByName(ok.tools)).toEqual(SDK2_ANNOTATIONS);
  expect(ok).toMatchObject({
    pages: 1,
    era,
    protocolVersion: era === '2026' ? '2026-07-28' : '2025-11-25',
    serverInfo: { name: 'fixture-sdk2', version: '2.0.1' },
    capabilities: { tools: { listChanged: true } },
  });
  return ok;
}

describe('probe: a 1.x SDK McpServer (2025 era)', () => {
  let http: HttpFixture;
  beforeAll(async () => {
    http = await startHttpFixture('sdk1-server.mjs');
  });
  afterAll(() => http.stop());

  it('lists over stdio, keeping annotations.vendorHint, and spawns the server once', async () => {
    const pids = pidFile();
    const result = await probe(stdioFixture('sdk1-server.mjs', [], { env: pids.env }), options);
    expectSdk1(result);
    expect(pids.pids()).toHaveLength(1);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('connects in the 2025 era directly when the era is known', async () => {
    const result = await probe(stdioFixture('sdk1-server.mjs', [], { era: '2025' }), options);
    expectSdk1(result);
  });

  it('recovers from a stale stored 2026 era and reports 2025', async () => {
    const pids = pidFile();
    const spec = stdioFixture('sdk1-server.mjs', [], { era: '2026', env: pids.env });
    expectSdk1(await probe(spec, options));
    expect(pids.pids()).toHaveLength(2);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('lists over Streamable HTTP', async () => {
    const spec = { name: 'sdk1-http', transport: 'http' as const, url: `${http.baseUrl}/mcp` };
    expectSdk1(await probe(spec, options));
  });

  it('lists over legacy HTTP+SSE', async () => {
    const spec = { name: 'sdk1-sse', transport: 'sse' as const, url: `${http.baseUrl}/sse` };
    expectSdk1(await probe(spec, options));
  });

  it('passes env to a stdio child, resolving ${VAR} from the given map only', async () => {
    const spec = stdioFixture('sdk1-server.mjs', [], {
      env: { FIXTURE_SERVER_VERSION: '${RELEASE}-${BUILD}' },
    });
    const result = expectOk(await probe(spec, { ...options, env: { RELEASE: '9.1', BUILD: '7' } }));
    expect(result.serverInfo).toEqual({ name: 'fixture-sdk1', version: '9.1-7' });
  });

  it('names an unset ${VAR} and where it is used', async () => {
    const spec = stdioFixture('sdk1-server.mjs', [], { env: { TOKEN: 'Bearer ${API_TOKEN}' } });
    const result = await probe(spec, options);
    expect(result).toMatchObject({ ok: false, code: 'CONFIG_INVALID' });
    expect(!result.ok && result.reason).toBe(
      'environment variable not set: API_TOKEN (in env TOKEN of server "sdk1-server"); ' +
        'set it in the service environment or change the server configuration',
    );
  });
});

describe('probe: HTTP headers with ${VAR} references', () => {
  let http: HttpFixture;
  beforeAll(async () => {
    http = await startHttpFixture('sdk1-server.mjs', ['--require-header', 'X-Api-Key=k=s3cret']);
  });
  afterAll(() => http.stop());

  const spec = (url: string) => ({
    name: 'guarded',
    transport: 'http' as const,
    url,
    headers: { 'X-Api-Key': 'k=${FIXTURE_KEY}' },
  });

  it('resolves header references at connect time', async () => {
    const result = await probe(spec(`${http.baseUrl}/mcp`), {
      ...options,
      env: { FIXTURE_KEY: 's3cret' },
    });
    expectSdk1(result);
  });

  it('reports a refused credential as HTTP 401', async () => {
    const result = await probe(spec(`${http.baseUrl}/mcp`), {
      ...options,
      env: { FIXTURE_KEY: 'wrong' },
    });
    expect(result).toMatchObject({ ok: false, code: 'REMOTE_UNREACHABLE' });
    expect(!result.ok && result.reason).toBe(
      `connecting to server "guarded" (${http.baseUrl}/mcp): the server refused access ` +
        '(HTTP 401 Unauthorized): "missing X-Api-Key"; check the configured headers',
    );
  });

  it('names an unset header variable', async () => {
    const result = await probe(spec(`${http.baseUrl}/mcp`), options);
    expect(result).toMatchObject({ ok: false, code: 'CONFIG_INVALID' });
    expect(!result.ok && result.reason).toContain(
      'FIXTURE_KEY (in header X-Api-Key of server "guarded")',
    );
  });
});

describe('probe: a 2.x SDK server (2026-07-28 and 2025)', () => {
  let both: HttpFixture;
  let modernOnly: HttpFixture;
  beforeAll(async () => {
    [both, modernOnly] = await Promise.all([
      startHttpFixture('sdk2-server.mjs'),
      startHttpFixture('sdk2-server.mjs', [
        '--eras',
        '2026',
        '--ttl-ms',
        '0',
        '--cache-scope',
        'private',
      ]),
    ]);
  });
  afterAll(() => Promise.all([both.stop(), modernOnly.stop()]));

  it('negotiates 2026-07-28 over stdio, with the cache hints, on one process', async () => {
    const pids = pidFile();
    const result = await probe(stdioFixture('sdk2-server.mjs', [], { env: pids.env }), options);
    expectSdk2(result, '2026');
    expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(pids.pids()).toHaveLength(1);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('connects pinned to 2026-07-28 when the era is known', async () => {
    const spec = stdioFixture('sdk2-server.mjs', ['--eras', '2026', '--ttl-ms', '1500'], {
      era: '2026',
    });
    const result = await probe(spec, options);
    expectSdk2(result, '2026');
    expect(result).toMatchObject({ ttlMs: 1500, cacheScope: 'public' });
  });

  it('speaks 2025 to it when the era is known to be 2025, without cache hints', async () => {
    const result = await probe(stdioFixture('sdk2-server.mjs', [], { era: '2025' }), options);
    expectSdk2(result, '2025');
    expect(result).toMatchObject({ ttlMs: null, cacheScope: null });
  });

  it('recovers from a stale stored 2025 era when the server dropped 2025', async () => {
    const spec = stdioFixture('sdk2-server.mjs', ['--eras', '2026'], { era: '2025' });
    expectSdk2(await probe(spec, options), '2026');
  });

  it('negotiates 2026-07-28 over Streamable HTTP', async () => {
    const result = await probe(
      { name: 'sdk2-http', transport: 'http', url: `${both.baseUrl}/mcp` },
      options,
    );
    expectSdk2(result, '2026');
    expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it('uses the stateless 2025 leg over HTTP when told the era is 2025', async () => {
    const spec = {
      name: 'sdk2-http',
      transport: 'http' as const,
      url: `${both.baseUrl}/mcp`,
      era: '2025' as const,
    };
    expectSdk2(await probe(spec, options), '2025');
  });

  it('reads ttlMs 0 and private scope from a 2026-only HTTP server', async () => {
    const spec = {
      name: 'sdk2-modern',
      transport: 'http' as const,
      url: `${modernOnly.baseUrl}/mcp`,
    };
    const result = await probe(spec, options);
    expectSdk2(result, '2026');
    expect(result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });
});

describe('probe: a paginating low-level server', () => {
  let http: HttpFixture;
  beforeAll(async () => {
    http = await startHttpFixture('paginating-server.mjs', ['--tools', '11', '--page-size', '2']);
  });
  afterAll(() => http.stop());

  const names = (count: number) =>
    Array.from({ length: count }, (_, index) => `tool_${String(index + 1).padStart(2, '0')}`);

  function expectPaginated(result: ProbeResult, tools: number, pages: number): ProbeSuccess {
    const ok = expectOk(result);
    expect(ok.tools.map((tool) => tool.name)).toEqual(names(tools));
    expect(ok.pages).toBe(pages);
    expect(ok.tools[2]).toEqual({
      name: 'tool_03',
      description: 'Fixture tool number 3.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, vendorHint: { tier: 'gold', reviewed: true } },
    });
    expect(ok.tools[1]?.['annotations']).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(ok.serverInfo).toEqual({ name: 'fixture-paginating', version: '0.3.0' });
    expect(ok.capabilities).toEqual({ tools: {} });
    expect(ok.bytes).toBe(jsonBytes(ok.tools));
    return ok;
  }

  it('follows nextCursor over 6 pages of 2 over stdio', async () => {
    const spec = stdioFixture('paginating-server.mjs', ['--tools', '11', '--page-size', '2']);
    expectPaginated(await probe(spec, options), 11, 6);
  });

  it('follows nextCursor over Streamable HTTP', async () => {
    const spec = {
      name: 'paginating-http',
      transport: 'http' as const,
      url: `${http.baseUrl}/mcp`,
    };
    expectPaginated(await probe(spec, options), 11, 6);
  });

  it('accepts a listing exactly at the page cap and refuses one page more', async () => {
    const spec = {
      name: 'paginating-http',
      transport: 'http' as const,
      url: `${http.baseUrl}/mcp`,
    };
    expectPaginated(await probe(spec, { ...options, caps: { maxPages: 6 } }), 11, 6);
    const refused = await probe(spec, { ...options, caps: { maxPages: 5 } });
    expect(refused).toMatchObject({ ok: false, code: 'REMOTE_PROTOCOL', era: '2025' });
    expect(!refused.ok && refused.reason).toBe(
      `server "paginating-http" (${http.baseUrl}/mcp): the listing has more than 5 pages ` +
        '(page cap maxPages=5)',
    );
  });

  it('ends on a last page that is full', async () => {
    const spec = stdioFixture('paginating-server.mjs', ['--tools', '10', '--page-size', '2']);
    expectPaginated(await probe(spec, options), 10, 5);
  });
});
