import { ProtocolError, SdkHttpError } from '@modelcontextprotocol/client';
import { DriftError } from '../errors.js';
import { canonicalListing, extrasOf } from '../listings/canonical.js';
import type { Logger } from '../log.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  openSession,
  type ConnectSpec,
  type EnvironmentMap,
  type Era,
  type ListingCaps,
  type ProbeResult,
  type Spawner,
} from '../mcp/index.js';
import { backoffDelay, type BackoffOptions } from '../backoff.js';
import { sleep } from '../loop.js';
import { HeldConnection, type HeldListingTrigger } from './held-connection.js';
import { describeLoss, failedListing, listingResult } from './held-session-results.js';
import type { Limiter } from './limiter.js';
import type { OAuthTokenStore } from '../mcp/index.js';

export type { HeldListingTrigger };

export interface HeldSessionOptions {
  spec: ConnectSpec;
  env: EnvironmentMap;
  /** A server a person logged in to: its stored tokens (docs/oauth.md). */
  oauthTokens?: OAuthTokenStore;
  /** Per request: connect, each listing page, each liveness check. */
  timeoutMs?: number;
  caps?: Partial<ListingCaps>;
  /** stdio: who starts the server's process (the service's SpawnHelper). */
  spawn?: Spawner;
  /**
   * The first change notification re-lists at once; later ones until this quiet time has
   * passed (a burst) give at most one more re-list, after it. Default 300.
   */
  debounceMs?: number;
  /**
   * How often an idle session is checked (ping; `server/discover` on 2026), on average:
   * each wait is drawn from 0.75–1.25 times this. Default 30 000: see
   * docs/watch-service.md for what a ping costs at 1,000 sessions.
   */
  pingIntervalMs?: number;
  /**
   * Reconnect delays: jittered exponential, reset only after a session proved itself: it
   * listed, and stayed up for `stableMs` (default 30 000). A server that answers the
   * handshake and then fails every request (HTTP 401, a stdio server that exits on
   * tools/list) was otherwise reconnected about once a second forever.
   */
  backoff?: { initialMs?: number; maxMs?: number; stableMs?: number };
  /**
   * More change notifications than `count` within `windowMs` (default 1,000 in 10 s) is a
   * flood: it is recorded as a failed listing and the session dropped (and reconnected
   * with backoff). Each notification short of it costs a counter and a timestamp.
   */
  flood?: { count?: number; windowMs?: number };
  /**
   * Shared by the sessions of one service: a slot covers a connection attempt and the
   * startup listing that follows, up to its delivery. Without it, a worker taking on
   * 1,000 servers opens 1,000 connections at once.
   */
  opens?: Limiter;
  logger: Logger;
}

export interface HeldSessionListener {
  /**
   * A complete listing taken on this session: after each (re)connect ('startup') and after
   * change notifications ('notification'). A failed re-list comes as a ProbeFailure; never
   * as an empty listing. Awaited: listings are delivered one at a time, in order.
   *
   * On 2026 servers a listing taken because a dropped `subscriptions/listen` stream was
   * re-opened is a 'startup' listing too: no notification said anything changed.
   */
  onListing(result: ProbeResult, trigger: HeldListingTrigger, at: Date): Promise<void>;
  /** Each change notification as it arrives (before debouncing). */
  onNotification?(at: Date): void;
  /**
   * The session was lost, or could not be established. Once per loss: failed reconnects
   * while down do not repeat it, nor do sessions that connect and fail before they list.
   */
  onDown?(reason: string, at: Date): void;
  /**
   * A session listed successfully, for the first time since it connected (the first one
   * too); that listing is delivered right after. A server that accepts the handshake but
   * cannot be listed is not up.
   */
  onUp?(at: Date): void;
}

export type HeldSessionState = 'idle' | 'connecting' | 'up' | 'down' | 'stopped';

