import { sql } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { serverStates } from '../../src/read-models/fleet.js';
import { loginToServer } from '../../src/registry/server-login.js';
import { insertServer } from '../../src/registry/servers-repo.js';
import { startService, type RunningService } from '../../src/service.js';
import { chromiumAvailable, launchChromium } from '../support/browser.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startProtectedServer } from '../support/oauth-mcp-server.js';
import { loginInBrowser } from '../support/oauth-login.js';
import { waitUntil } from '../support/wait.js';

/*
 * A server watched with a person's login, by the service in process (docs/oauth.md): with
 * a short access-token lifetime, probes and the held session keep listing while the tokens
 * are refreshed (the provider's log shows the refresh grants, each rotation stored). Once an
 * administrator revokes the refresh tokens, the next refresh is refused: the server goes
 * `needs_login` once, with an outage of kind `auth`, and no further request reaches the
 * server while probes go on failing; a new login resumes watching without a restart.
 */

const EVERY_2S = '*/2 * * * * *';

let database: TestDatabase;
let handle: DatabaseHandle;
let browser: Browser;
let config: Config;
let service: RunningService | undefined;
let protectedServer: Awaited<ReturnType<typeof startProtectedServer>>;
const haveChromium = chromiumAvailable();

const refreshes = () =>
  protectedServer.provider.issued.filter((grant) => grant.grantType === 'refresh_token').length;

async function login(): Promise<void> {
  await loginToServer('tracker', {
    config,
    env: {},
    signal: AbortSignal.timeout(60_000),
    withDatabase: (fn) => fn(handle.db),
    onAuthorizationUrl: async (url) => {
      expect(await loginInBrowser(browser, url)).toContain('Logged in');
    },
  });
}

async function openOutages(): Promise<{ kind: string }[]> {
  return (await handle.db.execute(
    sql`select kind from outages where up_at is null`,
  )) as unknown as { kind: string }[];
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  // A refresh is due 10 s before expiry: with 14 s, nearly every 2 s probe refreshes.
  protectedServer = await startProtectedServer({ accessTokenTtl: 14 });
  config = loadConfig({ ...database.env, HTTP_PORT: '0', DIGEST_SECONDS: '0' });
  if (haveChromium) browser = await launchChromium();
});
afterAll(async () => {
  await service?.stop();
  await browser?.close();
  await protectedServer?.stop();
  await handle?.close();
  await database?.drop();
});

describe.runIf(haveChromium)(`needs_login (${backend})`, () => {
  it('refreshes, goes needs_login once when refused, and resumes after a new login', async () => {
    const server = await insertServer(handle.db, {
      name: 'tracker',
      transport: 'http',
      command: null,
      args: [],
      env: {},
      cwd: null,
      url: protectedServer.mcp.url,
      headers: {},
      trust: 'trusted',
      schedule: EVERY_2S,
      notify: [],
      slackUrl: null,
      webhookUrl: null,
      hold: false,
      alertMinSeverity: null,
      oauth: { grant: 'authorization_code', clientId: null, clientSecret: null, scopes: [] },
    });
    await login();
    service = await startService({
      config,
      env: {},
      db: handle,
      logger: createLogger((process.env['TEST_LOG'] as 'info' | undefined) ?? 'silent'),
      tickMs: 200,
      dispatcher: { pollMs: 100 },
    });
    const { events } = service;
    const ofServer = (event: { serverId: number }) => event.serverId === server.id;
    await events.next('session-held', ofServer, { past: true, timeoutMs: 60_000 });

    // Refreshes, each stored, while probes keep listing.
    const okBefore = (await handle.db.execute(
      sql`select coalesce(sum(count), 0)::int as n from observations where outcome = 'ok'`,
    )) as unknown as { n: number }[];
    await waitUntil('three refreshes at the provider', () => refreshes() >= 3, {
      timeoutMs: 90_000,
    });
    const okAfter = (await handle.db.execute(
      sql`select coalesce(sum(count), 0)::int as n from observations where outcome = 'ok'`,
    )) as unknown as { n: number }[];
    expect(okAfter[0]!.n).toBeGreaterThan(okBefore[0]!.n);
    const errors = (await handle.db.execute(
      sql`select count(*)::int as n from observations where outcome = 'error'`,
    )) as unknown as { n: number }[];
    expect(errors[0]!.n).toBe(0);

    // The administrator revokes the refresh tokens: the next refresh is refused.
    const needed = events.next('login-needed', ofServer, { timeoutMs: 60_000 });
    await protectedServer.provider.revokeRefreshTokens();
    await needed;
    const requestsThen = protectedServer.mcp.counts.requests;
    expect(await openOutages()).toEqual([{ kind: 'auth' }]);

    // Five more probes fail with NEEDS_LOGIN, and none of them reaches the server.
    for (let i = 0; i < 5; i++) {
      await events.next('observation-recorded', (event) => ofServer(event) && !event.ok, {
        timeoutMs: 30_000,
      });
    }
    expect(protectedServer.mcp.counts.requests - requestsThen).toBeLessThanOrEqual(3);
    expect(events.history().filter((event) => event.kind === 'login-needed')).toHaveLength(1);
    const stored = (await handle.db.execute(
      sql`select state from oauth_tokens where server_id = ${server.id}`,
    )) as unknown as { state: string }[];
    expect(stored).toEqual([{ state: 'needs_login' }]);
    // What server list, the fleet and the server page say.
    const [listed] = await serverStates(handle.db);
    expect(listed).toMatchObject({
      name: 'tracker',
      state: 'needs_login',
      down: { kind: 'auth', reason: expect.stringContaining('mcp-drift server login tracker') },
    });

    // A new login: watched again, without restarting the service.
    const since = new Date();
    await login();
    // `past`: the restarted watcher may list before login() has returned.
    const after = (event: { serverId: number; at: Date }) => ofServer(event) && event.at >= since;
    await events.next('observation-recorded', (event) => after(event) && event.ok, {
      timeoutMs: 60_000,
      past: true,
    });
    await events.next('session-held', after, { timeoutMs: 60_000, past: true });
    expect(await openOutages()).toEqual([]);

    // Every table's rows: tokens only ever sealed (docs/oauth.md).
    const tables = (await handle.db.execute(
      sql`select format('%I.%I', table_schema, table_name) as name from information_schema.tables
        where table_schema in ('public', 'drizzle') and table_type = 'BASE TABLE'`,
    )) as unknown as { name: string }[];
    let dump = '';
    for (const { name } of tables) {
      const rows = (await handle.db.execute(
        sql.raw(`select row_to_json(t)::text as row from ${name} t`),
      )) as unknown as { row: string }[];
      dump += rows.map((row) => row.row).join('\n');
    }
    expect(dump).toContain('v1.');
    const tokens = [
      ...protectedServer.provider.accessTokens,
      ...protectedServer.provider.refreshTokens,
    ];
    expect(tokens.length).toBeGreaterThan(4);
    expect(tokens.filter((token) => dump.includes(token))).toEqual([]);
  });
});
