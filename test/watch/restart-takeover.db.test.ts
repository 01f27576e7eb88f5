import { and, eq, isNotNull, ne, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { heldSessions, workerLeases, workers } from '../../src/db/schema.js';
import { exited, runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * `serve` killed with SIGKILL, then started again on the same database. On the embedded
 * database only one process can open it, so the new serve is the only worker and takes the
 * dead one's leases at once: its servers are held again long before those leases could
 * have expired (about 5 s on a quiet machine; the window here is wider, so that a busy one
 * does not fail it, and still shorter than the shortest time to expiry). On PostgreSQL
 * another worker could be alive behind those leases, so they are taken only once they
 * expire, as before.
 */

const SERVERS = 3;
/** PostgreSQL: long enough that the restarted worker beats twice well before expiry. */
const LEASE_SECONDS = 20;
/**
 * From starting serve again to every server held again. The dead worker renewed its leases
 * a third of LEASE_SECONDS before it died at the latest, so waiting for them to expire
 * would take at least two thirds of it (13.3 s): 10 s tells "at once" from "on expiry".
 */
const HELD_AGAIN_WITHIN_MS = 10_000;
const YEARLY = '0 0 1 1 *';

let database: TestDatabase;
let handle: DatabaseHandle | undefined;
let fixture: HttpFixture;
const serves: RunningServe[] = [];

const serveEnv = () => ({ ...database.env, LEASE_SECONDS: String(LEASE_SECONDS) });

/** Held sessions with a listing, noted by workers other than `notBy`. */
async function heldBy(notBy: string | null): Promise<number> {
  const [row] = await handle!.db
    .select({ n: sql<number>`count(*)::int` })
    .from(heldSessions)
    .where(
      and(
        isNotNull(heldSessions.listingHash),
        notBy === null ? undefined : ne(heldSessions.workerId, notBy),
      ),
    );
  return row?.n ?? 0;
}

async function leaseHolders(): Promise<Map<string, number>> {
  const rows = await handle!.db
    .select({ worker: workerLeases.workerId, n: sql<number>`count(*)::int` })
    .from(workerLeases)
    .groupBy(workerLeases.workerId);
  return new Map(rows.map((row) => [row.worker, row.n]));
}

async function workerOf(pid: number) {
  const [row] = await handle!.db.select().from(workers).where(eq(workers.pid, pid));
  return row;
}

beforeAll(async () => {
  database = await createTestDatabase();
  fixture = await startHttpFixture('sdk1-server.mjs');
  for (let i = 0; i < SERVERS; i++) {
    const added = await runCli(
      ['server', 'add', `held-${i}`, '--url', `${fixture.baseUrl}/mcp`, '--schedule', YEARLY],
      { env: database.env, cwd: database.dir },
    );
    expect(added.code, added.stderr).toBe(0);
  }
});
afterAll(async () => {
  await handle?.close();
  await Promise.all(serves.map((serve) => serve.stop()));
  await fixture?.stop();
  await database?.drop();
});

describe(`serve killed with SIGKILL and started again (${backend})`, () => {
  it(
    backend === 'pglite'
      ? 'holds its servers again before the leases could expire: the only worker takes them at once'
      : 'takes the dead worker’s leases only once they expire (another worker may be alive)',
    async () => {
      const first = await startServe({ env: serveEnv(), cwd: database.dir });
      serves.push(first);
      handle = await database.open();
      await waitUntil(
        'every server held by the first serve',
        async () => (await heldBy(null)) === SERVERS,
      );
      const victim = await workerOf(first.child.pid!);
      expect(victim).toBeDefined();

      first.child.kill('SIGKILL');
      await exited(first.child);
      // On PGlite the handle went through the dead serve's socket.
      await handle.close();
      handle = undefined;

      const restartedAt = Date.now();
      const second = await startServe({ env: serveEnv(), cwd: database.dir });
      serves.push(second);
      handle = await database.open();
      const successor = () => workerOf(second.child.pid!);

      if (backend === 'pglite') {
        await waitUntil(
          `every server held again within ${HELD_AGAIN_WITHIN_MS} ms of the restart`,
          async () => (await heldBy(victim!.id)) === SERVERS,
          {
            timeoutMs: Math.max(0, restartedAt + HELD_AGAIN_WITHIN_MS - Date.now()),
            describe: async () =>
              `held sessions of the new serve: ${await heldBy(victim!.id)}; leases: ` +
              JSON.stringify(Object.fromEntries(await leaseHolders())),
          },
        );
        const holders = await leaseHolders();
        expect([...holders]).toEqual([[(await successor())!.id, SERVERS]]);
        // The dead worker is forgotten, its held sessions with it.
        expect(await workerOf(first.child.pid!)).toBeUndefined();
        expect(await heldBy(null)).toBe(SERVERS);
        return;
      }

      // PostgreSQL: the new worker beats twice (so it has been through a whole tick) while
      // the dead worker's leases, renewed a third of the lease time before it died at the
      // latest, still run; they must still be the dead worker's.
      let firstBeat: Date | undefined;
      await waitUntil('the new worker to beat twice', async () => {
        const row = await successor();
        if (!row) return false;
        firstBeat ??= row.heartbeatAt;
        return row.heartbeatAt > firstBeat;
      });
      expect(Object.fromEntries(await leaseHolders())).toEqual({ [victim!.id]: SERVERS });
      await waitUntil(
        'the new worker to hold every server once the leases expired',
        async () => (await heldBy(victim!.id)) === SERVERS,
        { timeoutMs: LEASE_SECONDS * 1000 + 30_000 },
      );
      expect([...(await leaseHolders())]).toEqual([[(await successor())!.id, SERVERS]]);
    },
    120_000,
  );
});