const DEFAULT_DEBOUNCE_MS = 300;
const DEFAULT_PING_INTERVAL_MS = 30_000;
const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1_000, maxMs: 60_000 };
/** How long a session that listed must stay up before the backoff starts again from 1 s. */
const DEFAULT_STABLE_MS = 30_000;
const DEFAULT_FLOOD = { count: 1_000, windowMs: 10_000 };
/** A continuous stream of notifications still gets a re-list this often (in debounce units). */
const MAX_DEBOUNCE_FACTOR = 10;
/** Each ping wait is the interval times 1 ± this, so that sessions opened together drift apart. */
const PING_JITTER = 0.25;
/** Long enough for a stdio server to flush and exit on EOF; stop() must stay short. */
const CLOSE_GRACE_MS = 1_000;

/**
 * A long-lived session that behaves like a host (docs/design.md §2): it lists once per connection,
 * keeps that listing, and re-lists only when the server says its tools changed: unsolicited
 * `notifications/tools/list_changed` on 2025-era connections (on the GET stream over
 * Streamable HTTP), a `subscriptions/listen` stream on 2026-07-28 connections. It detects
 * a dead session (transport errors and close, a failing periodic ping, HTTP 404 for an
 * expired session, a re-subscription that fails) and reconnects with jittered exponential
 * backoff. A server that is down yields onDown, never a listing.
 */
export class HeldSession {
  private readonly options: HeldSessionOptions;
  private readonly listener: HeldSessionListener;
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly debounceMs: number;
  private readonly pingIntervalMs: number;
  private readonly backoff: BackoffOptions;
  private readonly stableMs: number;
  private readonly flood: { count: number; windowMs: number };
  private readonly stopping = new AbortController();
  private current: HeldConnection | undefined;
  private loop: Promise<void> | undefined;
  private deliveries: Promise<void> = Promise.resolve();
  private stateValue: HeldSessionState = 'idle';
  private learnedEra: Era | null = null;
  private advertised: boolean | null = null;
  /** Epoch ms of the latest change notification: a number, since a flood sets it often. */
  private notifiedAtMs: number | null = null;
  private heldHash: string | null = null;
  /** An outage was reported and no session has listed since: later losses are the same one. */
  private downReported = false;

  constructor(options: HeldSessionOptions, listener: HeldSessionListener) {
    this.options = options;
    this.listener = listener;
    const name = options.spec.name;
    // The caller's logger may already be bound to this server; a second binding would
    // repeat the key in every line.
    this.log =
      options.logger.bindings()['server'] === name
        ? options.logger
        : options.logger.child({ server: name });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    this.backoff = {
      initialMs: options.backoff?.initialMs ?? DEFAULT_BACKOFF.initialMs,
      maxMs: options.backoff?.maxMs ?? DEFAULT_BACKOFF.maxMs,
    };
    this.stableMs = options.backoff?.stableMs ?? DEFAULT_STABLE_MS;
    this.flood = { ...DEFAULT_FLOOD, ...options.flood };
  }

  get state(): HeldSessionState {
    return this.stateValue;
  }

  /** The era learned on the first connection (or given in the spec); reused to reconnect. */
  get era(): Era | null {
    return this.learnedEra ?? this.options.spec.era ?? null;
  }

  /**
   * 2025: the server's `capabilities.tools.listChanged`. 2026: whether the server honoured
   * the `toolsListChanged` listen filter. Null before the first connection.
   */
  get listChangedAdvertised(): boolean | null {
    return this.advertised;
  }

  get lastNotificationAt(): Date | null {
    return this.notifiedAtMs === null ? null : new Date(this.notifiedAtMs);
  }

  /**
   * The canonical hash of the last complete listing taken on this session: what a
   * long-lived host gates on. A failed re-list keeps it (the host keeps its old listing);
   * so does a lost connection, until the next 'startup' listing replaces it.
   */
  get currentHash(): string | null {
    return this.heldHash;
  }

  start(): void {
    if (this.loop || this.stopping.signal.aborted) return;
    this.loop = this.run().catch((error: unknown) => {
      // run() handles everything a server can do; reaching this is a bug, not an outage.
      this.log.error({ err: error }, 'held session loop failed');
    });
  }

