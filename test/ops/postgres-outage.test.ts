import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { controlFixture, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { get, httpUrlOf, waitFor } from './ops-support.js';
import {
  createPrivatePostgres,
  privatePostgresUnavailable,
  type PrivatePostgres,
} from './private-postgres.js';

/*
 * Acceptance 2 of the operations issue: `serve` on a PostgreSQL that is stopped and started
 * again. The cluster is this file's own (the shared server stays up for the other tests).
 */

const unavailable = privatePostgresUnavailable();
const EVERY_2S = '*/2 * * * * *';

let pg: PrivatePostgres;
let dir: string;
let fixture: HttpFixture;
let serve: RunningServe | undefined;
let sql: postgres.Sql;

const serveLog = () => serve?.log() ?? '';

beforeAll(async () => {
  if (unavailable) return;
  pg = await createPrivatePostgres();
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-outage-'));
  fixture = await startHttpFixture('sdk1-server.mjs');
  sql = postgres(pg.url, { max: 1, onnotice: () => {} });
}, 120_000);

afterAll(async () => {
  if (unavailable) return;
  await serve?.stop();
  await sql?.end({ timeout: 1 }).catch(() => {});
  await fixture?.stop();
  await pg?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface ChangeRow {
  id: number;
  from_hash: string;
  to_hash: string;
  severity: string;
  notification_seen: boolean | null;
}

const changesOf = (serverId: number) =>
  sql<ChangeRow[]>`select id::int, from_hash, to_hash, severity, notification_seen
    from changes where server_id = ${serverId} order by id`;

describe.skipIf(unavailable)(
  `serve through a PostgreSQL outage${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    it('answers /readyz 503 while PostgreSQL is stopped, keeps running, and resumes watching', async () => {
      const env = {
        DATABASE_URL: pg.url,
        MCP_DRIFT_HOME: path.join(dir, 'home'),
        LOG_LEVEL: 'debug',
      };
      const added = await runCli(
        ['server', 'add', 'outage', '--url', `${fixture.baseUrl}/mcp`, '--schedule', EVERY_2S],
        { env, cwd: dir },
      );
      expect(added.code, added.stderr).toBe(0);
      serve = await startServe({ env, cwd: dir });
      const url = httpUrlOf(serve);
      const [server] = await sql<{ id: number }[]>`select id from servers where name = 'outage'`;
      const serverId = server!.id;
      const held = await waitFor(
        'the held session to list',
        async () => {
          const [row] = await sql<{ listing_hash: string | null }[]>`
            select listing_hash from held_sessions where server_id = ${serverId}`;
          return row?.listing_hash ?? undefined;
        },
        { context: serveLog },
      );
      expect((await get(`${url}/readyz`)).status).toBe(200);

      await pg.stop();
      const logBefore = serveLog().length;
      // get() fails the test if an endpoint takes longer than 5 s to answer.
      const notReady = await get(`${url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(JSON.parse(notReady.body)).toMatchObject({
        status: 'not ready',
        reason: expect.stringMatching(/^database unreachable/),
      });
      expect((await get(`${url}/metrics`)).status).toBe(503);
      expect((await get(`${url}/healthz`)).status).toBe(200);

      // The service notices the outage, logs it and keeps going.
      await waitFor(
        'serve to log a failed supervisor tick',
        async () =>
          serveLog().slice(logBefore).includes('supervisor tick failed') ? true : undefined,
        { context: serveLog },
      );
      // The server's listing changes while nothing can be recorded.
      const control = await controlFixture(fixture.baseUrl, { relax: true, notify: true });
      expect(control).toMatchObject({ relaxed: true, notified: 1 });
      expect((await get(`${url}/readyz`)).status).toBe(503);
      expect(serve.child.exitCode).toBeNull();
      expect(serve.child.signalCode).toBeNull();

      await pg.start();
      await waitFor(
        '/readyz to answer 200 again',
        async () => ((await get(`${url}/readyz`)).status === 200 ? true : undefined),
        { context: serveLog },
      );
      expect((await get(`${url}/metrics`)).status).toBe(200);

      // The change made during the outage is recorded once the database is back (the next
      // scheduled probe sees a listing the database has not recorded yet).
      const [during] = await waitFor(
        'the change made during the outage to be recorded',
        async () => {
          const rows = await changesOf(serverId);
          return rows.length > 0 ? rows : undefined;
        },
        { context: serveLog },
      );
      expect(during).toMatchObject({ from_hash: held, severity: 'critical' });

      // And the held session is live: a change announced now is recorded as announced.
      await controlFixture(fixture.baseUrl, { relax: false, notify: true });
      const after = await waitFor(
        'a change announced after the outage',
        async () => {
          const rows = await changesOf(serverId);
          return rows.find((row) => row.from_hash === during!.to_hash);
        },
        { context: serveLog },
      );
      expect(after).toMatchObject({ to_hash: held, notification_seen: true });

      expect(serve.child.exitCode).toBeNull();
      const stopped = await serve.stop();
      const log = serve.log();
      serve = undefined;
      expect(stopped.code, log.slice(-3000)).toBe(0);
    }, 180_000);
  },
);
