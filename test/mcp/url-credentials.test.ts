import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe } from '../../src/mcp/index.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';

/*
 * Issue 12, defect 4: a URL with user:password@ was accepted, and every connection then
 * failed ("Request cannot be constructed from a URL that includes credentials") with the
 * password in the reason. `server add` now refuses them (test/registry); a registration
 * stored with them before is connected with an Authorization: Basic header instead.
 */

let guarded: HttpFixture;
const basic = `Basic ${Buffer.from('monitor:pa ss/wörd').toString('base64')}`;

beforeAll(async () => {
  guarded = await startHttpFixture('sdk1-server.mjs', [
    '--require-header',
    `Authorization=${basic}`,
  ]);
});
afterAll(() => guarded?.stop());

describe('a stored URL with credentials', () => {
  it('connects with them as an Authorization: Basic header', async () => {
    const url = `http://monitor:${encodeURIComponent('pa ss/wörd')}@127.0.0.1:${guarded.port}/mcp`;
    const result = await probe(
      { name: 'legacy', transport: 'http', url },
      { env: {}, timeoutMs: 10_000 },
    );
    expect(result.ok ? result.tools.map((tool) => tool.name) : result.reason).toContain(
      'delete_note',
    );
  });

  it('names the server without them when it fails', async () => {
    const url = `http://monitor:wrong-password@127.0.0.1:${guarded.port}/mcp`;
    const result = await probe(
      { name: 'legacy', transport: 'http', url },
      { env: {}, timeoutMs: 10_000 },
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(
      new RegExp(
        `^connecting to server "legacy" \\(http://127\\.0\\.0\\.1:${guarded.port}/mcp\\): the server refused access \\(HTTP 401`,
      ),
    );
    expect(!result.ok && result.reason).not.toContain('wrong-password');
  });
});
