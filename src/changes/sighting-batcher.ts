import type { Database } from '../db/client.js';
import { dataException } from '../db/sql-errors.js';
import type { ObservationRow } from '../listings/listings-repo.js';
import { countAttempts } from '../listings/observation-counts-repo.js';
import { extendLatestRuns, type RunAttempt } from './changes-repo.js';

interface Waiting {
  row: RunAttempt;
  resolve: (written: ObservationRow | undefined) => void;
  reject: (error: unknown) => void;
}

/** Rows per statement at most: a statement's parameters stay far below Postgres's 65,535. */
const MAX_ROWS = 200;

/**
 * Folds unchanged observations ("sightings") into their runs in batches, the way a database's group
 * commit does: one on its own is written at once, and those that arrive while a statement
 * is in flight go together in the next. Under load (a probe cycle of 1,000 servers, a
 * burst of re-lists) that makes a few statements instead of one each, and on the embedded
 * database, where every statement waits for the one before, a few waits instead of many.
 */
export class SightingBatcher {
  private readonly db: Database;
  private queue: Waiting[] = [];
  private flushing = false;

  constructor(db: Database) {
    this.db = db;
  }

  /** The run extended, or undefined when the server's latest run has another outcome. */
  submit(row: RunAttempt): Promise<ObservationRow | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        try {
          await this.write(batch);
        } catch (error) {
          if (batch.length === 1 || !dataException(error)) {
            // Unreachable database, or the only row: every caller hears it at once.
            for (const waiting of batch) waiting.reject(error);
            continue;
          }
          // One bad row (say, a server name Postgres cannot store) fails the statement:
          // each is written on its own then, so that it fails alone, not its batch-mates.
          for (const waiting of batch) {
            await this.write([waiting]).catch((rowError: unknown) => waiting.reject(rowError));
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    const rows = batch.map((waiting) => waiting.row);
    // The runs and the counters /metrics reads instead of counting history, in one
    // transaction: a scrape never sees an attempt in a run and not counted, or the reverse.
    const written = await this.db.transaction(async (tx) => {
      const extended = await extendLatestRuns(tx, rows);
      const servers = new Set(extended.map((row) => row.serverId));
      await countAttempts(
        tx,
        rows.filter((row) => servers.has(row.serverId)),
      );
      return extended;
    });
    const byServer = new Map(written.map((row) => [row.serverId, row]));
    for (const waiting of batch) waiting.resolve(byServer.get(waiting.row.serverId));
  }

  /** Up to MAX_ROWS, one per server (rows are told apart by server); the rest wait. */
  private takeBatch(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const servers = new Set<number>();
    for (const waiting of this.queue) {
      if (batch.length < MAX_ROWS && !servers.has(waiting.row.serverId)) {
        servers.add(waiting.row.serverId);
        batch.push(waiting);
      } else {
        rest.push(waiting);
      }
    }
    this.queue = rest;
    return batch;
  }
}
