import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectSpec } from '../../src/mcp/index.js';
import { HeldSession, type HeldSessionOptions } from '../../src/watch/held-session.js';
import {
  isAlive,
  pidFile,
  startHttpFixture,
  stdioFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { Recorder, SDK1, TIMING, until } from './held-session-support.js';

/*
 * Issue 12, defect 5: a server that fails right after the handshake (initialize answered,
 * then HTTP 401 on every request; a --hold stdio server that exits on tools/list) was
 * reconnected about once a second forever, each time as an outage that ended and began
 * again. The backoff resets only once a session proved itself: it listed, and stayed up.
 */

interface LogLine {
  msg: string;
  retryInMs?: number;
}

/** A held session whose log lines are kept, to read its decisions (not its timing) from. */
function hold(spec: ConnectSpec, recorder: Recorder, options: Partial<HeldSessionOptions> = {}) {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  );
  const held = new HeldSession(
    { spec, env: {}, logger, ...TIMING, backoff: { initialMs: 40, maxMs: 60_000 }, ...options },
    recorder,
  );
  held.start();
  const count = (msg: string) => lines.filter((line) => line.msg === msg).length;
  const waits = () =>
    lines.filter((line) => line.retryInMs !== undefined).map((line) => line.retryInMs!);
  return { held, count, waits };
}

/** Equal jitter: retry k waits between half and all of initialMs · 2^k. */
function expectDoubling(waits: number[], initialMs: number): void {
  waits.forEach((wait, k) => {
    expect(wait, `retry ${k} of ${JSON.stringify(waits)}`).toBeGreaterThanOrEqual(
      (initialMs * 2 ** k) / 2,
    );
    expect(wait, `retry ${k} of ${JSON.stringify(waits)}`).toBeLessThanOrEqual(initialMs * 2 ** k);
  });
}

describe('HeldSession backoff after sessions that never proved themselves', () => {
  let refusing: HttpFixture;
  beforeAll(async () => {
    refusing = await startHttpFixture('hostile-server.mjs', ['--mode', 'auth-after-init']);
  });
  afterAll(() => refusing?.stop());

  it('HTTP 401 after every handshake: one outage, and each retry waits twice as long', async () => {
    const recorder = new Recorder();
    const spec: ConnectSpec = {
      name: 'refusing',
      transport: 'http',
      url: `${refusing.baseUrl}/mcp`,
    };
    const { held, count, waits } = hold(spec, recorder);
    try {
      await until('six handshakes', () => count('held session connected') >= 6, recorder);
    } finally {
      await held.stop();
    }
    // Connected every time, listed never: the server is down throughout, reported once.
    expect(recorder.events.filter((event) => event === 'down')).toEqual(['down']);
    expect(recorder.ups).toBe(0);
    expect(recorder.listings.every((listing) => !listing.result.ok)).toBe(true);
    expect(waits().length).toBeGreaterThanOrEqual(5);
    expectDoubling(waits(), 40);
  });

  it('a held stdio server that exits on tools/list: the same', async () => {
    const pids = pidFile();
    const recorder = new Recorder();
    const spec = stdioFixture('hostile-server.mjs', ['--mode', 'exit-on-list'], { env: pids.env });
    const { held, waits } = hold(spec, recorder);
    try {
      await until('six spawns', () => pids.pids().length >= 6, recorder);
    } finally {
      await held.stop();
    }
    expect(recorder.events.filter((event) => event === 'down')).toEqual(['down']);
    expect(recorder.ups).toBe(0);
    expect(recorder.downs[0]).toMatch(/exited|closed/);
    expect(waits().length).toBeGreaterThanOrEqual(5);
    expectDoubling(waits(), 40);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('a session that listed and stayed up starts the backoff over', async () => {
    const pids = pidFile();
    const recorder = new Recorder();
    const spec = stdioFixture(SDK1.script, [], { env: pids.env });
    const stableMs = 150;
    const { held, waits } = hold(spec, recorder, {
      backoff: { initialMs: 40, maxMs: 60_000, stableMs },
    });
    try {
      for (let round = 1; round <= 4; round++) {
        await until(`up ${round}`, () => recorder.ups === round, recorder);
        // Long enough up to count as proved; then the server crashes.
        await delay(stableMs * 2);
        process.kill(pids.pids().at(-1)!, 'SIGKILL');
        await until(`down ${round}`, () => waits().length === round, recorder);
      }
    } finally {
      await held.stop();
    }
    // Every loss came after a proved session: each first retry waits the first step only.
    for (const wait of waits()) expect(wait).toBeLessThanOrEqual(40);
    expect(recorder.events.filter((event) => event === 'down')).toHaveLength(4);
    pids.remove();
  });
});
