import { describe, expect, it } from 'vitest';
import { FailureStreak } from '../../src/watch/failure-streak.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 19, 31, 0) + seconds * 1000);

describe('FailureStreak', () => {
  it('logs the first of identical failures, then a summary at the interval, then the recovery', () => {
    const streak = new FailureStreak(60_000);
    const events = [];
    // A down server on a 3 s schedule for 150 s: 50 failures.
    for (let tick = 0; tick < 50; tick++)
      events.push(streak.failed('REMOTE_UNREACHABLE\nrefused', at(tick * 3)));
    const logged = events.filter((event) => event !== null);
    expect(logged).toEqual([
      { kind: 'first' },
      { kind: 'still', failures: 21, since: at(0) },
      { kind: 'still', failures: 41, since: at(0) },
    ]);
    expect(streak.succeeded()).toEqual({ kind: 'recovered', failures: 50, since: at(0) });
    // Nothing to recover from twice.
    expect(streak.succeeded()).toBeNull();
  });

  it('starts a new streak, logged at once, when the failure is a different one', () => {
    const streak = new FailureStreak(60_000);
    expect(streak.failed('REMOTE_UNREACHABLE\nrefused', at(0))).toEqual({ kind: 'first' });
    expect(streak.failed('REMOTE_UNREACHABLE\nrefused', at(3))).toBeNull();
    expect(streak.failed('REMOTE_TIMEOUT\ntimed out', at(6))).toEqual({ kind: 'first' });
    expect(streak.failed('REMOTE_TIMEOUT\ntimed out', at(9))).toBeNull();
    expect(streak.succeeded()).toEqual({ kind: 'recovered', failures: 2, since: at(6) });
    // After a recovery the same failure is news again.
    expect(streak.failed('REMOTE_TIMEOUT\ntimed out', at(12))).toEqual({ kind: 'first' });
  });
});
