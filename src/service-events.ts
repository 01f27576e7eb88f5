/*
 * What the running service tells whoever started it (docs/architecture.md, The service
 * entry): tests await these instead of sleeping or polling the database, and the payloads are
 * plain values, so that this file sits below every folder that emits them.
 */

export interface ServiceEventMap {
  /** An observation (a listing or a failure) was stored, or extended its run. */
  'observation-recorded': {
    serverId: number;
    server: string;
    trigger: 'poll' | 'startup' | 'notification';
    ok: boolean;
    listingHash: string | null;
    /** The change this observation recorded, if any (also a 'change-recorded'). */
    changeId: number | null;
  };
  /** A listing differed from the previous one: a change and its findings were stored. */
  'change-recorded': {
    serverId: number;
    server: string;
    changeId: number;
    severity: string;
    findings: number;
    trigger: 'poll' | 'startup' | 'notification';
  };
  /** A channel delivered an alert message and the delivery was recorded. */
  'alert-delivered': {
    deliveryId: number;
    channel: string;
    server: string;
    alertIds: number[];
    severity: string;
  };
  /** A held session is up and listed (after a start or a reconnect). */
  'session-held': { serverId: number; server: string };
  /**
   * The server's authorization server refused its tokens: it waits for `server login`
   * (an outage of kind `auth`, docs/oauth.md). Once per refusal, whoever noticed it.
   */
  'login-needed': { serverId: number; server: string };
  /** A held session went down; it reconnects with backoff. */
  'session-lost': { serverId: number; server: string; reason: string };
}

export type ServiceEventKind = keyof ServiceEventMap;

export type ServiceEvent = {
  [K in ServiceEventKind]: { kind: K; at: Date } & ServiceEventMap[K];
}[ServiceEventKind];

type EventOf<K extends ServiceEventKind> = { kind: K; at: Date } & ServiceEventMap[K];
type Listener = (event: ServiceEvent) => void;

/** How many past events `next(..., { past: true })` can still find. */
const KEPT_EVENTS = 1_000;

/**
 * The service's typed event stream. Emitting never throws into the emitter (a loop that
 * records an observation must not fail because a listener did); listeners run synchronously.
 */
export class ServiceEvents {
  private readonly listeners = new Set<Listener>();
  private readonly kept: ServiceEvent[] = [];

  emit<K extends ServiceEventKind>(kind: K, payload: ServiceEventMap[K]): void {
    const event = { kind, at: new Date(), ...payload } as ServiceEvent;
    this.kept.push(event);
    if (this.kept.length > KEPT_EVENTS) this.kept.shift();
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the service goes on.
      }
    }
  }

  /** Calls `listener` with every event from now on; returns the unsubscribe. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The events kept so far (the last 1,000), oldest first. */
  history(): readonly ServiceEvent[] {
    return [...this.kept];
  }

  /**
   * The next event of `kind` that satisfies `predicate`, or with `past: true` the first
   * such event already kept. Rejects after `timeoutMs` (a bound on a hang, not
   * a timing claim), naming what was awaited.
   */
  next<K extends ServiceEventKind>(
    kind: K,
    predicate: (event: EventOf<K>) => boolean = () => true,
    options: { timeoutMs?: number; past?: boolean } = {},
  ): Promise<EventOf<K>> {
    const matches = (event: ServiceEvent): EventOf<K> | undefined =>
      event.kind === kind && predicate(event as unknown as EventOf<K>)
        ? (event as unknown as EventOf<K>)
        : undefined;
    if (options.past) {
      const seen = this.kept.find((event) => matches(event) !== undefined);
      if (seen) return Promise.resolve(seen as unknown as EventOf<K>);
    }
    const timeoutMs = options.timeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no ${kind} event within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on((event) => {
        const matched = matches(event);
        if (!matched) return;
        clearTimeout(timer);
        off();
        resolve(matched);
      });
    });
  }
}
