import type { Database } from '../db/client.js';
import { PRUNE_BATCH, pruneListingsBatch, pruneRunsBatch } from '../listings/listings-repo.js';
import type { Logger } from '../log.js';
import { Loop, sleep } from '../loop.js';

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
  private readonly loop: Loop;

  constructor(
    db: Database,
    options: { logger: Logger; historyDays: number; intervalMs?: number; firstDelayMs?: number },
  ) {
    const { logger, historyDays } = options;
    const intervalMs = options.intervalMs ?? 3_600_000;
    this.loop = new Loop({
      firstDelayMs: options.firstDelayMs ?? 60_000,
      // Workers started together on one PostgreSQL need not all prune in the same minute.
      jitter: 0.1,
      pass: async (signal) => {
        const pruned = await pruneHistory(db, { historyDays, pauseMs: 100, signal });
        if (pruned.runs > 0 || pruned.listings > 0) {
          logger.info({ ...pruned, historyDays }, 'pruned history');
        }
        return intervalMs;
      },
      onError: (error) => {
        logger.warn({ err: error }, 'pruning history failed; trying again later');
        return intervalMs;
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
