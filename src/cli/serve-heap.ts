import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '../log.js';

/** How far V8 lets the heap grow past what its last full collection kept. */
const HEAP_GROWING_PERCENT = 40;

/**
 * Keeps serve's heap close to what it holds. A held session keeps about 100 KB alive, and
 * with the default heuristics V8 lets the heap grow to several times the live size before
 * a full collection: at 1,000 held sessions, 130 MB live became 280–365 MB of heap and an
 * RSS of 380–440 MB (bench/watch.bench.ts), most of it garbage from pings and re-lists.
 * A fixed growth factor trades that memory for more frequent full collections, which the
 * bench shows as a higher notification-to-commit p99, still well within target.
 *
 * V8 reads this flag at each collection, so setting it once serve starts has the effect
 * of the command-line flag (checked on Node 20); node does not accept it in NODE_OPTIONS.
 * An operator's own `--heap-growing-percent` on the command line is left alone.
 */
export function keepHeapNearLiveSize(): void {
  if (process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** A burst of at least this many session starts is followed by one compaction. */
export const MASS_START_SESSIONS = 200;
/** The compaction waits for the burst to have been over this long (its tail may flicker). */
const COMPACT_AFTER_MS = 5_000;
/**
 * Compactions are this far apart at least: servers that stay down are retried in bursts
 * too (a thousand refused connections a minute), and those leave little to compact.
 */
const MIN_INTERVAL_MS = 10 * 60_000;

/**
 * One compacting full collection, a few seconds after a mass start of held sessions (a
 * serve taking on hundreds of servers, or getting them back after a network outage). The
 * sessions' long-lived objects are promoted to the old generation in between the garbage
 * of the start-up (handshakes, listings, their recording): once that garbage is gone, the
 * old generation is a third empty space that no ordinary collection gives back, since V8
 * compacts only when the heap is short of memory or idle (and a serve pinging 1,000
 * sessions is never idle). Measured at 1,000 held sessions: old space 173 MB for 125 MB
 * live, 127 MB after this; RSS down by about 50 MB, for a pause of 0.2–0.8 s once.
 *
 * `gc` is exposed for this only, through a fresh context (the flag applies to contexts
 * made after it is set), and compaction is forced for that one collection.
 */
export class HeapCompactor {
  private timer: NodeJS.Timeout | undefined;
  private gc: (() => void) | undefined;
  private lastAt = -Infinity;

  constructor(private readonly logger: Logger) {}

  /** A burst of `sessions` starts just ended: compact soon, once. */
  afterBurst(sessions: number): void {
    if (sessions < MASS_START_SESSIONS) return;
    if (performance.now() - this.lastAt < MIN_INTERVAL_MS) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.compact(sessions), COMPACT_AFTER_MS);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private compact(sessions: number): void {
    const before = getHeapStatistics();
    const started = performance.now();
    this.lastAt = started;
    try {
      if (!this.gc) {
        setFlagsFromString('--expose-gc');
        this.gc = runInNewContext('gc') as () => void;
      }
      setFlagsFromString('--compact-on-every-full-gc');
      try {
        this.gc();
      } finally {
        setFlagsFromString('--no-compact-on-every-full-gc');
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not compact the heap');
      return;
    }
    const after = getHeapStatistics();
    const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
    this.logger.info(
      {
        sessions,
        ms: Math.round(performance.now() - started),
        heapMb: { before: mb(before.total_heap_size), after: mb(after.total_heap_size) },
        liveMb: mb(after.used_heap_size),
      },
      'compacted the heap after a mass start of held sessions',
    );
  }
}
