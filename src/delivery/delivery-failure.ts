/**
 * A send that did not deliver. `permanent` failures (an SMTP 5xx, an HTTP 4xx other than
 * 429, a refused redirect) are not retried: the same request would be refused again.
 * Everything else (connection refused, timeouts, SMTP 4xx, HTTP 429 and 5xx) is retried
 * with backoff, or after `retryAfterMs` when the destination said when (Retry-After).
 */
export class DeliveryFailure extends Error {
  readonly permanent: boolean;
  readonly retryAfterMs: number | null;

  constructor(
    message: string,
    permanent: boolean,
    options: { cause?: unknown; retryAfterMs?: number | null } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryFailure';
    this.permanent = permanent;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/** Any error as a failure: what is not known to be final is worth another try. */
export function asDeliveryFailure(error: unknown): DeliveryFailure {
  if (error instanceof DeliveryFailure) return error;
  return new DeliveryFailure(error instanceof Error ? error.message : String(error), false, {
    cause: error,
  });
}

/** Stored as last_error and shown in one table cell: one line, bounded. */
export function oneLine(text: string, max = 500): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
