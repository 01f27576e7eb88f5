import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/watch/limiter.js';

/** A task that runs until released, and says when it started. */
function gate() {
  let release: () => void = () => {};
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

/** Lets every queued callback run (slots pass between tasks through promise callbacks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Limiter', () => {
  it('runs at most `max` tasks at once, the others in the order they asked', async () => {
    const limiter = new Limiter(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        await g.done;
        return i;
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    gates[1]!.release();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    // A newcomer while the queue is not empty waits behind it, even as a slot frees up.
    const late = gate();
    const lateRun = limiter.run(async () => {
      started.push(4);
      await late.done;
    });
    gates[0]!.release();
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    gates[2]!.release();
    gates[3]!.release();
    late.release();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    await lateRun;
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('a task that fails frees its slot', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(() => Promise.resolve('next'))).toBe('next');
  });

  it('a wait that is aborted leaves the queue, and its task never runs', async () => {
    const limiter = new Limiter(1);
    const first = gate();
    const running = limiter.run(() => first.done);
    const abort = new AbortController();
    let ran = false;
    const waiting = limiter.run(async () => {
      ran = true;
    }, abort.signal);
    const after = limiter.run(() => Promise.resolve('after'));
    abort.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    first.release();
    await running;
    expect(await after).toBe('after');
    expect(ran).toBe(false);
    // Already aborted: refused at once.
    await expect(limiter.run(() => Promise.resolve(), abort.signal)).rejects.toThrow('stopped');
  });
  it('reports each burst once it is over, with how many tasks it ran', async () => {
    const bursts: number[] = [];
    const limiter = new Limiter(2, (ran) => bursts.push(ran));
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g) => limiter.run(() => g.done));
    gates[0]!.release();
    gates[1]!.release();
    await settle();
    // One still runs: the burst is not over.
    expect(bursts).toEqual([]);
    gates[2]!.release();
    await Promise.all(runs);
    expect(bursts).toEqual([3]);
    await limiter.run(async () => {});
    expect(bursts).toEqual([3, 1]);
  });
});
