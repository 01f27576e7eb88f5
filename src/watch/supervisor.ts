import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { inArray } from 'drizzle-orm';
import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import { servers } from '../db/schema.js';
import type { Logger } from '../log.js';
import {
  forgetWorker,
  heartbeat,
  keepLeases,
  liveWorkerCount,
  pruneWorkers,
  type WorkerIdentity,
} from './leases-repo.js';
import { Limiter } from './limiter.js';
import { ServerWatcher } from './server-watcher.js';

export interface SupervisorOptions {
  db: Database;
  config: Config;
  env: Environment;
  logger: Logger;
  /** How often the registry and the leases are re-read (edits apply within one tick). */
  tickMs?: number;
}

/**
 * The watch service of one `serve` process: every tick it beats, keeps its leases, and
 * makes its set of server watchers match the servers it leases and their registrations.
 * A failed tick is logged and the next one tries again; one bad server never stops it.
 */
export class Supervisor {
  readonly worker: WorkerIdentity;
  private readonly options: SupervisorOptions;
  private readonly tickMs: number;
  private readonly leaseMs: number;
  private readonly limiter: Limiter;
  private readonly watchers = new Map<number, ServerWatcher>();
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(options: SupervisorOptions) {
    this.options = options;
    this.tickMs = options.tickMs ?? 2_000;
    this.leaseMs = options.config.LEASE_SECONDS * 1000;
    this.limiter = new Limiter(options.config.PROBE_CONCURRENCY);
    this.worker = {
      id: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
      hostname: hostname(),
      pid: process.pid,
    };
  }

  /** Servers this worker watches now, by id. */
  get watched(): number[] {
    return [...this.watchers.keys()].sort((a, b) => a - b);
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    await Promise.all([...this.watchers.values()].map((watcher) => watcher.stop()));
    this.watchers.clear();
    // Let go at once rather than after the lease time, so another worker takes over now.
    await forgetWorker(this.options.db, this.worker.id).catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'could not release leases'),
    );
  }

  private async run(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        await this.tick();
      } catch (error) {
        this.options.logger.error({ err: error }, 'supervisor tick failed; retrying');
      }
      await sleep(this.tickMs, undefined, { signal: this.stopping.signal }).catch(() => {});
    }
  }

  private async tick(): Promise<void> {
    const { db } = this.options;
    await heartbeat(db, this.worker);
    const liveWorkers = await liveWorkerCount(db, this.leaseMs);
    const leased = await keepLeases(db, this.worker.id, { leaseMs: this.leaseMs, liveWorkers });
    if (this.stopping.signal.aborted) return;
    const rows =
      leased.length === 0 ? [] : await db.select().from(servers).where(inArray(servers.id, leased));
    const current = new Map(rows.map((row) => [row.id, row]));

    for (const [id, watcher] of this.watchers) {
      const row = current.get(id);
      if (!row || row.updatedAt.getTime() !== watcher.server.updatedAt.getTime()) {
        this.watchers.delete(id);
        await watcher.stop();
      }
    }
    for (const row of current.values()) {
      if (this.watchers.has(row.id) || this.stopping.signal.aborted) continue;
      const watcher = new ServerWatcher(row, {
        db,
        config: this.options.config,
        env: this.options.env,
        logger: this.options.logger,
        workerId: this.worker.id,
        limiter: this.limiter,
        graceMs: 2_000,
      });
      this.watchers.set(row.id, watcher);
      watcher.start();
    }
    if (Math.random() < 0.01) await pruneWorkers(db, this.leaseMs);
  }
}
