import { DriftError } from './errors.js';

/**
 * Rejects when `work` has not settled within `ms`. An orchestrator's probe and a scrape must
 * get an answer while the database hangs or is gone; the work itself is left to finish or
 * fail on its own (postgres.js has no way to cancel a query that waits for a connection).
 */
export async function withTimeLimit<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DriftError('DATABASE_UNREACHABLE', `${what} took longer than ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A short reason for a failed database call: the driver's error with its SQLSTATE or errno.
 * drizzle wraps it in an error whose message repeats the whole query and its parameters.
 */
export function describeDatabaseError(error: unknown): string {
  if (error instanceof DriftError) return error.message;
  let innermost: unknown = error;
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return `${e.message} (${code})`;
    innermost = e;
  }
  return innermost instanceof Error ? innermost.message : String(innermost);
}
