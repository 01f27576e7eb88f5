import { and, eq, gt, inArray, lt, notInArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { servers, workerLeases, workers } from '../db/schema.js';

/*
 * Workers split the enabled servers through leases (design §10). Every tick a worker beats,
 * renews its leases, lets go of those beyond its fair share, and claims free or expired
 * ones up to it. A worker killed with SIGKILL stops renewing; its leases expire and the
 * others claim them. The lease row's primary key is the server, so a server has at most
 * one holder at any moment.
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

/** Removes workers silent for ten lease periods, so the table does not grow with restarts. */
export async function pruneWorkers(db: Database, leaseMs: number): Promise<void> {
  await db
    .delete(workers)
    .where(lt(workers.heartbeatAt, sql`now() - make_interval(secs => ${(leaseMs * 10) / 1000})`));
}

/**
 * One round of lease keeping; returns the ids of the servers this worker holds now.
 * Each statement is atomic on its own; claims race only with other claims, and the
 * conditional upsert lets exactly one claimant win a free or expired lease.
 */
export async function keepLeases(
  db: Database,
  workerId: string,
  options: { leaseMs: number; liveWorkers: number },
): Promise<number[]> {
  const expiry = sql`now() + make_interval(secs => ${options.leaseMs / 1000})`;
  const enabled = await db
    .select({ id: servers.id })
    .from(servers)
    .where(eq(servers.enabled, true));
  const enabledIds = enabled.map((row) => row.id);
  // Servers removed or disabled: nobody should hold them.
  await db
    .delete(workerLeases)
    .where(
      enabledIds.length === 0
        ? eq(workerLeases.workerId, workerId)
        : and(eq(workerLeases.workerId, workerId), notInArray(workerLeases.serverId, enabledIds)),
    );
  if (enabledIds.length === 0) return [];

  const renewed = await db
    .update(workerLeases)
    .set({ expiresAt: expiry })
    .where(eq(workerLeases.workerId, workerId))
    .returning({ serverId: workerLeases.serverId });
  let held = renewed.map((row) => row.serverId).sort((a, b) => a - b);

  const fairShare = Math.ceil(enabledIds.length / Math.max(1, options.liveWorkers));
  if (held.length > fairShare) {
    const excess = held.slice(fairShare);
    await db
      .delete(workerLeases)
      .where(and(eq(workerLeases.workerId, workerId), inArray(workerLeases.serverId, excess)));
    held = held.slice(0, fairShare);
  } else if (held.length < fairShare) {
    const taken = await db
      .select({ serverId: workerLeases.serverId })
      .from(workerLeases)
      .where(gt(workerLeases.expiresAt, sql`now()`));
    const takenIds = new Set(taken.map((row) => row.serverId));
    const candidates = enabledIds.filter((id) => !takenIds.has(id) && !held.includes(id));
    for (const serverId of candidates.slice(0, fairShare - held.length)) {
      const [claimed] = await db
        .insert(workerLeases)
        .values({ serverId, workerId, expiresAt: expiry })
        .onConflictDoUpdate({
          target: workerLeases.serverId,
          set: { workerId, expiresAt: expiry, acquiredAt: sql`now()` },
          setWhere: lt(workerLeases.expiresAt, sql`now()`),
        })
        .returning({ serverId: workerLeases.serverId });
      if (claimed) held.push(claimed.serverId);
    }
  }
  return held.sort((a, b) => a - b);
}
