import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../src/mcp/index.js';
import { Limiter } from '../../src/watch/limiter.js';
import { isAlive, pidFile, stdioFixture } from '../support/mcp-fixtures.js';
import {
  expectFixtureListing,
  holdSession,
  QUIET_MS,
  Recorder,
  SDK1,
  until,
} from './held-session-support.js';

// Sessions sharing an `opens` limiter come up a few at a time: a slot covers the connect
// and the startup listing up to its delivery, so a worker taking on many servers never has
// more handshakes and listings in flight (and in memory) than the cap.

/** A listener whose startup delivery blocks until released, as a slow database would. */
class BlockingRecorder extends Recorder {
  private release: () => void = () => {};
  readonly released = new Promise<void>((resolve) => (this.release = resolve));
  delivering = false;

  override async onListing(...args: Parameters<Recorder['onListing']>): Promise<void> {
    this.delivering = true;
    await this.released;
    await super.onListing(...args);
  }

  unblock(): void {
    this.release();
  }
}

describe('HeldSession: a shared cap on opening sessions', () => {
  it('the next session connects only once the first has delivered its startup listing', async () => {
    const pids = pidFile();
    const opens = new Limiter(1);
    const first = new BlockingRecorder();
    const second = new Recorder();
    const spec = (name: string) => stdioFixture(SDK1.script, [], { name, env: pids.env });
    const a = holdSession(spec('first'), first, { opens });
    const b = holdSession(spec('second'), second, { opens });
    try {
      await until('the first startup listing in delivery', () => first.delivering, first);
      await delay(QUIET_MS);
      // The second has not even spawned its server: it waits for the slot.
      expect(b.state).toBe('connecting');
      expect(second.events).toEqual([]);
      expect(pids.pids()).toHaveLength(1);

      first.unblock();
      await until('the second startup listing', () => second.listings.length === 1, second);
      expectFixtureListing(first.listings[0], SDK1, 'startup', 'base');
      expectFixtureListing(second.listings[0], SDK1, 'startup', 'base');
      expect(second.events).toEqual(['up', 'listing:startup']);
    } finally {
      first.unblock();
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(pids.pids()).toHaveLength(2);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });

  it('stop() while waiting for a slot ends the wait: no connect, no callback', async () => {
    const pids = pidFile();
    const opens = new Limiter(1);
    const first = new BlockingRecorder();
    const second = new Recorder();
    const a = holdSession(stdioFixture(SDK1.script, [], { env: pids.env }), first, { opens });
    const b = holdSession(stdioFixture(SDK1.script, [], { env: pids.env }), second, { opens });
    try {
      await until('the first startup listing in delivery', () => first.delivering, first);
      await b.stop();
      expect(b.state).toBe('stopped');
      expect(second.events).toEqual([]);
    } finally {
      first.unblock();
      await a.stop();
    }
    const delivered: ProbeResult | undefined = first.listings[0]?.result;
    expect(delivered?.ok).toBe(true);
    expect(pids.pids()).toHaveLength(1);
    expect(pids.pids().filter(isAlive)).toEqual([]);
    pids.remove();
  });
});
