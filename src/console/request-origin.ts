import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/*
 * Where a request came from, as far as the console may believe it. Behind a proxy every
 * request comes from the proxy; with TRUST_PROXY the proxy's own X-Forwarded-For and
 * X-Forwarded-Proto say who the client is and whether it spoke TLS. Without it those
 * headers are ignored, since any client can send them.
 */

/** The client's address: the last X-Forwarded-For entry (the one the proxy added), or the peer. */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // Not served by node (app.request in a bench): one address for all.
    return 'unknown';
  }
}

/** The request reached us over TLS, or reached the trusted proxy over it. */
export function overTls(c: Context, trustProxy: boolean): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  if (!trustProxy) return false;
  return c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}
