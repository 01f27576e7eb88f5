/*
 * One server failing the same way on every probe says one thing, not one line per tick: a
 * down server on a 3 s schedule once wrote 48 warnings in 2.5 minutes. A streak logs its
 * first failure, then a summary at most every SUMMARY_EVERY_MS while it lasts, and one line
 * when the server lists again. A different failure (another code or reason) starts a new
 * streak, logged at once: it is news.
 */

/** How often a streak that goes on is summed up. */
export const SUMMARY_EVERY_MS = 5 * 60_000;

/** What to log for one failure or success; null: nothing. */
export type StreakEvent =
  | { kind: 'first' }
  | { kind: 'still'; failures: number; since: Date }
  | { kind: 'recovered'; failures: number; since: Date };

export class FailureStreak {
  private key: string | null = null;
  private failures = 0;
  private since = new Date(0);
  private lastLoggedAt = 0;

  constructor(private readonly summaryEveryMs = SUMMARY_EVERY_MS) {}

  /** A failure identified by `key` (its code and reason) at `at`. */
  failed(key: string, at: Date): StreakEvent | null {
    if (key !== this.key) {
      this.key = key;
      this.failures = 1;
      this.since = at;
      this.lastLoggedAt = at.getTime();
      return { kind: 'first' };
    }
    this.failures += 1;
    if (at.getTime() - this.lastLoggedAt < this.summaryEveryMs) return null;
    this.lastLoggedAt = at.getTime();
    return { kind: 'still', failures: this.failures, since: this.since };
  }

  /** A listing came back: the end of any streak. */
  succeeded(): StreakEvent | null {
    if (this.key === null) return null;
    const event = { kind: 'recovered' as const, failures: this.failures, since: this.since };
    this.key = null;
    this.failures = 0;
    return event;
  }
}
