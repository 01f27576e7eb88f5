import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';

/*
 * DNS rebinding: a page on evil.example whose name is made to resolve to 127.0.0.1 talks
 * to this listener as its own origin, so the browser lets it read every answer and sends
 * its posts with a matching Origin. The one thing it cannot forge is the Host header,
 * which names evil.example. So every request, before any route, must name this service:
 *
 * - an IP address literal: a browser connects to exactly that address, so a page whose
 *   origin is an IP literal was loaded from this listener itself (orchestrators' probes
 *   and scrapers reach a pod by its IP, and pass);
 * - `localhost`, HTTP_HOST when it is a name, and the names in CONSOLE_HOSTS.
 *
 * The port is not compared: a rebinding page already has to use this listener's port to
 * reach it, and a port mapped elsewhere (`docker run -p 9000:8464`, a proxy on 443) is the
 * port the browser sends.
 */

/** The host name of a Host header, in lower case, without port or brackets; null if malformed. */
export function hostNameOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? bracketed[1]! : null;
  const plain = /^([^:[\]]+)(?::\d{1,5})?$/.exec(value);
  if (!plain) return null;
  return plain[1]!.replace(/\.$/, '');
}

export function hostAllowed(header: string | undefined, names: ReadonlySet<string>): boolean {
  const name = hostNameOf(header);
  if (name === null || name === '') return false;
  return isIP(name) !== 0 || name === 'localhost' || names.has(name);
}

/** The names besides IP literals and `localhost`: HTTP_HOST when it is one, CONSOLE_HOSTS. */
export function allowedNames(httpHost: string, consoleHosts: readonly string[]): Set<string> {
  const names = new Set(consoleHosts.map((name) => name.toLowerCase()));
  const bound = httpHost.trim().toLowerCase().replace(/\.$/, '');
  if (isIP(bound) === 0 && bound !== '') names.add(bound);
  return names;
}

/** Refuses with 421 Misdirected Request a request whose Host is not a name of this service. */
export function hostAllowList(names: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    // No Host header (HTTP/1.0, app.request in a bench): judged by the URL built without
    // one; a browser always sends it, so this is no way around the check.
    if (hostAllowed(c.req.header('host') ?? new URL(c.req.url).host, names)) return next();
    return new Response(
      'misdirected request: this service does not answer to that host name; ' +
        'add the name to CONSOLE_HOSTS to serve it there\n',
      {
        status: 421,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        },
      },
    );
  };
}
