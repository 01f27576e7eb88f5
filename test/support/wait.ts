import { setTimeout as delay } from 'node:timers/promises';

/**
 * Polls until `condition` holds. The deadline is a bound on a hang, not a timing claim:
 * the failure says what was awaited, and `describe` what was seen instead.
 */
export async function waitUntil(
  what: string,
  condition: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; describe?: () => string | Promise<string> } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (!(await condition())) {
    if (Date.now() > deadline) {
      const seen = options.describe ? `; ${await options.describe()}` : '';
      throw new Error(`timed out waiting for ${what}${seen}`);
    }
    await delay(50);
  }
}
