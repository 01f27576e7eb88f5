import { DeliveryFailure, oneLine } from './delivery-failure.js';

/** A refusal's reason is the body's start: Slack answers e.g. `invalid_blocks`. */
const REASON_BYTES = 1000;

/**
 * POSTs a JSON body and sorts the answer (docs/alerts.md): 2xx delivered; 429, 5xx,
 * timeouts and network errors retried (after Retry-After when given); any other answer,
 * redirects included, failed at once with the status and the body's reason. Redirects are
 * not followed: a POST redirected is a URL to correct, not to guess.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<void> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'mcp-drift', ...headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await readStart(response);
  } catch (error) {
    throw new DeliveryFailure(networkReason(error, timeoutMs), false, { cause: error });
  }
  const { status } = response;
  if (status >= 200 && status < 300) return;
  const reason = oneLine(`HTTP ${status}${text.trim() === '' ? '' : `: ${text}`}`, 300);
  if (status === 429 || status >= 500) {
    throw new DeliveryFailure(reason, false, {
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
    });
  }
  if (status >= 300 && status < 400) {
    const location = response.headers.get('location');
    throw new DeliveryFailure(
      `${reason} (redirected${location ? ` to ${oneLine(location, 200)}` : ''}; register the final URL)`,
      true,
    );
  }
  throw new DeliveryFailure(reason, true);
}

async function readStart(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < REASON_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).subarray(0, REASON_BYTES).toString('utf8');
}

/** Retry-After: delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function networkReason(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  // undici's TypeError("fetch failed") keeps the system error (ECONNREFUSED…) as its cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const message = error instanceof Error ? error.message : String(error);
  return oneLine(cause?.code ? `${cause.code}: ${cause.message ?? message}` : message, 300);
}
