import type { Database } from '../db/client.js';
import { markDelivered } from '../alerts/deliveries-repo.js';

interface Waiting {
  headId: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Deliveries per statement at most, far below Postgres's parameter limit. */
const MAX_BATCH = 500;

/**
 * Records deliveries as delivered in batches, as a group commit does (the same pattern as
 * SightingBatcher): one on its own is written at once, and those that finish while that
 * statement is in flight go together in the next. Twenty sends in flight then cost a few
 * statements instead of twenty, which on the embedded database, where every statement
 * waits for the one before, is most of a channel's throughput. Each caller learns whether
 * its own row was written; if not, its claim runs out and it is sent again.
 */
export class DeliveredBatcher {
  private queue: Waiting[] = [];
  private flushing = false;

  constructor(private readonly db: Database) {}

  submit(headId: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ headId, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await markDelivered(
            this.db,
            batch.map((waiting) => waiting.headId),
          );
          for (const waiting of batch) waiting.resolve();
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
