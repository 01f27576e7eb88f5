import { createTask, schedule, type ScheduledTask } from 'node-cron';
import { alertPolicyOf } from '../alerts/alert-policy.js';
import { changeHeadline } from '../alerts/alert-view.js';
import { findingRowOf } from '../alerts/finding-row.js';
import { connectSpecOf, probeOptionsOf } from '../changes/observe-server.js';
import { recordObservation, type RecordedObservation } from '../changes/record-observation.js';
import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import type { ServerRow } from '../db/schema.js';
import type { DeliveryContext } from '../diff/index.js';
import { canonicalListing, extrasOf } from '../listings/canonical.js';
import type { Logger } from '../log.js';
import { sleep } from '../loop.js';
import { clockTime } from '../log-pretty.js';
import {
  probeAsEach,
  unresolvableReferences,
  type OAuthTokenStore,
  type ProbeResult,
  type Spawner,
} from '../mcp/index.js';
import type { ServiceEvents } from '../service-events.js';
import { clearConfigProblem, noteConfigProblem } from './config-problems-repo.js';
import { FailureStreak } from './failure-streak.js';
import { HeldSession } from './held-session.js';
import { forgetHeldSession, noteHeldSession } from './held-sessions-repo.js';
import type { Limiter } from './limiter.js';
import { markDown, markNeedsLogin, markUp } from './outages-repo.js';
import { loginTokenStore } from '../registry/oauth-token-store.js';
import { oauthStatus } from '../registry/oauth-tokens-repo.js';

export interface WatcherDeps {
  db: Database;
  config: Config;
  env: Environment;
  logger: Logger;
  workerId: string;
  /** Fresh probes: a slot covers the network part (connect, list, close) only. */
  limiter: Limiter;
  /** Held sessions' connection attempts and startup listings (see HeldSessionOptions). */
  opens?: Limiter;
  /** How long a probe that sees a new listing waits for the held session's notification. */
  graceMs: number;
  /** Starts stdio servers (the service's SpawnHelper); this process when unset. */
  spawn?: Spawner;
  /** Where the service reports observations, changes and held sessions (service-events.ts). */
  events?: ServiceEvents;
}

/** Probes of servers sharing a schedule are spread over up to this much. */
const MAX_PROBE_JITTER_MS = 5_000;

/**
 * The random delay of each probe: up to 5 s, and never more than a quarter of the
 * schedule's shortest period. node-cron counts the delay as part of the run, so with a
 * 3 s schedule a 5 s delay made the next run skip (noOverlap): gaps of up to 8 s.
 */
export function probeJitterMs(expression: string): number {
  const task = createTask(expression, () => {});
  try {
    const runs = task.getNextRuns(6).map((run) => run.getTime());
    let period = Infinity;
    for (let i = 1; i < runs.length; i++) period = Math.min(period, runs[i]! - runs[i - 1]!);
    return Math.max(0, Math.min(MAX_PROBE_JITTER_MS, Math.floor(period / 4)));
  } finally {
    void task.destroy();
  }
}

/** Design §2: http and sse servers are held; stdio servers only with --hold. */
export function isHeld(server: ServerRow): boolean {
  return server.transport !== 'stdio' || server.hold;
}

/**
 * Watches one server for as long as this worker holds its lease: a held session that
 * re-lists when the server says its tools changed, and fresh probes on the server's cron
 * schedule that see what a newly connecting host sees. A probe that sees a listing the held
 * session was never told about is a silent change.
 */
export class ServerWatcher {
  readonly server: ServerRow;
  private readonly deps: WatcherDeps;
  private readonly log: Logger;
  private readonly stopping = new AbortController();
  private task: ScheduledTask | undefined;
  private held: HeldSession | undefined;
  private probing: Promise<void> | undefined;
  private readonly failures = new FailureStreak();
  /** Noting the server's configuration problem (set when it has one), which stop() waits for. */
  private noting: Promise<unknown> | undefined;
  /** A server watched with a person's login: its tokens, shared by probes and the held session. */
  private oauthTokens: OAuthTokenStore | undefined;

