import { and, eq, gt, inArray, lt, ne, notExists, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { servers, workerLeases, workers } from '../db/schema.js';

/*
 * Workers split the enabled servers through leases (docs/design.md §10). A worker beats, renews
 * its leases, lets go of those beyond its fair share, and claims free or expired ones up
 * to it. A worker killed with SIGKILL stops renewing; its leases expire and the others
 * claim them. The lease row's primary key is the server, so a server has at most one
 * holder at any moment.
 */

export interface WorkerIdentity {
  id: string;
  hostname: string;
  pid: number;
}

export async function heartbeat(db: Database, worker: WorkerIdentity): Promise<void> {
  await db
    .insert(workers)
    .values({ ...worker, heartbeatAt: sql`now()` })
    .onConflictDoUpdate({ target: workers.id, set: { heartbeatAt: sql`now()` } });
}

/** Workers whose last beat is younger than `leaseMs`, this one included. */
export async function liveWorkerCount(db: Database, leaseMs: number): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(workers)
    .where(gt(workers.heartbeatAt, sql`now() - make_interval(secs => ${leaseMs / 1000})`));
  return row?.count ?? 1;
}

export async function forgetWorker(db: Database, workerId: string): Promise<void> {
  await db.delete(workerLeases).where(eq(workerLeases.workerId, workerId));
  await db.delete(workers).where(eq(workers.id, workerId));
}

/**
 * For a worker that knows it is the only one (the embedded database, which one process
 * opens at a time): every other worker row and lease was left by a process that is gone,
 * a `serve` killed with SIGKILL most likely. They are deleted at once, so the caller's
 * fair share is every server and nothing waits for a dead worker's leases to expire.
 * Returns how many leases were let go.
 */
export async function forgetOtherWorkers(db: Database, workerId: string): Promise<number> {
  const released = await db
    .delete(workerLeases)
    .where(ne(workerLeases.workerId, workerId))
    .returning({ serverId: workerLeases.serverId });
  await db.delete(workers).where(ne(workers.id, workerId));
  return released.length;
}

/** Removes workers silent for ten lease periods, so the table does not grow with restarts. */
export async function pruneWorkers(db: Database, leaseMs: number): Promise<void> {
  await db
    .delete(workers)
    .where(lt(workers.heartbeatAt, sql`now() - make_interval(secs => ${(leaseMs * 10) / 1000})`));
}

/** A server this worker holds, and its registration's version (its `updated_at`). */
export interface LeasedServer {
  serverId: number;
  updatedAt: Date;
}

/** What a tick needs to know before it touches a single lease. */
export interface RegistryState {
  /** Workers whose last beat is younger than the lease time, the caller included. */
  liveWorkers: number;
  enabled: number;
  /**
   * Changes whenever a server is added, removed, enabled, disabled or edited (its
   * `updated_at`): a sum of per-row hashes, so unlike max(updated_at) it also moves for an
   * edit whose transaction began before one already seen.
   */
  digest: string;
}

/** One statement, one row, whatever the number of servers. */
export async function registryState(db: Database, leaseMs: number): Promise<RegistryState> {
  const [row] = await db
    .select({
      liveWorkers: sql<number>`(select count(*)::int from ${workers} where ${workers.heartbeatAt} > now() - make_interval(secs => ${leaseMs / 1000}))`,
      enabled: sql<number>`(count(*) filter (where ${servers.enabled}))::int`,
      digest: sql<string>`concat_ws(':', count(*), sum(hashtext(concat_ws(':', ${servers.id}, ${servers.updatedAt}, ${servers.enabled}))))`,
    })
    .from(servers);
  return {
    liveWorkers: Math.max(1, row?.liveWorkers ?? 1),
    enabled: row?.enabled ?? 0,
    digest: row?.digest ?? '',
  };
}

export function fairShare(state: { liveWorkers: number; enabled: number }): number {
  return Math.ceil(state.enabled / Math.max(1, state.liveWorkers));
}

/**
 * Renews every lease of this worker in one statement and reads back each server's
 * version; lets go of disabled servers' leases (removed servers' went with their rows, on
 * delete cascade). A lease another worker took over (this one stalled past the lease
 * time) is not among those returned.
 */
