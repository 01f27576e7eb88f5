import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/backoff.js';
import { sleep } from '../../src/loop.js';
import { HeldSession } from '../../src/watch/held-session.js';
import type { ProbeResult } from '../../src/mcp/index.js';
import { isAlive, pidFile, stdioFixture } from '../support/mcp-fixtures.js';
import {
  expectFixtureListing,
  holdSession,
  logger,
  QUIET_MS,
  Recorder,
  SDK1,
  TIMING,
  until,
} from './held-session-support.js';

// start() and stop() at any point: every timer, request and child process ends with stop().

describe('HeldSession: stop() at any point', () => {
  it('while connecting to a server that never answers', async () => {
    const pids = pidFile();
    const recorder = new Recorder();
    const spec = stdioFixture('hostile-server.mjs', ['--mode', 'silent'], { env: pids.env });
    const held = holdSession(spec, recorder, { timeoutMs: 20_000 });
    await until('the child spawned', () => pids.pids().length === 1);
    expect(held.state).toBe('connecting');
    await held.stop();
    expect(held.state).toBe('stopped');
    expect(recorder.events).toEqual([]);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('while the startup listing waits for an answer', async () => {
    const pids = pidFile();
    const recorder = new Recorder();
    const spec = stdioFixture('hostile-server.mjs', ['--mode', 'slow-list'], { env: pids.env });
    const held = holdSession(spec, recorder, { timeoutMs: 20_000 });
    await until('connected', () => held.state === 'up', recorder);
    await delay(100);
    await held.stop();
    // A listing cut short by stop() is nobody's failure: nothing is delivered. (Nor is the
    // server up, which takes a listing.)
    expect(recorder.events).toEqual([]);
    expect(held.state).toBe('stopped');
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('while backing off from a server that exits at once: one onDown for the whole outage', async () => {
    const pids = pidFile();
    const recorder = new Recorder();
    const spec = stdioFixture('hostile-server.mjs', ['--mode', 'exit-at-once'], {
      env: pids.env,
    });
    const held = holdSession(spec, recorder);
    await until('three attempts', () => pids.pids().length >= 3, recorder);
    await until('backing off', () => held.state === 'down');
    await held.stop();
    expect(recorder.events).toEqual(['down']);
    expect(recorder.downs[0]).toMatch(
      /^connecting to server "hostile-server" \(.*\): the server process exited with code 3 before answering/,
    );
    expect(held.state).toBe('stopped');
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('is idempotent, works before start(), and start() after stop() does nothing', async () => {
    const pids = pidFile();
    const recorder = new Recorder();
    const held = new HeldSession(
      { spec: stdioFixture(SDK1.script, [], { env: pids.env }), env: {}, logger, ...TIMING },
      recorder,
    );
    expect(held.state).toBe('idle');
    expect([held.era, held.currentHash, held.listChangedAdvertised]).toEqual([null, null, null]);
    await Promise.all([held.stop(), held.stop()]);
    held.start();
    await delay(QUIET_MS);
    expect(held.state).toBe('stopped');
    expect(recorder.events).toEqual([]);
    expect(pids.pids()).toEqual([]);
    pids.remove();
  });
});

describe('HeldSession: liveness and failures', () => {
  it('a server that stops answering fails its ping: down, and a new child', async () => {
    const pids = pidFile();
    const recorder = new Recorder();
    const spec = stdioFixture(SDK1.script, [], { env: pids.env });
    const held = holdSession(spec, recorder, { timeoutMs: 3_000 });
    try {
      await until('the startup listing', () => recorder.listings.length === 1, recorder);
      const [first] = pids.pids();
      process.kill(first ?? -1, 'SIGSTOP');
      await until('down', () => recorder.downs.length === 1, recorder);
      expect(recorder.downs[0]).toMatch(
        /^checking server "sdk1-server" \(.*\): no answer within 3000 ms$/,
      );
      await until('up again and listed', () => recorder.listings.length === 2, recorder);
      expect(recorder.events).toEqual(['up', 'listing:startup', 'down', 'up', 'listing:startup']);
      expectFixtureListing(recorder.listings[1], SDK1, 'startup', 'base');
      // The stopped child was killed when its session was given up.
      expect(isAlive(first ?? -1)).toBe(false);
    } finally {
      await held.stop();
    }
    expect(pids.pids()).toHaveLength(2);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('a listing over a cap is a failure, never a shorter listing; the session stays up', async () => {
    const recorder = new Recorder();
    const held = holdSession(stdioFixture(SDK1.script), recorder, { caps: { maxTools: 2 } });
    try {
      await until('the startup listing', () => recorder.listings.length === 1, recorder);
      const result = recorder.listings[0]?.result;
      expect(result).toMatchObject({ ok: false, code: 'REMOTE_PROTOCOL', era: '2025' });
      expect(result && !result.ok && result.reason).toMatch(/tool cap maxTools=2/);
      expect(result && 'tools' in result).toBe(false);
      expect(held.currentHash).toBeNull();
      expect(held.state).toBe('up');
      expect(recorder.downs).toEqual([]);
    } finally {
      await held.stop();
    }
  });

  it('a listener that throws does not stop later listings', async () => {
    const pids = pidFile();
    const seen: string[] = [];
    const listener = {
      onListing: (_result: ProbeResult, trigger: string) => {
        seen.push(trigger);
        return seen.length === 1 ? Promise.reject(new Error('listener broke')) : Promise.resolve();
      },
      onUp: () => {
        throw new Error('onUp broke');
      },
    };
    const spec = stdioFixture(SDK1.script, [], { env: pids.env });
    const held = new HeldSession({ spec, env: {}, logger, ...TIMING }, listener);
    held.start();
    try {
      await until('the startup listing', () => seen.length === 1);
      process.kill(pids.pids()[0] ?? -1, 'SIGUSR1');
      await until('the notified listing', () => seen.length === 2);
      expect(seen).toEqual(['startup', 'notification']);
    } finally {
      await held.stop();
    }
    pids.remove();
  });
});

describe('backoff', () => {
  const options = { initialMs: 1_000, maxMs: 60_000 };

  it('doubles from initialMs up to maxMs, with half of each step jittered', () => {
    expect([0, 1, 2, 3, 10].map((attempt) => backoffDelay(attempt, options, () => 0))).toEqual([
      500, 1_000, 2_000, 4_000, 30_000,
    ]);
    expect([0, 1, 2, 3, 10].map((attempt) => backoffDelay(attempt, options, () => 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 60_000,
    ]);
    expect(backoffDelay(5, options, () => 0.5)).toBe(24_000);
    expect(backoffDelay(1_000_000, options, () => 1)).toBe(60_000);
  });

  it('sleep() ends early, and says so, when its signal aborts', async () => {
    const controller = new AbortController();
    const slept = sleep(60_000, controller.signal);
    controller.abort();
    expect(await slept).toBe(false);
    expect(await sleep(1, new AbortController().signal)).toBe(true);
    expect(await sleep(1, controller.signal)).toBe(false);
  });
});
