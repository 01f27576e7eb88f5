import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe, type ProbeOptions, type ProbeResult } from '../../src/mcp/index.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';

/*
 * Issue 12, defects 7 and 9 over HTTP. The SDK read a response whole before any cap could
 * apply (a 200 MB page cost 1.4 GB), and reasons dropped what the server said.
 */

const MAX_BYTES = 64 * 1024;
/** What the transports allow one message: the listing cap plus an envelope (session.ts). */
const MESSAGE_CAP = MAX_BYTES + 64 * 1024;
const options: ProbeOptions = { env: {}, timeoutMs: 10_000, caps: { maxBytes: MAX_BYTES } };

function failure(result: ProbeResult): { code: string; reason: string } {
  if (result.ok) throw new Error(`expected a failure, got ${result.tools.length} tools`);
  return { code: result.code, reason: result.reason };
}

const fixtures: Record<string, HttpFixture> = {};
const start = async (name: string, args: string[]) => {
  fixtures[name] = await startHttpFixture('hostile-server.mjs', args);
};

beforeAll(async () => {
  await Promise.all([
    start('declared', [
      '--mode',
      'huge-page',
      '--page-bytes',
      String(8 * 1024 * 1024),
      '--declare-length',
    ]),
    start('endless', ['--mode', 'huge-page', '--page-bytes', '0']),
    start('endlessEvent', ['--mode', 'huge-page', '--page-bytes', '0', '--sse']),
    start('echo', ['--mode', 'echo-auth']),
    start('manyTools', ['--mode', 'many-tools', '--tools', '50000']),
    start('capTools', ['--mode', 'many-tools', '--tools', '20']),
    start('legacy', ['--mode', 'legacy-sse']),
  ]);
});
afterAll(() => Promise.all(Object.values(fixtures).map((fixture) => fixture.stop())));

const target = (name: string) => `server "${name}" (${fixtures[name]!.baseUrl}/mcp)`;
const spec = (name: string, extra: object = {}) => ({
  name,
  transport: 'http' as const,
  url: `${fixtures[name]!.baseUrl}/mcp`,
  ...extra,
});

describe('HTTP responses are bounded while they stream in', () => {
  it('refuses a page whose Content-Length is over the cap, without reading it', async () => {
    expect(failure(await probe(spec('declared'), options))).toEqual({
      code: 'REMOTE_PROTOCOL',
      reason: `listing tools (page 1) from ${target('declared')}: the server announced a message of ${8 * 1024 * 1024} bytes (Content-Length), more than the listing size cap allows (${MESSAGE_CAP} bytes)`,
    });
  });

  it('stops reading a JSON body that never ends once it passes the cap', async () => {
    expect(failure(await probe(spec('endless'), options))).toEqual({
      code: 'REMOTE_PROTOCOL',
      reason: `listing tools (page 1) from ${target('endless')}: the server sent a message larger than ${MESSAGE_CAP} bytes, more than the listing size cap allows`,
    });
  });

  it('stops reading an SSE event that never ends once it passes the cap', async () => {
    expect(failure(await probe(spec('endlessEvent'), options))).toEqual({
      code: 'REMOTE_PROTOCOL',
      reason: `listing tools (page 1) from ${target('endlessEvent')}: the server sent an event larger than ${MESSAGE_CAP} bytes, more than the listing size cap allows`,
    });
  });
});

describe('the tool cap applies before a page is parsed', () => {
  it('refuses a 50,000-tool page after reading past its 20th tool, under the byte cap', async () => {
    const result = await probe(spec('manyTools'), { ...options, caps: { maxTools: 20 } });
    // The transport's reason (not list-tools' "the listing has more than"): counted in the
    // raw bytes, the page never parsed.
    expect(failure(result)).toEqual({
      code: 'REMOTE_PROTOCOL',
      reason: `${target('manyTools')}: the server sent a tools/list page with more than 20 tools (tool cap maxTools=20), counted before it was parsed`,
    });
  });

  it('lists a page of exactly the cap', async () => {
    const result = await probe(spec('capTools'), { ...options, caps: { maxTools: 20 } });
    expect(result.ok && result.tools.length).toBe(20);
  });
});

describe('HTTP failures say what the server said', () => {
  it("keeps a 403's own text instead of blaming the headers", async () => {
    const { code, reason } = failure(await probe(spec('echo'), options));
    expect(code).toBe('REMOTE_UNREACHABLE');
    expect(reason).toBe(
      `connecting to ${target('echo')}: the server refused access (HTTP 403 Forbidden): "Access is only allowed at localhost:${fixtures['echo']!.port}; you sent Authorization: (none)"`,
    );
  });

  it('hints at --transport sse for a legacy HTTP+SSE endpoint registered as http', async () => {
    expect(failure(await probe(spec('legacy'), options))).toEqual({
      code: 'REMOTE_UNREACHABLE',
      reason: `connecting to ${target('legacy')}: the server answered HTTP 404 Not Found: "Cannot POST /sse"; the URL answers as a legacy HTTP+SSE endpoint: register it with --transport sse`,
    });
  });
});
