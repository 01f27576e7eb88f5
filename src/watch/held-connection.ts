import type { McpSession } from '../mcp/index.js';

export type HeldListingTrigger = 'startup' | 'notification';

/**
 * Everything that belongs to one connection of a held session. It is dropped whole when
 * the connection is lost, so that nothing from an old connection (a timer, a late
 * notification, a listing in flight) can act on the next one: every callback checks
 * `closed` first.
 */
export class HeldConnection {
  session: McpSession | undefined;
  /** Aborts this connection's requests and sleeps. */
  readonly abort = new AbortController();
  /** Resolves with the reason once the connection is lost (or stop() ends it). */
  readonly lost: Promise<string>;
  closed = false;
  lostAt: Date | null = null;

  /** A listing asked for and not started yet; a queued one absorbs later asks. */
  pendingListing: HeldListingTrigger | null = null;
  /** Runs the queued listings one at a time; settles once none is queued or running. */
  draining: Promise<void> | undefined;
  /** Ends the current burst of notifications after its quiet time. */
  debounceTimer: NodeJS.Timeout | undefined;
  /** When the current burst of notifications began (performance.now()). */
  burstStartedAt: number | undefined;
  /** When the latest notification came (performance.now()); the burst ends after its quiet time. */
  lastNotificationAt = 0;
  /** Notifications in the current flood window, and when that window began. */
  floodCount = 0;
  floodWindowStartedAt = -Infinity;
  /** A notification of this burst came after its re-list had started: one more is due. */
  burstFollowUp = false;

  pingTimer: NodeJS.Timeout | undefined;
  pinging = false;
  lastErrorCheckAt = -Infinity;

  /** When the connection was established (performance.now()); null while connecting. */
  connectedAt: number | null = null;
  /** A listing succeeded on this connection: the server is up, not just accepting handshakes. */
  listed = false;

  /** 2026: when the current subscriptions/listen stream opened (performance.now()). */
  subscribedAt = 0;
  /** 2026: streams re-opened in a row that each ended soon after opening. */
  quickResubscribes = 0;

  private resolveLost: (reason: string) => void = () => {};

  constructor() {
    this.lost = new Promise<string>((resolve) => (this.resolveLost = resolve));
  }

  /** Marks the connection lost (first reason wins), stops its timers and aborts its requests. */
  lose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.lostAt = new Date();
    clearTimeout(this.debounceTimer);
    clearTimeout(this.pingTimer);
    this.abort.abort();
    this.resolveLost(reason);
  }
}
