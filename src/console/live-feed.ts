import type { SQL } from 'drizzle-orm';
import { alertsVersion } from '../alerts/alerts-repo.js';
import { deliveriesVersion } from '../alerts/deliveries-repo.js';
import { actionsVersion } from '../audit/operator-actions-repo.js';
import { changesVersion } from '../changes/changes-repo.js';
import type { Database } from '../db/client.js';
import { selectScalars } from '../db/select-scalars.js';
import { withTimeLimit } from '../time-limit.js';
import { baselinesVersion } from '../listings/listings-repo.js';
import { observationsVersion } from '../listings/observation-counts-repo.js';
import type { Logger } from '../log.js';
import { Loop } from '../loop.js';
import { serversVersion } from '../registry/servers-repo.js';
import { configProblemsVersion } from '../watch/config-problems-repo.js';
import { heldSessionsVersion } from '../watch/held-sessions-repo.js';
import { outagesVersion } from '../watch/outages-repo.js';

/*
 * Live updates for open console pages. The feed polls the database once a second for a
 * handful of values that move when something the pages show moves (the latest change and
 * observation ids, digests of the small tables), one statement of index lookups and small
 * scans, and tells every open page's event stream which kinds moved.
 *
 * Polling rather than LISTEN/NOTIFY: the embedded PGlite is single-process and has no
 * notifications between connections, and on PostgreSQL every writer (each serve, each CLI
 * command, `check` in CI) would have to notify; a poll sees every writer, on both backends,
 * at the cost of one cheap statement a second. See docs/console.md.
 */

export const LIVE_KINDS = [
  'changes',
  'observations',
  'alerts',
  'deliveries',
  'outages',
  'problems',
  'sessions',
  'servers',
  'baselines',
  'actions',
] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];

export interface LiveUpdate {
  /** Bumped on every move; a page rendered at an older revision is out of date. */
  revision: number;
  kinds: LiveKind[];
}

type Listener = (update: LiveUpdate) => void;

const VERSIONS: Record<LiveKind, SQL> = {
  changes: changesVersion,
  observations: observationsVersion,
  alerts: alertsVersion,
  deliveries: deliveriesVersion,
  outages: outagesVersion,
  problems: configProblemsVersion,
  sessions: heldSessionsVersion,
  servers: serversVersion,
  baselines: baselinesVersion,
  actions: actionsVersion,
};

export class LiveFeed {
  private readonly db: Database;
  private readonly logger: Logger;
  private readonly intervalMs: number;
  private readonly listeners = new Set<Listener>();
  private readonly streams = new Set<() => void>();
  private readonly pollWaiters: (() => void)[] = [];
  private versions: Record<string, string> | undefined;
  private loop: Loop | undefined;
  private failing = false;
  /** Pages carry the revision they were rendered at. */
  revision = 0;

  constructor(db: Database, options: { logger: Logger; intervalMs?: number }) {
    this.db = db;
    this.logger = options.logger;
    this.intervalMs = options.intervalMs ?? 1_000;
  }

  start(): void {
    if (this.loop) return;
    // tick() catches its own failures; onError is only the loop's contract.
    this.loop = new Loop({
      pass: async () => {
        await this.tick();
        return this.intervalMs;
      },
      onError: () => this.intervalMs,
    });
    this.loop.start();
  }

  /** Idempotent; ends every open event stream, so that shutdown waits on none. */
  stop(): void {
    // A poll in flight ends within its time limit; nothing waits for it.
    void this.loop?.stop();
    for (const close of this.streams) close();
    this.listeners.clear();
  }

  /** Resolves once the next poll has read the database (or failed to). */
  nextPoll(): Promise<void> {
    return new Promise((resolve) => this.pollWaiters.push(resolve));
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A page's event stream (text/event-stream): an `update` event with the revision and the
   * kinds that moved, each time something moves; at once when the page was rendered at an
   * older revision than the feed's (`since`), so nothing recorded in between is missed. A
   * comment every 15 s keeps proxies from closing it and finds dead connections.
   */
  eventStream(since: number | undefined): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    let end = () => {};
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        const send = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            end();
          }
        };
        const push = (update: LiveUpdate) =>
          send(`event: update\ndata: ${JSON.stringify(update)}\n\n`);
        const unsubscribe = this.subscribe(push);
        const heartbeat = setInterval(() => send(': keep-alive\n\n'), 15_000);
        end = () => {
          unsubscribe();
          clearInterval(heartbeat);
          this.streams.delete(close);
        };
        const close = () => {
          end();
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        this.streams.add(close);
        send('retry: 3000\n\n');
        if (since !== undefined && this.revision > since) {
          push({ revision: this.revision, kinds: [...LIVE_KINDS] });
        }
      },
      cancel: () => end(),
    });
  }

  /** One poll; a failure (a database outage) is logged once and the next poll tries again. */
  private async tick(): Promise<void> {
    try {
      // A database that hangs must not hold the poll (and a connection) for good.
      const current = await withTimeLimit(this.read(), 5_000, "reading the console's live state");
      if (this.failing) this.logger.info('console live updates read the database again');
      this.failing = false;
      if (this.versions) {
        const moved = LIVE_KINDS.filter((kind) => current[kind] !== this.versions![kind]);
        if (moved.length > 0) {
          this.revision += 1;
          const update = { revision: this.revision, kinds: moved };
          for (const listener of this.listeners) listener(update);
        }
      }
      this.versions = current;
    } catch (error) {
      if (!this.failing) {
        this.logger.warn({ err: error }, 'console live updates cannot read the database');
      }
      this.failing = true;
    }
    for (const resolve of this.pollWaiters.splice(0)) resolve();
  }

  private async read(): Promise<Record<string, string>> {
    const row = await selectScalars(this.db, VERSIONS);
    return Object.fromEntries(LIVE_KINDS.map((kind) => [kind, String(row[kind] ?? '')]));
  }
}