export async function renewLeases(
  db: Database,
  workerId: string,
  leaseMs: number,
): Promise<LeasedServer[]> {
  const renewed = await db
    .update(workerLeases)
    .set({ expiresAt: expiryAfter(leaseMs) })
    .from(servers)
    .where(and(eq(workerLeases.workerId, workerId), eq(servers.id, workerLeases.serverId)))
    .returning({
      serverId: workerLeases.serverId,
      updatedAt: servers.updatedAt,
      enabled: servers.enabled,
    });
  const disabled = renewed.filter((row) => !row.enabled).map((row) => row.serverId);
  if (disabled.length > 0) await releaseLeases(db, workerId, disabled);
  return renewed
    .filter((row) => row.enabled)
    .map(({ serverId, updatedAt }) => ({ serverId, updatedAt }))
    .sort((a, b) => a.serverId - b.serverId);
}

export async function releaseLeases(
  db: Database,
  workerId: string,
  serverIds: number[],
): Promise<void> {
  if (serverIds.length === 0) return;
  await db
    .delete(workerLeases)
    .where(and(eq(workerLeases.workerId, workerId), inArray(workerLeases.serverId, serverIds)));
}

/**
 * One full round of lease keeping (the supervisor renews less often than it ticks, so
 * it calls the parts itself): renews, lets go of leases beyond the fair share, claims up
 * to it. Returns the servers this worker holds now, by id.
 */
export async function keepLeases(
  db: Database,
  workerId: string,
  options: { leaseMs: number; liveWorkers: number },
): Promise<LeasedServer[]> {
  const state = await registryState(db, options.leaseMs);
  const share = fairShare({ enabled: state.enabled, liveWorkers: options.liveWorkers });
  const held = await renewLeases(db, workerId, options.leaseMs);
  if (held.length > share) {
    await releaseLeases(
      db,
      workerId,
      held.slice(share).map((lease) => lease.serverId),
    );
    return held.slice(0, share);
  }
  if (held.length === share) return held;
  const claimed = await claimLeases(db, workerId, share - held.length, options.leaseMs);
  return [...held, ...claimed].sort((a, b) => a.serverId - b.serverId);
}

function expiryAfter(leaseMs: number): SQL {
  return sql`now() + make_interval(secs => ${leaseMs / 1000})`;
}

/**
 * Claims up to `count` free or expired leases of enabled servers, in one statement. Claims
 * race only with other claims, and the conditional upsert lets exactly one claimant win
 * a free or expired lease.
 */
export async function claimLeases(
  db: Database,
  workerId: string,
  count: number,
  leaseMs: number,
): Promise<LeasedServer[]> {
  const expiry = expiryAfter(leaseMs);
  const unheld = db
    // Every column, in the table's order: drizzle's insert-select requires it.
    .select({
      serverId: servers.id,
      workerId: sql<string>`${workerId}::text`.as('worker_id'),
      acquiredAt: sql<Date>`now()`.as('acquired_at'),
      expiresAt: sql<Date>`${expiry}`.as('expires_at'),
    })
    .from(servers)
    .where(
      and(
        eq(servers.enabled, true),
        notExists(
          db
            .select({ one: sql`1` })
            .from(workerLeases)
            .where(
              and(eq(workerLeases.serverId, servers.id), gt(workerLeases.expiresAt, sql`now()`)),
            ),
        ),
      ),
    )
    .orderBy(servers.id)
    .limit(count);
  const claimed = await db
    .insert(workerLeases)
    .select(unheld)
    .onConflictDoUpdate({
      target: workerLeases.serverId,
      set: { workerId, expiresAt: expiry, acquiredAt: sql`now()` },
      // Another worker's lease is taken over only once it has expired.
      setWhere: lt(workerLeases.expiresAt, sql`now()`),
    })
    .returning({ serverId: workerLeases.serverId });
  if (claimed.length === 0) return [];
  return db
    .select({ serverId: servers.id, updatedAt: servers.updatedAt })
    .from(servers)
    .where(
      inArray(
        servers.id,
        claimed.map((row) => row.serverId),
      ),
    );
}
