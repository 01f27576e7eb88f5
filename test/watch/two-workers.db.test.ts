import { setTimeout as sleep } from 'node:timers/promises';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { changes, heldSessions, servers, workerLeases } from '../../src/db/schema.js';
import { exited, runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { controlFixture, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';

/*
 * Several `serve` processes share one PostgreSQL (design §10): they split the servers
 * through leases, and when one is killed the other takes its servers over within the
 * lease time, recording a change made meanwhile exactly once. The embedded database has
 * one worker by construction, so this runs on PostgreSQL only.
 */

const SERVERS = 20;
let database: TestDatabase;
let handle: DatabaseHandle;
let fixture: HttpFixture;
const workers: RunningServe[] = [];

async function waitFor<T>(
  what: string,
  read: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(250);
  }
}

async function holdings(): Promise<Map<string, number>> {
  const rows = await handle.db
    .select({ worker: workerLeases.workerId, count: sql<number>`count(*)::int` })
    .from(workerLeases)
    .groupBy(workerLeases.workerId);
  return new Map(rows.map((row) => [row.worker, row.count]));
}

beforeAll(async () => {
  if (backend !== 'postgres') return;
  database = await createTestDatabase();
  handle = await database.open();
  fixture = await startHttpFixture('sdk1-server.mjs');
  for (let i = 0; i < SERVERS; i++) {
    // Twenty registrations of one fixture: twenty held sessions, twenty probe schedules.
    const added = await runCli(
      [
        'server',
        'add',
        `s${String(i).padStart(2, '0')}`,
        '--url',
        `${fixture.baseUrl}/mcp`,
        '--schedule',
        '*/3 * * * * *',
      ],
      { env: database.env, cwd: database.dir },
    );
    expect(added.code, added.stderr).toBe(0);
  }
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await fixture?.stop();
  await handle?.close();
  await database?.drop();
});

describe.runIf(backend === 'postgres')('two serve processes on one PostgreSQL', () => {
  it('hold every server exactly once, and the survivor takes over a killed worker within the lease time', async () => {
    for (let i = 0; i < 2; i++)
      workers.push(await startServe({ env: database.env, cwd: database.dir }));
    const split = await waitFor(
      'both workers to hold servers, all 20 held',
      async () => {
        const held = await holdings();
        const total = [...held.values()].reduce((a, b) => a + b, 0);
        return held.size === 2 && total === SERVERS ? held : undefined;
      },
      30_000,
    );
    expect([...split.values()].sort()).toEqual([10, 10]);
    await waitFor(
      'a held session per server',
      async () =>
        (await handle.db.select().from(heldSessions)).length === SERVERS ? true : undefined,
      30_000,
    );

    const [victim, survivor] = workers as [RunningServe, RunningServe];
    victim.child.kill('SIGKILL');
    await exited(victim.child);
    // Changed while the victim's servers have no watcher: nobody is told.
    await controlFixture(fixture.baseUrl, { relax: true, notify: false });

    const takenOver = await waitFor(
      'the survivor to hold all 20',
      async () => {
        const held = await holdings();
        return held.size === 1 && [...held.values()][0] === SERVERS ? held : undefined;
      },
      45_000,
    );
    expect(takenOver.size).toBe(1);
    const perServer = await waitFor(
      'one change per server',
      async () => {
        const rows = await handle.db
          .select({ server: servers.name, count: sql<number>`count(${changes.id})::int` })
          .from(servers)
          .leftJoin(changes, eq(changes.serverId, servers.id))
          .groupBy(servers.name);
        return rows.every((row) => row.count >= 1) ? rows : undefined;
      },
      30_000,
    );
    // Probes keep running every 3 s on the survivor; give them time to record a duplicate.
    await sleep(4_000);
    const again = await handle.db
      .select({ server: servers.name, count: sql<number>`count(${changes.id})::int` })
      .from(servers)
      .leftJoin(changes, eq(changes.serverId, servers.id))
      .groupBy(servers.name);
    expect(perServer).toHaveLength(SERVERS);
    expect(again.every((row) => row.count === 1)).toBe(true);
    expect(survivor.child.exitCode).toBeNull();
  }, 180_000);
});
