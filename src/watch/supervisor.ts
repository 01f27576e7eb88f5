import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import type { Spawner } from '../mcp/index.js';
import { Loop } from '../loop.js';
import type { ServiceEvents } from '../service-events.js';
import { serversWithIds } from '../registry/servers-repo.js';
import {
  claimLeases,
  fairShare,
  forgetOtherWorkers,
  forgetWorker,
  heartbeat,
  pruneWorkers,
  registryState,
  releaseLeases,
  renewLeases,
  type LeasedServer,
  type WorkerIdentity,
} from './leases-repo.js';
import { clearConfigProblems } from './config-problems-repo.js';
import { forgetOtherWorkersSessions } from './held-sessions-repo.js';
import { Limiter } from './limiter.js';
import { ServerWatcher } from './server-watcher.js';

export interface SupervisorOptions {
  db: Database;
  config: Config;
  env: Environment;
  logger: Logger;
  /** Starts the watched stdio servers (the service's SpawnHelper); this process when unset. */
  spawn?: Spawner;
  /** How often the registry and the leases are re-read (edits apply within one tick). */
  tickMs?: number;
  /**
   * This is the only worker the database can have: the embedded one, which only the
   * process holding the home lock opens. Its first tick then takes over whatever another
   * worker left (a `serve` killed with SIGKILL) at once, instead of after the lease time.
   * Never on PostgreSQL, where the others may be alive.
   */
  soleWorker?: boolean;
  /**
   * Called when a burst of held-session starts (connect and startup listing) is over,
   * with how many there were: serve compacts its heap after a mass start.
   */
  onSessionBurst?: (sessions: number) => void;
  /** Where the watchers report what they record (service-events.ts). */
  events?: ServiceEvents;
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
  private readonly opens: Limiter;
  private readonly watchers = new Map<number, ServerWatcher>();
  /** The leases held after the last tick, by server id, with each registration's version. */
  private held: LeasedServer[] = [];
  private renewedAt = -Infinity;
  private renewedDigest: string | undefined;
  /** soleWorker: the other workers' leftovers have been cleared. */
  private tookOver = false;
  private readonly loop: Loop;

  constructor(options: SupervisorOptions) {
    this.options = options;
    this.tickMs = options.tickMs ?? 2_000;
    this.leaseMs = options.config.LEASE_SECONDS * 1000;
    this.limiter = new Limiter(options.config.PROBE_CONCURRENCY);
    // Its own cap, so that a round of scheduled probes does not hold up reconnects.
    this.opens = new Limiter(options.config.PROBE_CONCURRENCY, options.onSessionBurst);
    this.worker = {
      id: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
      hostname: hostname(),
      pid: process.pid,
    };
    this.loop = new Loop({
      pass: async () => {
        await this.tick();
        return this.tickMs;
      },
      onError: (error) => {
        this.options.logger.error({ err: error }, 'supervisor tick failed; retrying');
        return this.tickMs;
      },
    });
  }

  /** Servers this worker watches now, by id. */
  get watched(): number[] {
    return [...this.watchers.keys()].sort((a, b) => a - b);
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.all([...this.watchers.values()].map((watcher) => watcher.stop()));
    this.watchers.clear();
    // Let go at once rather than after the lease time, so another worker takes over now.
    await forgetWorker(this.options.db, this.worker.id).catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'could not release leases'),
    );
  }

  private async tick(): Promise<void> {
    const { db } = this.options;
    await heartbeat(db, this.worker);
    if (this.options.soleWorker && !this.tookOver) await this.takeOver();
    const leased = await this.keepLeases();
    if (this.loop.stopped) return;
    const version = new Map(leased.map((lease) => [lease.serverId, lease.updatedAt.getTime()]));

    const stale = [...this.watchers].filter(
      ([id, watcher]) => version.get(id) !== watcher.server.updatedAt.getTime(),
    );
    for (const [id] of stale) this.watchers.delete(id);
    // Together: letting go of half the servers to a new worker must not outlast the leases.
    await Promise.all(stale.map(([, watcher]) => watcher.stop()));
    // Whole registrations are read only for servers new to this worker or edited since.
    const toStart = leased.map((lease) => lease.serverId).filter((id) => !this.watchers.has(id));
    if (toStart.length === 0 || this.loop.stopped) return this.maybePrune();
    const rows = await serversWithIds(db, toStart);
    // Whatever an earlier watcher (maybe of a worker since gone) noted is for each new one to
    // say again: in one statement here, not one per server, for a start of thousands.
    await clearConfigProblems(db, toStart);
    for (const row of rows) {
      if (this.loop.stopped) break;
      const watcher = new ServerWatcher(row, {
        db,
        config: this.options.config,
        env: this.options.env,
        logger: this.options.logger,
        workerId: this.worker.id,
        limiter: this.limiter,
        opens: this.opens,
        graceMs: 2_000,
        spawn: this.options.spawn,
        events: this.options.events,
      });
      this.watchers.set(row.id, watcher);
      watcher.start();
    }
    await this.maybePrune();
  }

  /**
   * A tick that finds the registry as it was and no renewal due is two statements of one
   * row each (beat, registry state); the leases are renewed every third of the lease time,
   * and at once when the registry changed. On the embedded database every statement
   * waits for the one before it, whoever sent it: a tick that touched 1,000 rows every 2 s
   * held up the recording of every change behind it.
   */
  private async keepLeases(): Promise<LeasedServer[]> {
    const { db } = this.options;
    const id = this.worker.id;
    const state = await registryState(db, this.leaseMs);
    const now = performance.now();
    if (now - this.renewedAt >= this.leaseMs / 3 || state.digest !== this.renewedDigest) {
      this.held = await renewLeases(db, id, this.leaseMs);
      // Timed from before the statement: the leases run from when the database ran it.
      this.renewedAt = now;
      this.renewedDigest = state.digest;
    }
    const share = fairShare(state);
    if (this.held.length > share) {
      const excess = this.held.slice(share);
      await releaseLeases(
        db,
        id,
        excess.map((lease) => lease.serverId),
      );
      this.held = this.held.slice(0, share);
    } else if (this.held.length < share) {
      const claimed = await claimLeases(db, id, share - this.held.length, this.leaseMs);
      this.held = [...this.held, ...claimed].sort((a, b) => a.serverId - b.serverId);
    }
    return this.held;
  }

  /** soleWorker: a dead worker's leases and held sessions are let go of now, not on expiry. */
  private async takeOver(): Promise<void> {
    const { db } = this.options;
    const released = await forgetOtherWorkers(db, this.worker.id);
    await forgetOtherWorkersSessions(db, this.worker.id);
    this.tookOver = true;
    if (released > 0) {
      this.options.logger.info(
        { leases: released },
        'took over the leases a previous serve left on the embedded database',
      );
    }
  }

  private async maybePrune(): Promise<void> {
    if (Math.random() < 0.01) await pruneWorkers(this.options.db, this.leaseMs);
  }
}
