import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { KEY_FILE, tokenCipher } from '../../src/config/secret-key.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  loadTokens,
  markNeedsLogin,
  oauthStatus,
  resealTokens,
  saveTokens,
} from '../../src/registry/oauth-tokens-repo.js';
import { insertServer } from '../../src/registry/servers-repo.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

/*
 * OAuth tokens at rest (docs/oauth.md): sealed with AES-256-GCM before they reach either
 * backend, under a key from MCP_DRIFT_SECRET_KEY or a 0600 key file in MCP_DRIFT_HOME, and
 * still readable across a documented key rotation.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
let ids: number[];
const ACCESS = `at-${randomBytes(24).toString('base64url')}`;
const REFRESH = `rt-${randomBytes(24).toString('base64url')}`;
const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('hex');
const tokens = {
  accessToken: ACCESS,
  refreshToken: REFRESH,
  expiresAt: new Date('2030-01-01T00:00:00Z'),
  scope: 'mcp',
  authorizationServer: 'http://127.0.0.1:1',
};

async function tableText(): Promise<string> {
  const rows = await handle.db.execute(sql`select row_to_json(t)::text as row from oauth_tokens t`);
  const list = Array.isArray(rows) ? rows : (rows as unknown as { rows: unknown[] }).rows;
  return (list as { row: string }[]).map((row) => row.row).join('\n');
}

const server = (name: string) => ({
  name,
  transport: 'http' as const,
  command: null,
  args: [],
  env: {},
  cwd: null,
  url: 'http://127.0.0.1:1/mcp',
  headers: {},
  trust: 'untrusted' as const,
  schedule: null,
  notify: [],
  slackUrl: null,
  webhookUrl: null,
  hold: false,
  alertMinSeverity: null,
  oauth: { grant: 'authorization_code' as const, clientId: null, clientSecret: null, scopes: [] },
});

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open();
  ids = [
    (await insertServer(handle.db, server('one'))).id,
    (await insertServer(handle.db, server('two'))).id,
  ];
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe(`OAuth tokens at rest (${backend})`, () => {
  it('are sealed under a key file made 0600 in MCP_DRIFT_HOME, and read back', async () => {
    const config = loadConfig({ MCP_DRIFT_HOME: database.env.MCP_DRIFT_HOME });
    await saveTokens(handle.db, tokenCipher(config), ids[0]!, tokens);
    const file = path.join(database.env.MCP_DRIFT_HOME, KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = await tableText();
    expect(stored).not.toContain(ACCESS);
    expect(stored).not.toContain(REFRESH);
    expect(stored).toMatch(/"access_token":"v1\.[0-9a-f]{16}\./);
    // The same file's key the next time: a new process reads what the last one wrote.
    expect(await loadTokens(handle.db, tokenCipher(config), ids[0]!)).toEqual(tokens);
  });

  it('do not open under another key, nor on another server’s row', async () => {
    const other = tokenCipher(loadConfig({ MCP_DRIFT_SECRET_KEY: keyA }));
    await expect(loadTokens(handle.db, other, ids[0]!)).rejects.toThrow(
      /MCP_DRIFT_SECRET_KEY_PREVIOUS/,
    );
    await handle.db.execute(
      sql`insert into oauth_tokens (server_id, state, access_token)
        select ${ids[1]!}, 'authorized', access_token from oauth_tokens where server_id = ${ids[0]!}`,
    );
    const config = loadConfig({ MCP_DRIFT_HOME: database.env.MCP_DRIFT_HOME });
    await expect(loadTokens(handle.db, tokenCipher(config), ids[1]!)).rejects.toThrow(
      /integrity check/,
    );
  });

  it('survive a key rotation: the old key as PREVIOUS opens them, a reseal moves them on', async () => {
    // Server one's tokens are under the key file's key, which this rotation does not name.
    await markNeedsLogin(handle.db, ids[0]!);
    const before = tokenCipher(loadConfig({ MCP_DRIFT_SECRET_KEY: keyA }));
    await saveTokens(handle.db, before, ids[1]!, tokens);
    const rotated = tokenCipher(
      loadConfig({ MCP_DRIFT_SECRET_KEY: keyB, MCP_DRIFT_SECRET_KEY_PREVIOUS: keyA }),
    );
    expect(await loadTokens(handle.db, rotated, ids[1]!)).toEqual(tokens);
    expect(await resealTokens(handle.db, rotated)).toBeGreaterThanOrEqual(1);
    const after = tokenCipher(loadConfig({ MCP_DRIFT_SECRET_KEY: keyB }));
    expect(await loadTokens(handle.db, after, ids[1]!)).toEqual(tokens);
    await expect(loadTokens(handle.db, before, ids[1]!)).rejects.toThrow();
  });

  it('are dropped when the server needs a login; the status never carries a token', async () => {
    await markNeedsLogin(handle.db, ids[1]!);
    const status = await oauthStatus(handle.db, ids[1]!);
    expect(status).toMatchObject({
      state: 'needs_login',
      authorizationServer: 'http://127.0.0.1:1',
    });
    expect(JSON.stringify(status)).not.toContain('v1.');
    const after = tokenCipher(loadConfig({ MCP_DRIFT_SECRET_KEY: keyB }));
    expect(await loadTokens(handle.db, after, ids[1]!)).toBeNull();
  });
});
