/*
 * The one primitive under every background loop of the service (supervisor, alert
 * dispatchers, history pruner, console live feed): a pass, an abortable wait, again, until
 * stopped. A pass that throws is reported through `onError` and the loop goes on; nothing a
 * pass does can end the loop but `stop()` (docs/architecture.md, The service entry).
 */

/**
 * What stopping any part of the service may take before it is left behind: a pass still
 * running after this (a send mid-flight, a probe mid-connect) is abandoned, and the
 * database's close ends what it waited on. Within run-cli's 5 s shutdown deadline, with the
 * rest for closing the database (it abandons queries still pending after 1 s).
 */
export const STOP_GRACE_MS = 3_500;

/**
 * Waits `ms`, or less if `signal` aborts; never rejects. Resolves true when the full time
 * passed. On the global timer functions, so that tests can drive it with fake timers.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (full: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      resolve(full);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), Math.max(0, ms));
    signal.addEventListener('abort', aborted, { once: true });
  });
}

export interface LoopOptions {
  /**
   * One pass. Resolves with the wait before the next pass, in ms; `signal` aborts on stop,
   * and a pass should give up its own waits then.
   */
  pass: (signal: AbortSignal) => Promise<number>;
  /**
   * A pass threw: log it (the loop does not) and say how long to wait before the next.
   * `failures` counts the passes that failed in a row, from 1.
   */
  onError: (error: unknown, failures: number) => number;
  /** The wait before the first pass; 0 (the default) runs it at once. */
  firstDelayMs?: number;
  /**
   * Each wait is shortened by up to this fraction of itself, at random, so that workers
   * started together do not run their passes in step. 0 (the default) waits exactly.
   */
  jitter?: number;
  /** After the last pass, within the stop grace: what the loop still waits for (sends in flight). */
  drain?: () => Promise<unknown>;
  random?: () => number;
}

/**
 * A never-throwing, abortable loop. `start()` and `stop()` are idempotent; `stop()` waits
 * for the pass in progress at most `graceMs` and resolves false when it left one behind.
 */
export class Loop {
  private readonly options: LoopOptions;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private wakeUp: AbortController | undefined;

  constructor(options: LoopOptions) {
    this.options = options;
  }

  /** Aborts when the loop is told to stop: passes hand it to what they wait on. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  start(): void {
    if (this.stopped) return;
    this.running ??= this.run();
  }

  /** Ends the current wait: the next pass runs now (the loop must be started). */
  wake(): void {
    this.wakeUp?.abort();
  }

  async stop(graceMs: number = STOP_GRACE_MS): Promise<boolean> {
    this.stopping.abort();
    if (!this.running) return true;
    const grace = new AbortController();
    const finished = await Promise.race([
      this.running.then(() => true),
      sleep(graceMs, grace.signal).then(() => false),
    ]);
    grace.abort();
    return finished;
  }

  private async run(): Promise<void> {
    let wait = this.options.firstDelayMs ?? 0;
    let failures = 0;
    while (await this.waitFor(wait)) {
      try {
        wait = await this.options.pass(this.signal);
        failures = 0;
      } catch (error) {
        failures += 1;
        try {
          wait = this.options.onError(error, failures);
        } catch {
          wait = 1_000;
        }
      }
    }
    try {
      await this.options.drain?.();
    } catch {
      // What the drain waited for reports its own failures; the loop is over either way.
    }
  }

  /** False once stopped; a wake() ends the wait early and still runs the next pass. */
  private async waitFor(ms: number): Promise<boolean> {
    if (this.stopped) return false;
    if (ms > 0) {
      const jitter = Math.min(1, Math.max(0, this.options.jitter ?? 0));
      const random = this.options.random ?? Math.random;
      const wake = (this.wakeUp = new AbortController());
      const either = AbortSignal.any([this.signal, wake.signal]);
      await sleep(Math.round(ms - ms * jitter * random()), either);
      this.wakeUp = undefined;
    }
    return !this.stopped;
  }
}
