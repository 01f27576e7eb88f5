import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeapCompactor, MASS_START_SESSIONS } from '../../src/cli/serve-heap.js';
import type { Logger } from '../../src/log.js';

/** A logger that keeps what it was given. */
function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, msg: string): void =>
      void lines.push({ level, fields, msg });
  return { lines, logger: { info: at('info'), warn: at('warn') } as unknown as Logger };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('HeapCompactor', () => {
  it('compacts once after a mass start, never after a small burst, and not again soon', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { lines, logger } = recordingLogger();
    const compactor = new HeapCompactor(logger);

    compactor.afterBurst(MASS_START_SESSIONS - 1);
    vi.advanceTimersByTime(60_000);
    expect(lines).toEqual([]);

    // The tail of a burst may end it more than once: one compaction, after the last.
    compactor.afterBurst(MASS_START_SESSIONS);
    vi.advanceTimersByTime(2_000);
    compactor.afterBurst(MASS_START_SESSIONS + 5);
    vi.advanceTimersByTime(4_000);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ['info', 'compacted the heap after a mass start of held sessions'],
    ]);
    expect(lines[0]!.fields).toMatchObject({ sessions: MASS_START_SESSIONS + 5 });

    compactor.afterBurst(1_000);
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(1);
    compactor.stop();
  });
});
