import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { observations, servers } from '../../src/db/schema.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { fixturePath, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';
import { get, httpUrlOf } from '../ops/ops-support.js';

/*
 * Issue 12, defect 6 (and 7) under serve: a server flooding change notifications, one
 * answering with an endless page and one with endless pages, next to a healthy server.
 * The healthy server keeps being probed, /healthz keeps answering, and each hostile
 * server's misbehaviour is recorded as an error observation. (How late the probes are, and
 * how fast /healthz answers, is `npm run bench -- hostile`.)
 */

let database: TestDatabase;
let serve: RunningServe | undefined;
let handle: DatabaseHandle;
const fixtures: HttpFixture[] = [];
const EVERY_2S = '*/2 * * * * *';
const YEARLY = '0 0 1 1 *';

const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

beforeAll(async () => {
  database = await createTestDatabase();
  fixtures.push(
    await startHttpFixture('hostile-server.mjs', ['--mode', 'flood', '--rate', '20000']),
    await startHttpFixture('hostile-server.mjs', ['--mode', 'huge-page', '--page-bytes', '0']),
    await startHttpFixture('hostile-server.mjs', ['--mode', 'endless-pages']),
  );
});
afterAll(async () => {
  await handle?.close();
  await serve?.stop();
  await Promise.all(fixtures.map((fixture) => fixture.stop()));
  await database?.drop();
});

describe(`serve next to hostile servers (${backend})`, () => {
  it('keeps probing a healthy server, answers /healthz, and records each hostile server as failing', async () => {
    const [flood, page, pages] = fixtures;
    const added = [
      await cli('server', 'add', 'flood', '--url', `${flood!.baseUrl}/mcp`, '--schedule', YEARLY),
      await cli('server', 'add', 'page', '--url', `${page!.baseUrl}/mcp`, '--schedule', EVERY_2S),
      await cli('server', 'add', 'pages', '--url', `${pages!.baseUrl}/mcp`, '--schedule', EVERY_2S),
      await cli(
        'server',
        'add',
        'healthy',
        '--schedule',
        EVERY_2S,
        '--stdio',
        '--',
        process.execPath,
        fixturePath('sdk1-server.mjs'),
      ),
    ];
    for (const result of added) expect(result.code, result.stderr).toBe(0);
    serve = await startServe({
      env: { ...database.env, LISTING_MAX_BYTES: String(1024 * 1024) },
      cwd: database.dir,
    });
    handle = await database.open();
    const url = `${httpUrlOf(serve)}/healthz`;
    const ids = Object.fromEntries(
      (await handle.db.select({ id: servers.id, name: servers.name }).from(servers)).map((row) => [
        row.name,
        row.id,
      ]),
    );
    const rowsOf = (name: string, outcome: 'ok' | 'error') =>
      handle.db
        .select()
        .from(observations)
        .where(and(eq(observations.serverId, ids[name]!), eq(observations.outcome, outcome)));

    const health: number[] = [];
    let seen = '';
    await waitUntil(
      'the healthy server probed 5 times and each hostile server recorded as failing',
      async () => {
        health.push((await get(url)).status);
        // Attempts, not rows: unchanged probes of one listing are one run.
        const healthy = (await rowsOf('healthy', 'ok')).reduce((sum, row) => sum + row.count, 0);
        const reasons = {
          flood: (await rowsOf('flood', 'error')).map((row) => row.errorMessage ?? ''),
          page: (await rowsOf('page', 'error')).map((row) => row.errorMessage ?? ''),
          pages: (await rowsOf('pages', 'error')).map((row) => row.errorMessage ?? ''),
        };
        seen = JSON.stringify({ healthy, reasons }).slice(0, 3000);
        return (
          healthy >= 5 &&
          reasons.flood.some((reason) => reason.includes('a flood; the session was dropped')) &&
          reasons.page.some((reason) => reason.includes('more than the listing size cap allows')) &&
          reasons.pages.some((reason) => reason.includes('page cap maxPages=100'))
        );
      },
      { timeoutMs: 90_000, describe: () => `${seen}\n${serve!.log().slice(-3000)}` },
    );
    // Every /healthz request answered (each with its own 5 s limit), and answered ok.
    expect(new Set(health)).toEqual(new Set([200]));
  });
});
