import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectSpec } from '../../src/mcp/index.js';
import {
  pidFile,
  startHttpFixture,
  stdioFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { holdSession, Recorder, until } from './held-session-support.js';

/*
 * Issue 12, defect 6: 10,000-20,000 notifications/tools/list_changed a second stalled the
 * whole service. A held session takes them off the wire before the SDK parses them, costs
 * O(1) each while a re-list is pending, and records a flood as a failed listing and drops
 * the session (whose reconnect then backs off).
 */

const FLOOD =
  /: the server sent more than 1000 notifications\/tools\/list_changed within 10 s, a flood; the session was dropped$/;

function expectFloodRecorded(recorder: Recorder): void {
  const failures = recorder.listings.filter((listing) => !listing.result.ok);
  expect(failures.length, recorder.describe()).toBeGreaterThanOrEqual(1);
  const first = failures[0]!;
  expect(first.trigger).toBe('notification');
  expect(first.result).toMatchObject({ ok: false, code: 'REMOTE_PROTOCOL' });
  expect(!first.result.ok && first.result.reason).toMatch(FLOOD);
  expect(recorder.downs[0]).toMatch(FLOOD);
  // At most the startup listing and the burst's two re-lists came before the drop.
  const listedFirst = recorder.listings.indexOf(first);
  expect(listedFirst).toBeLessThanOrEqual(3);
}

describe('HeldSession under a flood of change notifications', () => {
  let flooding: HttpFixture;
  beforeAll(async () => {
    flooding = await startHttpFixture('hostile-server.mjs', ['--mode', 'flood', '--rate', '20000']);
  });
  afterAll(() => flooding?.stop());

  it('over Streamable HTTP: records the flood as a failed listing and drops the session', async () => {
    const recorder = new Recorder();
    const spec: ConnectSpec = { name: 'flood', transport: 'http', url: `${flooding.baseUrl}/mcp` };
    const held = holdSession(spec, recorder, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    try {
      await until('the flood to be recorded', () => recorder.downs.length > 0, recorder);
    } finally {
      await held.stop();
    }
    expectFloodRecorded(recorder);
  });

  it('over stdio: the same', async () => {
    const pids = pidFile();
    const recorder = new Recorder();
    const spec = stdioFixture('hostile-server.mjs', ['--mode', 'flood', '--rate', '20000'], {
      env: pids.env,
    });
    const held = holdSession(spec, recorder, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    try {
      await until('the flood to be recorded', () => recorder.downs.length > 0, recorder);
    } finally {
      await held.stop();
    }
    expectFloodRecorded(recorder);
    pids.remove();
  });
});