  constructor(server: ServerRow, deps: WatcherDeps) {
    this.server = server;
    this.deps = deps;
    this.log = deps.logger.child({ server: server.name });
  }

  /**
   * The refusal that puts the server in `needs_login` (once, whichever connection met it):
   * an outage of kind `auth`. Connections then fail before sending anything until a login
   * (which restarts this watcher) or an edit.
   */
  private async onNeedsLogin(): Promise<void> {
    const reason = `login needed for ${this.server.name}: run \`mcp-drift server login ${this.server.name}\``;
    this.log.warn({ headline: reason }, 'login needed');
    await this.safely('mark needs_login', () =>
      markNeedsLogin(this.deps.db, this.server.id, new Date(), reason),
    );
    this.deps.events?.emit('login-needed', { serverId: this.server.id, server: this.server.name });
  }

  start(): void {
    // A problem an earlier watcher noted was cleared by the supervisor before this start.
    if (this.idleIfMisconfigured()) return;
    this.oauthTokens = loginTokenStore(this.deps.db, this.deps.config, this.server, {
      onNeedsLogin: () => this.onNeedsLogin(),
    });
    const expression = this.server.schedule ?? this.deps.config.DEFAULT_SCHEDULE;
    this.task = schedule(expression, () => this.probeNow('poll'), {
      name: `probe ${this.server.name}`,
      noOverlap: true,
      // Spread the probes of servers sharing a schedule over a few seconds.
      maxRandomDelay: probeJitterMs(expression),
    });
    if (isHeld(this.server)) {
      this.held = new HeldSession(
        {
          spec: connectSpecOf(this.server),
          ...probeOptionsOf(this.deps.config, this.deps.env, undefined, this.oauthTokens),
          spawn: this.deps.spawn,
          logger: this.log,
          opens: this.deps.opens,
        },
        {
          onListing: (result, trigger, at) => this.onHeldListing(result, trigger, at),
          onDown: (reason, at) => {
            this.deps.events?.emit('session-lost', {
              serverId: this.server.id,
              server: this.server.name,
              reason,
            });
            void this.safely('mark down', () => this.markDown(at, reason));
          },
          onUp: (at) => void this.safely('mark up', () => markUp(this.deps.db, this.server.id, at)),
        },
      );
      this.held.start();
    } else {
      void this.probeNow('startup');
    }
    this.log.info({ schedule: expression, held: this.held !== undefined }, 'watching');
  }

  async stop(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    await this.task?.destroy();
    await Promise.all([this.held?.stop(), this.probing]);
    await this.safely('forget held session', () => forgetHeldSession(this.deps.db, this.server.id));
    if (this.noting) {
      // The next watcher of this server (an edited registration, another worker) decides anew.
      await this.noting;
      await this.safely('clear configuration problem', () =>
        clearConfigProblem(this.deps.db, this.server.id),
      );
    }
    this.log.info('stopped watching');
  }

  /**
   * A registration whose `${VAR}` references this service's environment cannot resolve is
   * not watched: every connection would fail the same way until the registration is edited
   * (a new watcher) or serve restarts with the variable set, since the environment is read
   * once. Probing it would record an outage and a warning every tick; instead the problem is
   * noted once, for server list and the console to show, and the watcher stays idle.
   */
  private idleIfMisconfigured(): boolean {
    const unresolvable = unresolvableReferences(connectSpecOf(this.server), this.deps.env);
    if (!unresolvable) return false;
    // Names only: an unset variable has no value, and the others are none of the log's business.
    this.log.warn(
      { variables: unresolvable.variables },
      `not watching ${this.server.name}: ${unresolvable.problem}`,
    );
    this.noting = this.safely('note configuration problem', () =>
      noteConfigProblem(this.deps.db, {
        serverId: this.server.id,
        problem: unresolvable.problem,
        workerId: this.deps.workerId,
        at: new Date(),
      }),
    );
    return true;
  }