  /**
   * Ends the session: aborts sleeps and requests, closes the connection, ends a stdio
   * child, and waits for an onListing call in progress. No listener call follows.
   * Idempotent. (So: do not await it from inside onListing.)
   */
  async stop(): Promise<void> {
    if (!this.stopping.signal.aborted) {
      this.stopping.abort();
      this.current?.lose('stopped');
    }
    await this.loop;
    await this.deliveries;
    this.stateValue = 'stopped';
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      this.stateValue = 'connecting';
      const connection = new HeldConnection();
      const outcome = await this.holdOnce(connection);
      if (this.stopping.signal.aborted) break;
      this.stateValue = 'down';
      // Only a session that listed and then stayed up counts as the server being back for
      // good; one that fails right after the handshake keeps the backoff growing.
      const upFor =
        connection.connectedAt === null ? 0 : performance.now() - connection.connectedAt;
      if (connection.listed && upFor >= this.stableMs) failures = 0;
      const wait = backoffDelay(failures, this.backoff);
      failures += 1;
      if (!this.downReported) {
        this.downReported = true;
        this.log.warn({ reason: outcome.reason, retryInMs: wait }, 'held session down');
        this.notify('onDown', () => this.listener.onDown?.(outcome.reason, outcome.at));
      } else {
        this.log.info({ reason: outcome.reason, retryInMs: wait }, 'held session still down');
      }
      await sleep(wait, this.stopping.signal);
    }
    this.stateValue = 'stopped';
  }

  /** One connection from connect to loss. Resolves with why it ended (or was never made). */
  private async holdOnce(connection: HeldConnection): Promise<{ reason: string; at: Date }> {
    if (this.stopping.signal.aborted) connection.lose('stopped');
    this.current = connection;
    try {
      const reason = await this.open(connection);
      if (reason !== null) return { reason, at: new Date() };
      this.schedulePing(connection);
      const lostReason = await connection.lost;
      return { reason: lostReason, at: connection.lostAt ?? new Date() };
    } finally {
      await this.teardown(connection);
      if (this.current === connection) this.current = undefined;
    }
  }

  /** connect() and the startup listing, in an `opens` slot when there is one. */
  private async open(connection: HeldConnection): Promise<string | null> {
    const opens = this.options.opens;
    if (!opens) return this.establish(connection);
    try {
      return await opens.run(() => this.establish(connection), connection.abort.signal);
    } catch (error) {
      // Stopped while waiting for a slot.
      if (connection.closed) return await connection.lost;
      throw error;
    }
  }

  /** Null once connected and the startup listing delivered (or failed); otherwise why not. */
  private async establish(connection: HeldConnection): Promise<string | null> {
    const reason = await this.connect(connection);
    if (reason !== null) return reason;
    connection.connectedAt = performance.now();
    this.stateValue = 'up';
    this.log.info(
      {
        era: connection.session?.era,
        protocolVersion: connection.session?.protocolVersion,
        listChanged: this.advertised,
      },
      'held session connected',
    );
    // Awaited, so that an `opens` slot bounds the listings (and their recording) in
    // flight too: those, more than the connections, are what a mass start keeps in memory.
    await this.requestListing(connection, 'startup');
    return null;
  }

  /** Null once connected (and, on 2026, subscribed); otherwise why not. */
  private async connect(connection: HeldConnection): Promise<string | null> {
    const spec = { ...this.options.spec, era: this.era };
    try {
      connection.session = await openSession(spec, {
        env: this.options.env,
        timeoutMs: this.timeoutMs,
        caps: this.options.caps,
        signal: connection.abort.signal,
        closeGraceMs: CLOSE_GRACE_MS,
        spawn: this.options.spawn,
        oauthTokens: this.options.oauthTokens,
        onError: (error) => this.onTransportError(connection, error),
        onClose: () => this.onTransportClose(connection),
        // Before the startup listing, a notification only marks the time: that listing is
        // read after it anyway.
        onToolsListChanged: () => this.onChangeNotification(connection),
        // Prompts and resources are part of the listing: a change to them is re-listed alike.
        onOtherListChanged: () => this.onChangeNotification(connection),
      });
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    const session = connection.session;
    if (connection.closed) return await connection.lost;
    // Stored before anything else can fail: a stdio server must not be probed twice next time.
    this.learnedEra = session.era;
    if (session.era === '2025') {
      this.advertised = session.capabilities?.tools?.listChanged === true;
      return null;
    }
    try {
      await this.subscribe(connection);
    } catch (error) {
      if (connection.closed) return await connection.lost;
      if (!(error instanceof ProtocolError)) {
        return describeLoss(error, session, 'subscribing to tool changes on', this.timeoutMs);
      }
      // The server answered and refused: it is up, but will not tell us about changes.
      this.advertised = false;
      this.log.warn({ err: error }, 'the server refused subscriptions/listen; holding without');
    }
    return null;
  }

  /** 2026: opens `subscriptions/listen` for tool changes; re-opens it when it ends. */
  private async subscribe(connection: HeldConnection): Promise<void> {
    const session = connection.session;
    if (!session) return;
    // Every surface the server offers changes the listing (docs/design.md §2).
    const capabilities = session.capabilities;
    const subscription = await session.client.listen(
      {
        toolsListChanged: true,
        ...(capabilities?.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
        ...(capabilities?.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
      },
      { timeout: this.timeoutMs, signal: connection.abort.signal },
    );
    this.advertised = subscription.honoredFilter.toolsListChanged === true;
    if (!this.advertised) {
      await subscription.close();
      return;
    }
    connection.subscribedAt = performance.now();
    void subscription.closed.then((cause) => this.onSubscriptionClosed(connection, cause));
  }

  private async onSubscriptionClosed(
    connection: HeldConnection,
    cause: 'local' | 'graceful' | 'remote',
  ): Promise<void> {
    if (connection.closed || cause === 'local') return;
    this.log.info({ cause }, 'subscriptions/listen stream ended; listening again');
    // A server that ends every stream at once would otherwise be asked again in a tight loop.
    if (performance.now() - connection.subscribedAt >= this.pingIntervalMs) {
      connection.quickResubscribes = 0;
    }
    if (connection.quickResubscribes > 0) {
      const wait = backoffDelay(connection.quickResubscribes - 1, this.backoff);
      if (!(await sleep(wait, connection.abort.signal))) return;
    }
    connection.quickResubscribes += 1;
    try {
      await this.subscribe(connection);
    } catch (error) {
      if (connection.closed || !connection.session) return;
      connection.lose(
        describeLoss(
          error,
          connection.session,
          'subscribing again to tool changes on',
          this.timeoutMs,
        ),
      );
      return;
    }
    // Changes made while no stream was open were announced to nobody.
    void this.requestListing(connection, 'startup');
  }

  /**
   * O(1), with no timer touched after a burst's first: a server may send tens of thousands
   * a second (see `flood`), and each costs the event loop every other server shares.
   */
  private onChangeNotification(connection: HeldConnection): void {
    if (connection.closed) return;
    this.notifiedAtMs = Date.now();
    if (this.listener.onNotification) {
      const at = new Date(this.notifiedAtMs);
      this.notify('onNotification', () => this.listener.onNotification?.(at));
    }
    const now = performance.now();
    if (now - connection.floodWindowStartedAt > this.flood.windowMs) {
      connection.floodWindowStartedAt = now;
      connection.floodCount = 0;
    }
    connection.floodCount += 1;
    if (connection.floodCount > this.flood.count) {
      this.dropFlood(connection);
      return;
    }
    connection.lastNotificationAt = now;
    if (connection.burstStartedAt === undefined) {
      // The first notification of a burst re-lists at once: waiting for the burst to end
      // would add its quiet time to every change a host is told about.
      connection.burstStartedAt = now;
      connection.burstFollowUp = false;
      void this.requestListing(connection, 'notification');
      connection.debounceTimer = setTimeout(() => this.endBurst(connection), this.debounceMs);
    } else if (connection.pendingListing === null) {
      // The burst's re-list is under way and may have read the listing before this change.
      // (A queued re-list that has not started yet will see it: nothing more to do.)
      connection.burstFollowUp = true;
    }
  }

  /**
   * A flood is what a broken or hostile server does, not a change: it is recorded as a
   * failed listing (so `history` and the metrics show it) and the session dropped; the
   * reconnect backs off, since the session did not prove itself.
   */
  private dropFlood(connection: HeldConnection): void {
    const session = connection.session;
    const target = session?.target ?? `server "${this.options.spec.name}"`;
    const seconds = this.flood.windowMs / 1000;
    const reason =
      `${target}: the server sent more than ${this.flood.count} notifications/tools/list_changed ` +
      `within ${seconds} s, a flood; the session was dropped`;
    this.log.warn({ notifications: connection.floodCount }, 'change notification flood');
    if (session) {
      const failure = failedListing(
        session,
        new DriftError('REMOTE_PROTOCOL', reason),
        Math.round(performance.now() - connection.floodWindowStartedAt),
      );
      void this.deliver(failure, 'notification', new Date());
    }
    connection.lose(reason);
  }

  /**
   * Armed once per burst: on firing it waits out what is left of the quiet time after the
   * latest notification (never past the burst's longest), then ends the burst: one re-list
   * for all that came after its first.
   */
  private endBurst(connection: HeldConnection): void {
    connection.debounceTimer = undefined;
    if (connection.closed || connection.burstStartedAt === undefined) return;
    const now = performance.now();
    const quietAt = connection.lastNotificationAt + this.debounceMs;
    const latest = connection.burstStartedAt + this.debounceMs * MAX_DEBOUNCE_FACTOR;
    const end = Math.min(quietAt, latest);
    if (now < end) {
      connection.debounceTimer = setTimeout(() => this.endBurst(connection), end - now);
      return;
    }
    connection.burstStartedAt = undefined;
    if (!connection.burstFollowUp) return;
    connection.burstFollowUp = false;
    void this.requestListing(connection, 'notification');
  }

  /**
   * Queues a listing on this connection; one runs at a time, and a queued one absorbs more.
   * Settles once no listing is queued or running on it, and never rejects.
   */
  private requestListing(connection: HeldConnection, trigger: HeldListingTrigger): Promise<void> {
    if (connection.closed) return Promise.resolve();
    connection.pendingListing =
      connection.pendingListing === 'startup' || trigger === 'startup' ? 'startup' : trigger;
    connection.draining ??= this.drainListings(connection);
    return connection.draining;
  }

  private async drainListings(connection: HeldConnection): Promise<void> {
    try {
      // Entered with a listing queued on an open connection, so the loop awaits at least
      // once: `draining` is assigned before the finally below clears it.
      while (connection.pendingListing !== null && !connection.closed) {
        const trigger = connection.pendingListing;
        connection.pendingListing = null;
        await this.listOnce(connection, trigger);
      }
    } catch (error) {
      this.log.error({ err: error }, 'held re-list failed unexpectedly');
    } finally {
      connection.draining = undefined;
    }
  }

  private async listOnce(connection: HeldConnection, trigger: HeldListingTrigger): Promise<void> {
    const session = connection.session;
    if (!session) return;
    const at = new Date();
    const started = performance.now();
    let result: ProbeResult;
    try {
      const listing = await session.listPresentation({ signal: connection.abort.signal });
      result = listingResult(session, listing, Math.round(performance.now() - started));
    } catch (error) {
      // A listing cut short by our own teardown says nothing about the server.
      if (connection.closed) return;
      result = failedListing(session, error, Math.round(performance.now() - started));
    }
    if (this.stopping.signal.aborted) return;
    if (result.ok) {
      this.heldHash = canonicalListing(result.tools, extrasOf(result)).hash;
      if (!connection.listed) this.markUp(connection);
    } else {
      this.log.warn({ trigger, code: result.code, reason: result.reason }, 'held re-list failed');
      // An unreachable server is most likely gone: find out now rather than at the next ping.
      if (result.code === 'REMOTE_UNREACHABLE' || result.code === 'REMOTE_TIMEOUT') {
        void this.ping(connection);
      }
    }
    await this.deliver(result, trigger, at);
  }

  /** The connection listed for the first time: the server is up (see onUp). */
  private markUp(connection: HeldConnection): void {
    connection.listed = true;
    this.downReported = false;
    const upAt = new Date();
    this.log.info('held session up');
    this.notify('onUp', () => this.listener.onUp?.(upAt));
  }

  /** Listener calls, one at a time across connections, in the order the listings were taken. */
  private deliver(result: ProbeResult, trigger: HeldListingTrigger, at: Date): Promise<void> {
    const delivery = this.deliveries.then(async () => {
      try {
        await this.listener.onListing(result, trigger, at);
      } catch (error) {
        this.log.error({ err: error, trigger }, 'the held-session listener failed on a listing');
      }
    });
    this.deliveries = delivery;
    return delivery;
  }

  private schedulePing(connection: HeldConnection): void {
    if (connection.closed) return;
    clearTimeout(connection.pingTimer);
    // Jittered on every round: sessions that came up together (a worker starting, a network
    // blip ending) would otherwise ping all at once, for as long as they live.
    const wait = this.pingIntervalMs * (1 - PING_JITTER + 2 * PING_JITTER * Math.random());
    connection.pingTimer = setTimeout(() => void this.ping(connection), Math.round(wait));
  }

  /**
   * The liveness check: `ping` on 2025 connections; the 2026 revision has no ping, and
   * `server/discover` is the cheapest request it keeps. Any failure (a timeout, a refused
   * connection, HTTP 404 for an expired session) ends the connection.
   */
  private async ping(connection: HeldConnection): Promise<void> {
    const session = connection.session;
    if (connection.closed || connection.pinging || !session) return;
    connection.pinging = true;
    clearTimeout(connection.pingTimer);
    const options = { timeout: this.timeoutMs, signal: connection.abort.signal };
    try {
      if (session.era === '2025') await session.client.ping(options);
      else await session.client.discover(options);
    } catch (error) {
      if (!connection.closed) {
        connection.lose(describeLoss(error, session, 'checking', this.timeoutMs));
      }
      return;
    } finally {
      connection.pinging = false;
    }
    this.schedulePing(connection);
  }

  /**
   * SDK errors are a hint, not a verdict: some are harmless (a message that failed to
   * parse), so most only trigger an immediate liveness check. Two are final: HTTP 404 (the
   * server forgot the session) and a GET stream whose reconnection attempts ran out (the
   * session could still answer requests, but notifications would never arrive again).
   */
  private onTransportError(connection: HeldConnection, error: Error): void {
    if (connection.closed) return;
    const session = connection.session;
    this.log.debug({ err: error }, 'held session transport error');
    if (error instanceof SdkHttpError && error.status === 404 && session) {
      connection.lose(describeLoss(error, session, 'talking to', this.timeoutMs));
      return;
    }
    if (/Maximum reconnection attempts/i.test(error.message)) {
      const target = session?.target ?? `server "${this.options.spec.name}"`;
      connection.lose(
        `${target}: the server-to-client stream could not be re-opened (${error.message})`,
      );
      return;
    }
    const now = performance.now();
    if (now - connection.lastErrorCheckAt < Math.min(this.pingIntervalMs, 1_000)) return;
    connection.lastErrorCheckAt = now;
    void this.ping(connection);
  }

  private onTransportClose(connection: HeldConnection): void {
    if (connection.closed) return;
    const session = connection.session;
    const target = session?.target ?? `server "${this.options.spec.name}"`;
    const fatal = session?.describeFatal();
    if (fatal) {
      connection.lose(`${target}: ${fatal}`);
    } else if (session?.pid != null) {
      const stderr = session.stderr();
      const tail = stderr.length > 300 ? `…${stderr.slice(-300)}` : stderr;
      connection.lose(`${target}: the server process exited${tail ? `; stderr: ${tail}` : ''}`);
    } else {
      connection.lose(`${target}: the connection closed`);
    }
  }

  private async teardown(connection: HeldConnection): Promise<void> {
    connection.lose('closed');
    // Closing the session ends a subscription stream too, and the stdio child with it.
    await connection.session?.close();
  }

  /** Listener callbacks must not break the loop. */
  private notify(what: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.log.error({ err: error }, `the held-session listener failed in ${what}`);
    }
  }
}
