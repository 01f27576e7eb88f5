import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { servers, workerLeases } from '../../src/db/schema.js';
import { heartbeat, keepLeases, liveWorkerCount } from '../../src/watch/leases-repo.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
let handle: DatabaseHandle;
const leaseMs = 30_000;
const a = { id: 'worker-a', hostname: 'test', pid: 1 };
const b = { id: 'worker-b', hostname: 'test', pid: 2 };

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  await handle.db.insert(servers).values(
    Array.from({ length: 20 }, (_, i) => ({
      name: `s${i}`,
      transport: 'http' as const,
      url: `http://127.0.0.1:1/${i}`,
    })),
  );
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

async function round(worker: typeof a): Promise<number[]> {
  await heartbeat(handle.db, worker);
  const liveWorkers = await liveWorkerCount(handle.db, leaseMs);
  const held = await keepLeases(handle.db, worker.id, { leaseMs, liveWorkers });
  return held.map((lease) => lease.serverId);
}

describe(`worker leases (${backend})`, () => {
  it('gives a lone worker every enabled server', async () => {
    expect(await round(a)).toHaveLength(20);
  });

  it('splits the servers when a second worker appears, each held by exactly one', async () => {
    expect(await round(b)).toEqual([]); // b is seen; a still holds everything this round
    const aHolds = await round(a); // a lets go of the excess
    const bHolds = await round(b); // b claims it
    expect(aHolds).toHaveLength(10);
    expect(bHolds).toHaveLength(10);
    expect(new Set([...aHolds, ...bHolds]).size).toBe(20);
    const rows = await handle.db.select().from(workerLeases);
    expect(rows).toHaveLength(20);
  });

  it('lets the survivor take over the servers of a worker that stopped renewing', async () => {
    // b dies: its beat and its leases age past the lease time.
    await handle.db.execute(
      sql`update workers set heartbeat_at = now() - interval '1 minute' where id = 'worker-b'`,
    );
    await handle.db.execute(
      sql`update worker_leases set expires_at = now() - interval '1 second' where worker_id = 'worker-b'`,
    );
    expect(await round(a)).toHaveLength(20);
    const holders = await handle.db
      .selectDistinct({ worker: workerLeases.workerId })
      .from(workerLeases);
    expect(holders).toEqual([{ worker: 'worker-a' }]);
  });

  it('releases the lease of a server that is disabled', async () => {
    await handle.db.execute(sql`update servers set enabled = false where name = 's0'`);
    expect(await round(a)).toHaveLength(19);
  });
});
