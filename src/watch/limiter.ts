/** A cap on concurrent work (house style: concurrency is capped). */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** Tasks started since the limiter was last idle. */
  private ran = 0;

  /**
   * `onIdle` is called whenever the last task running ends with none waiting, with how
   * many tasks ran since the limiter was last idle (the size of the burst that just ended).
   */
  constructor(
    private readonly max: number,
    private readonly onIdle?: (ran: number) => void,
  ) {}

  /**
   * Runs `task` once a slot is free. A `signal` that aborts while waiting gives up the
   * place in the queue and rejects with its reason; `task` then never runs.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.max) {
      this.active++;
      this.ran++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(grant);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      // The slot passes straight from release() to the waiter: `active` never drops in
      // between, so a newcomer cannot slip in ahead of the queue and exceed the cap.
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.ran++;
        resolve();
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
      return;
    }
    this.active--;
    if (this.active === 0) {
      const ran = this.ran;
      this.ran = 0;
      this.onIdle?.(ran);
    }
  }
}
