import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { baselines, changes, heldSessions, listings, observations, outages } from '../db/schema.js';
import type { Logger } from '../log.js';
import { sleep } from '../backoff.js';

/** Rows per statement: each statement is short, so recording never waits long behind one. */
export const PRUNE_BATCH = 500;

export interface PruneResult {
  runs: number;
  listings: number;
}

/** postgres.js answers execute() with an array of rows, PGlite with `{ rows }`. */
function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}

/**
 * Deletes one batch of observation runs last seen before `cutoff` that nothing refers to:
 * a run stays when a change points at it, when it is its server's latest run or first
 * successful one (where the server's history starts, see chainEnd), when it saw its
 * server's baseline listing, or when it is an error run of an open outage. Returns how
 * many went.
 */
export async function pruneRunsBatch(
  db: Database,
  cutoff: Date,
  limit = PRUNE_BATCH,
): Promise<number> {
  const rows = await db.execute(sql`delete from ${observations} where ${observations.id} in (
    select o.id from ${observations} as o
    where o.last_seen_at < ${cutoff.toISOString()}::timestamptz
      and not exists (select 1 from ${changes} where ${changes.observationId} = o.id)
      and o.id <> (select max(latest.id) from ${observations} as latest
        where latest.server_id = o.server_id)
      and o.id <> coalesce((select min(first.id) from ${observations} as first
        where first.server_id = o.server_id and first.outcome = 'ok'), 0)
      and not exists (select 1 from ${baselines} where ${baselines.serverId} = o.server_id
        and ${baselines.listingHash} = o.listing_hash)
      and not (o.outcome = 'error' and exists (select 1 from ${outages}
        where ${outages.serverId} = o.server_id and ${outages.upAt} is null
          and o.last_seen_at >= ${outages.downAt}))
    order by o.id limit ${limit}
  ) returning ${observations.id}`);
  return rowsOf<unknown>(rows).length;
}

/**
 * Deletes one batch of listing bodies stored before `cutoff` that no run, change, baseline
 * or held session refers to any more.
 */
export async function pruneListingsBatch(
  db: Database,
  cutoff: Date,
  limit = PRUNE_BATCH,
): Promise<number> {
  const rows = await db.execute(sql`delete from ${listings} where ${listings.hash} in (
    select l.hash from ${listings} as l
    where l.created_at < ${cutoff.toISOString()}::timestamptz
      and not exists (select 1 from ${observations} where ${observations.listingHash} = l.hash)
      and not exists (select 1 from ${changes}
        where ${changes.toHash} = l.hash or ${changes.fromHash} = l.hash)
      and not exists (select 1 from ${baselines} where ${baselines.listingHash} = l.hash)
      and not exists (select 1 from ${heldSessions} where ${heldSessions.listingHash} = l.hash)
    limit ${limit}
  ) returning ${listings.hash}`);
  return rowsOf<unknown>(rows).length;
}

/**
 * Prunes everything older than `historyDays`, a batch at a time, pausing between batches
 * (`pauseMs`) so that the recording of observations goes on in between; stops early when
 * `signal` aborts.
 */
export async function pruneHistory(
  db: Database,
  options: { historyDays: number; now?: Date; pauseMs?: number; signal?: AbortSignal },
): Promise<PruneResult> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - options.historyDays * 86_400_000);
  const signal = options.signal ?? new AbortController().signal;
  const pause = async () => (options.pauseMs ? sleep(options.pauseMs, signal) : true);
  const result: PruneResult = { runs: 0, listings: 0 };
  for (;;) {
    if (signal.aborted) return result;
    const n = await pruneRunsBatch(db, cutoff);
    result.runs += n;
    if (n < PRUNE_BATCH) break;
    await pause();
  }
  for (;;) {
    if (signal.aborted) return result;
    const n = await pruneListingsBatch(db, cutoff);
    result.listings += n;
    if (n < PRUNE_BATCH) break;
    await pause();
  }
  return result;
}

/**
 * serve's pruning loop: a pass soon after start, then every `intervalMs`. Off the hot path:
 * its own timer, batches of PRUNE_BATCH with pauses; a failed pass is logged and the loop
 * goes on. On PostgreSQL several workers may prune at once: deleting a row another has
 * deleted is a no-op.
 */
export class HistoryPruner {
  private readonly db: Database;
  private readonly logger: Logger;
  private readonly historyDays: number;
  private readonly intervalMs: number;
  private readonly firstDelayMs: number;
  private controller: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    db: Database,
    options: { logger: Logger; historyDays: number; intervalMs?: number; firstDelayMs?: number },
  ) {
    this.db = db;
    this.logger = options.logger;
    this.historyDays = options.historyDays;
    this.intervalMs = options.intervalMs ?? 3_600_000;
    this.firstDelayMs = options.firstDelayMs ?? 60_000;
  }

  start(): void {
    if (this.loop) return;
    const controller = (this.controller = new AbortController());
    this.loop = this.run(controller.signal);
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await this.loop;
    this.loop = undefined;
  }

  private async run(signal: AbortSignal): Promise<void> {
    let wait = this.firstDelayMs;
    while (await sleep(wait, signal)) {
      wait = this.intervalMs;
      try {
        const pruned = await pruneHistory(this.db, {
          historyDays: this.historyDays,
          pauseMs: 100,
          signal,
        });
        if (pruned.runs > 0 || pruned.listings > 0) {
          this.logger.info({ ...pruned, historyDays: this.historyDays }, 'pruned history');
        }
      } catch (error) {
        this.logger.warn({ err: error }, 'pruning history failed; trying again later');
      }
    }
  }
}
