import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../src/console/login-throttle.js';

describe('the login throttle', () => {
  it('doubles the lock-out with each wrong try past the free ones, up to the cap', () => {
    let now = 0;
    const throttle = new LoginThrottle({
      freeFailures: 2,
      baseDelayMs: 1000,
      maxDelayMs: 8000,
      now: () => now,
    });
    const waits: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      now += throttle.wait('a');
      throttle.failed('a');
      waits.push(throttle.wait('a'));
    }
    expect(waits).toEqual([0, 0, 1000, 2000, 4000, 8000, 8000]);
    expect(throttle.wait('b')).toBe(0);
    throttle.succeeded('a');
    expect(throttle.wait('a')).toBe(0);
  });

  it('forgets an address after a quiet spell', () => {
    let now = 0;
    const throttle = new LoginThrottle({ freeFailures: 1, forgetMs: 60_000, now: () => now });
    throttle.failed('a');
    throttle.failed('a');
    expect(throttle.wait('a')).toBe(1000);
    now += 59_999;
    throttle.failed('a');
    expect(throttle.wait('a')).toBe(2000);
    now += 60_000;
    // Quiet for a minute: the next wrong try is a free one again.
    throttle.failed('a');
    expect(throttle.wait('a')).toBe(0);
  });

  it('remembers at most maxClients addresses, dropping the oldest', () => {
    const throttle = new LoginThrottle({ freeFailures: 0, maxClients: 2, now: () => 0 });
    for (const address of ['a', 'b', 'c']) throttle.failed(address);
    expect([throttle.wait('a'), throttle.wait('b'), throttle.wait('c')]).toEqual([0, 1000, 1000]);
  });
});
