import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Loop, sleep, STOP_GRACE_MS } from '../src/loop.js';

/** Lets the promise callbacks queued by a timer run (fake timers do not await them). */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('Loop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a pass, waits what the pass asked for, and runs again', async () => {
    const passes: number[] = [];
    const loop = new Loop({
      pass: async () => {
        passes.push(Date.now());
        return 1_000;
      },
      onError: () => 0,
    });
    const start = Date.now();
    loop.start();
    await settle();
    expect(passes).toEqual([start]);
    await vi.advanceTimersByTimeAsync(999);
    expect(passes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toEqual([start, start + 1_000]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(passes).toEqual([start, start + 1_000, start + 2_000, start + 3_000]);
    expect(await loop.stop()).toBe(true);
  });

  it('waits firstDelayMs before the first pass', async () => {
    let passes = 0;
    const loop = new Loop({
      firstDelayMs: 60_000,
      pass: async () => {
        passes += 1;
        return 60_000;
      },
      onError: () => 0,
    });
    loop.start();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(passes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(1);
    await loop.stop();
  });

  it('never throws: a failing pass goes to onError with the failures in a row, and the loop goes on', async () => {
    const outcomes = ['fail', 'fail', 'ok', 'fail'];
    const seen: { failures: number; message: string }[] = [];
    let passes = 0;
    const loop = new Loop({
      pass: async () => {
        const outcome = outcomes[passes++];
        if (outcome === 'fail') throw new Error(`pass ${passes}`);
        return 100;
      },
      onError: (error, failures) => {
        seen.push({ failures, message: (error as Error).message });
        return 100 * failures;
      },
    });
    loop.start();
    await settle(); // pass 1 fails: wait 100
    await vi.advanceTimersByTimeAsync(100); // pass 2 fails: wait 200
    await vi.advanceTimersByTimeAsync(200); // pass 3 succeeds: wait 100
    await vi.advanceTimersByTimeAsync(100); // pass 4 fails again, from 1
    expect(seen).toEqual([
      { failures: 1, message: 'pass 1' },
      { failures: 2, message: 'pass 2' },
      { failures: 1, message: 'pass 4' },
    ]);
    expect(passes).toBe(4);
    await loop.stop();
  });

  it('survives an onError that throws', async () => {
    let passes = 0;
    const loop = new Loop({
      pass: async () => {
        passes += 1;
        throw new Error('pass');
      },
      onError: () => {
        throw new Error('onError');
      },
    });
    loop.start();
    await settle();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(2);
    await loop.stop();
  });

  it('stop() ends the wait at once, aborts the pass signal, and is idempotent', async () => {
    let signal: AbortSignal | undefined;
    let passes = 0;
    const loop = new Loop({
      pass: async (s) => {
        signal = s;
        passes += 1;
        return 3_600_000;
      },
      onError: () => 0,
    });
    loop.start();
    await settle();
    expect(signal?.aborted).toBe(false);
    const stopped = loop.stop();
    expect(signal?.aborted).toBe(true);
    // No timer needs to fire: the hour-long wait ends on the abort.
    expect(await stopped).toBe(true);
    expect(await loop.stop()).toBe(true);
    loop.start();
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(passes).toBe(1);
  });

  it('stop() leaves a pass that outlasts the grace behind, and says so', async () => {
    const loop = new Loop({
      pass: () => new Promise<number>(() => {}),
      onError: () => 0,
    });
    loop.start();
    await settle();
    let result: boolean | undefined;
    void loop.stop().then((finished) => (result = finished));
    await vi.advanceTimersByTimeAsync(STOP_GRACE_MS - 1);
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toBe(false);
  });

  it('waits for drain after the last pass, within the grace', async () => {
    let release = () => {};
    const drained = new Promise<void>((resolve) => (release = resolve));
    const loop = new Loop({ pass: async () => 1_000, onError: () => 0, drain: () => drained });
    loop.start();
    await settle();
    let result: boolean | undefined;
    void loop.stop().then((finished) => (result = finished));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(result).toBeUndefined();
    release();
    await settle();
    expect(result).toBe(true);
  });

  it('shortens each wait by up to `jitter` of itself', async () => {
    const passes: number[] = [];
    const loop = new Loop({
      jitter: 0.5,
      random: () => 1,
      pass: async () => {
        passes.push(Date.now());
        return 1_000;
      },
      onError: () => 0,
    });
    const start = Date.now();
    loop.start();
    await settle();
    await vi.advanceTimersByTimeAsync(500);
    expect(passes).toEqual([start, start + 500]);
    await loop.stop();
  });

  it('wake() runs the next pass now', async () => {
    let passes = 0;
    const loop = new Loop({
      pass: async () => {
        passes += 1;
        return 3_600_000;
      },
      onError: () => 0,
    });
    loop.start();
    await settle();
    loop.wake();
    await settle();
    expect(passes).toBe(2);
    await loop.stop();
  });
});

describe('sleep', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves true after the full time, false when aborted, and never rejects', async () => {
    const controller = new AbortController();
    const full = sleep(1_000, controller.signal);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await full).toBe(true);
    const cut = sleep(1_000, controller.signal);
    controller.abort();
    expect(await cut).toBe(false);
    expect(await sleep(1_000, controller.signal)).toBe(false);
  });
});
