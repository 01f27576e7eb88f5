export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/**
 * The wait before retry number `attempt` (0 for the first retry): exponential from
 * `initialMs`, capped at `maxMs`, with "equal jitter" (half fixed, half random) so that
 * servers lost together (a network blip, a worker taking over many) do not reconnect in
 * step, while no retry comes sooner than half its step.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const initial = Math.max(0, options.initialMs);
  const max = Math.max(initial, options.maxMs);
  // 2 ** 40 is far past any cap; the bound keeps the arithmetic finite.
  const step = Math.min(max, initial * 2 ** Math.min(Math.max(0, attempt), 40));
  return Math.round(step / 2 + random() * (step / 2));
}
