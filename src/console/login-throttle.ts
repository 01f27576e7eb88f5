/*
 * Guessing the console token from one address gets slower and slower: a few wrong tries
 * are free, then each further one locks the address out for twice as long as the last
 * (1 s, 2 s, 4 s … up to 15 min). While locked out every try is refused with 429 unchecked,
 * the right token too, or the answers would still tell a guess right from wrong. Forgotten
 * after a quiet spell; a right token clears the address. Kept in memory, for one serve.
 */

export interface ThrottleOptions {
  /** Wrong tries allowed before the lock-outs start. */
  freeFailures: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** An address with no wrong try for this long starts afresh. */
  forgetMs: number;
  /** Addresses remembered at most (the oldest is dropped), so a flood cannot fill memory. */
  maxClients: number;
  now: () => number;
}

export const LOGIN_THROTTLE: ThrottleOptions = {
  freeFailures: 5,
  baseDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
  forgetMs: 15 * 60_000,
  maxClients: 10_000,
  now: () => Date.now(),
};

interface Record {
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

export class LoginThrottle {
  private readonly options: ThrottleOptions;
  private readonly clients = new Map<string, Record>();

  constructor(options: Partial<ThrottleOptions> = {}) {
    this.options = { ...LOGIN_THROTTLE, ...options };
  }

  /** How long (ms) `address` must wait before it may try; 0 when it may now. */
  wait(address: string): number {
    const record = this.current(address);
    return record ? Math.max(0, record.lockedUntil - this.options.now()) : 0;
  }

  failed(address: string): void {
    const now = this.options.now();
    const record = this.current(address) ?? { failures: 0, lastFailure: now, lockedUntil: 0 };
    record.failures += 1;
    record.lastFailure = now;
    const over = record.failures - this.options.freeFailures;
    if (over > 0) {
      const delay = this.options.baseDelayMs * 2 ** Math.min(over - 1, 30);
      record.lockedUntil = now + Math.min(delay, this.options.maxDelayMs);
    }
    // Re-inserted, so that the map's order is oldest failure first.
    this.clients.delete(address);
    if (this.clients.size >= this.options.maxClients) {
      this.clients.delete(this.clients.keys().next().value!);
    }
    this.clients.set(address, record);
  }

  succeeded(address: string): void {
    this.clients.delete(address);
  }

  private current(address: string): Record | undefined {
    const record = this.clients.get(address);
    if (!record) return undefined;
    const now = this.options.now();
    if (record.lockedUntil <= now && now - record.lastFailure >= this.options.forgetMs) {
      this.clients.delete(address);
      return undefined;
    }
    return record;
  }
}
