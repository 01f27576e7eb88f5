import type { Database } from '../db/client.js';
import { PRUNE_BATCH, pruneListingsBatch, pruneRunsBatch } from '../listings/listings-repo.js';
import type { Logger } from '../log.js';
import { sleep } from '../backoff.js';

export interface PruneResult {
  runs: number;
  listings: number;
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
