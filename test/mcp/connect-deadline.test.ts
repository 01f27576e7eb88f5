import { setImmediate as realImmediate } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { probe, type ProbeResult } from '../../src/mcp/index.js';
import { isAlive, pidFile, stdioFixture } from '../support/mcp-fixtures.js';

/*
 * Issue 12, defect 9: a hung stdio server took 64 s to report a 30 s timeout: the
 * discovery probe and the handshake each had the whole timeout, and the era retry could
 * add a third. The clock here is vitest's: time passes only as the test advances it, so
 * "how long until the probe gives up" is a count of simulated milliseconds, not a race
 * against a loaded machine. The server is a real process that never answers.
 */

const TIMEOUT_MS = 30_000;

afterEach(() => {
  vi.useRealTimers();
});

/** Advances simulated time in steps until `result` settles; the simulated ms it took. */
async function simulatedMsUntil(
  result: Promise<ProbeResult>,
  limitMs: number,
): Promise<number | null> {
  let settled = false;
  void result.finally(() => (settled = true));
  let elapsed = 0;
  while (!settled && elapsed <= limitMs) {
    // Real I/O (the child's pipes) gets its turn between the steps.
    for (let i = 0; i < 5; i++) await realImmediate();
    await vi.advanceTimersByTimeAsync(250);
    elapsed += 250;
  }
  return settled ? elapsed : null;
}

describe('connecting to a hung stdio server', () => {
  it.each([
    { era: null, label: 'era unknown (probe, then handshake)' },
    { era: '2026' as const, label: 'stored era 2026 (pinned probe, then negotiation again)' },
  ])('reports the configured timeout within that timeout: $label', async ({ era }) => {
    const pids = pidFile();
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
    });
    const spec = {
      ...stdioFixture('hostile-server.mjs', ['--mode', 'silent'], { env: pids.env }),
      era,
    };
    const result = probe(spec, { env: {}, timeoutMs: TIMEOUT_MS, closeGraceMs: 100 });
    // The margin covers closing the child (its grace, then SIGTERM) after giving up.
    const took = await simulatedMsUntil(result, 2 * TIMEOUT_MS);
    expect(took, 'the probe was still connecting after twice its timeout').not.toBeNull();
    expect(took!).toBeLessThanOrEqual(TIMEOUT_MS + 5_000);
    const settled = await result;
    expect(settled).toMatchObject({ ok: false, code: 'REMOTE_TIMEOUT' });
    expect(!settled.ok && settled.reason).toMatch(
      new RegExp(`: no answer within ${TIMEOUT_MS} ms$`),
    );
    vi.useRealTimers();
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });
});