  /** An outage of kind `auth` while the server waits for a login, else of kind `connection`. */
  private async markDown(at: Date, reason: string): Promise<void> {
    const waiting =
      this.oauthTokens !== undefined &&
      (await oauthStatus(this.deps.db, this.server.id))?.state === 'needs_login';
    if (waiting) await markNeedsLogin(this.deps.db, this.server.id, at, reason);
    else await markDown(this.deps.db, this.server.id, at, reason);
  }

  /** A fresh probe, as a newly connecting host; at most one at a time per server. */
  probeNow(trigger: 'poll' | 'startup'): Promise<void> {
    if (this.stopping.signal.aborted || this.probing) return this.probing ?? Promise.resolve();
    this.probing = this.probeOnce(trigger)
      .catch((error: unknown) => {
        // stop() aborts a probe still waiting for its slot: not a failure.
        if (!this.stopping.signal.aborted) this.log.error({ err: error }, 'probe failed');
      })
      .finally(() => (this.probing = undefined));
    return this.probing;
  }

  private async probeOnce(trigger: 'poll' | 'startup'): Promise<void> {
    if (this.stopping.signal.aborted) return;
    let startedAt = new Date();
    // The slot bounds connections and listings in flight; recording, and the grace wait for
    // a notification, happen after it is released, so they never hold up other probes.
    const result = await this.deps.limiter.run(() => {
      startedAt = new Date();
      return probeAsEach(
        connectSpecOf(this.server),
        {
          ...probeOptionsOf(
            this.deps.config,
            this.deps.env,
            this.stopping.signal,
            this.oauthTokens,
          ),
          spawn: this.deps.spawn,
        },
        this.server.alsoAs,
      );
    }, this.stopping.signal);
    if (this.stopping.signal.aborted) return;
    const delivery = result.ok ? await this.deliveryFor(result, startedAt) : undefined;
    if (this.stopping.signal.aborted) return;
    await this.record(result, trigger, startedAt, delivery);
    if (!this.held) {
      if (result.ok) await markUp(this.deps.db, this.server.id, new Date());
      else await this.markDown(startedAt, result.reason);
    }
  }

  /**
   * What a long-lived host session was told about the listing this probe sees. A held
   * session that holds another listing gets the grace period to receive its notification;
   * without one, hosts are gating on stale values.
   */
  private async deliveryFor(
    result: Extract<ProbeResult, { ok: true }>,
    startedAt: Date,
  ): Promise<DeliveryContext | undefined> {
    const advertised = result.capabilities?.tools?.listChanged === true;
    const held = this.held;
    if (!held) {
      // Nobody holds a session, so a notification cannot be observed; a server that does not
      // even advertise one leaves hosts to learn of changes only when they reconnect.
      return advertised ? undefined : { listChangedAdvertised: false, notificationSeen: false };
    }
    if (held.state !== 'up' || held.currentHash === null) return undefined;
    const seen = canonicalListing(result.tools, extrasOf(result)).hash;
    if (seen === held.currentHash) return undefined;
    await sleep(this.deps.graceMs, this.stopping.signal);
    const advertisedByHeld = held.listChangedAdvertised ?? advertised;
    // A notification during the grace period (or just before the probe) means hosts were
    // told: the probe may record the change before the session's re-list does.
    const notified =
      (held.lastNotificationAt?.getTime() ?? 0) >= startedAt.getTime() - this.deps.graceMs;
    return { listChangedAdvertised: advertisedByHeld, notificationSeen: notified };
  }

  private async onHeldListing(
    result: ProbeResult,
    trigger: 'startup' | 'notification',
    at: Date,
  ): Promise<void> {
    if (this.stopping.signal.aborted) return;
    const held = this.held;
    const delivery: DeliveryContext | undefined =
      trigger === 'notification' && held
        ? { listChangedAdvertised: held.listChangedAdvertised ?? true, notificationSeen: true }
        : undefined;
    const recorded = await this.record(result, trigger, at, delivery);
    if (!recorded || !held) return;
    await this.safely('note held session', () =>
      noteHeldSession(this.deps.db, {
        serverId: this.server.id,
        workerId: this.deps.workerId,
        listingHash: recorded.listing?.hash ?? null,
        listedAt: at,
        lastNotificationAt: held.lastNotificationAt,
        listChangedAdvertised: held.listChangedAdvertised,
      }),
    );
    this.deps.events?.emit('session-held', { serverId: this.server.id, server: this.server.name });
  }

  private async record(
    result: ProbeResult,
    trigger: 'poll' | 'startup' | 'notification',
    startedAt: Date,
    delivery: DeliveryContext | undefined,
  ): Promise<RecordedObservation | undefined> {
    return this.safely(`record ${trigger} observation`, async () => {
      const recorded = await recordObservation(this.deps.db, {
        server: this.server,
        result,
        trigger,
        startedAt,
        workerId: this.deps.workerId,
        delivery,
        alerts: alertPolicyOf(this.deps.config),
      });
      // recordObservation stored a newly learned era without touching updated_at (so this
      // watcher goes on); our copy must learn it too, or every observation writes it again.
      if (result.era) this.server.protocolEra = result.era;
      if (recorded.change) {
        const { row, diff } = recorded.change;
        this.log.warn(
          {
            change: row.id,
            severity: row.severity,
            findings: diff.findings.length,
            trigger,
            headline: `${changeHeadline(this.server.name, row, diff.findings.map(findingRowOf))} — change #${row.id}`,
          },
          'listing changed',
        );
      } else if (!result.ok) {
        this.logFailure(trigger, result, startedAt);
      }
      if (result.ok) this.logRecovery();
      this.emitRecorded(recorded, result, trigger);
      return recorded;
    });
  }

  private emitRecorded(
    recorded: RecordedObservation,
    result: ProbeResult,
    trigger: 'poll' | 'startup' | 'notification',
  ): void {
    const events = this.deps.events;
    if (!events) return;
    const server = { serverId: this.server.id, server: this.server.name };
    const change = recorded.change;
    if (change) {
      events.emit('change-recorded', {
        ...server,
        changeId: change.row.id,
        severity: change.row.severity,
        findings: change.diff.findings.length,
        trigger,
      });
    }
    events.emit('observation-recorded', {
      ...server,
      trigger,
      ok: result.ok,
      listingHash: recorded.listing?.hash ?? null,
      changeId: change?.row.id ?? null,
    });
  }

  /** The first of identical failures, then a summary now and then (failure-streak.ts). */
  private logFailure(trigger: string, result: Extract<ProbeResult, { ok: false }>, at: Date): void {
    const event = this.failures.failed(`${result.code}\n${result.reason}`, at);
    if (event?.kind === 'first') {
      this.log.warn({ trigger, code: result.code, reason: result.reason }, 'listing failed');
    } else if (event?.kind === 'still') {
      this.log.warn(
        {
          trigger,
          code: result.code,
          reason: result.reason,
          failures: event.failures,
          since: event.since.toISOString(),
          headline: `${this.server.name}: still failing ×${event.failures} since ${clockTime(event.since)}: ${result.reason}`,
        },
        'listing still failing',
      );
    }
  }

  private logRecovery(): void {
    const event = this.failures.succeeded();
    if (event?.kind !== 'recovered') return;
    this.log.info(
      {
        failures: event.failures,
        since: event.since.toISOString(),
        headline: `${this.server.name}: listing again after ${event.failures} failed ${event.failures === 1 ? 'attempt' : 'attempts'} since ${clockTime(event.since)}`,
      },
      'listing recovered',
    );
  }

  /** A background loop logs a failure and keeps going (house style). */
  private async safely<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      this.log.error({ err: error }, `${what} failed`);
      return undefined;
    }
  }
}
