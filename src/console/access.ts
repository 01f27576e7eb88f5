import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Actor } from '../audit/operator-actions-repo.js';
import type { LoginThrottle } from './login-throttle.js';
import { localPath } from './params.js';
import { clientAddress, overTls } from './request-origin.js';
import {
  cleanActor,
  SESSION_COOKIE,
  SESSION_SECONDS,
  type ConsoleKeys,
  type Session,
} from './session.js';

/*
 * Who may use the console, and how a request proves it. Every route but /healthz, /readyz
 * and /metrics (served before these run) and the login page and its stylesheet needs the
 * token: as an `Authorization: Bearer` header (the API, scripts), or a session cookie from
 * logging in with it (the login form), or from a login link serve prints (`/?token=` and a
 * one-time code, never the token itself). A request without either is sent to /login
 * (pages) or answered 401 (the API, the event stream). Every check of a token or code is
 * throttled per client address (login-throttle.ts). A state-changing request on a session must come from a page of this console:
 * the same origin (Sec-Fetch-Site, Origin) and the session's CSRF token.
 */

export type ConsoleEnv = {
  Variables: {
    session: Session | null;
    actor: Actor;
    /** Authenticated by a bearer token rather than a session cookie. */
    bearer: boolean;
  };
};

const PUBLIC = new Set(['/login', '/assets/console.css', '/assets/console.js', '/favicon.ico']);
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What the checks of who may log in need besides the keys. */
export interface AccessOptions {
  keys: ConsoleKeys;
  throttle: LoginThrottle;
  /** TRUST_PROXY: believe the proxy's X-Forwarded-For and X-Forwarded-Proto. */
  trustProxy: boolean;
}

/**
 * Headers of every console answer. The policy allows script and style from this origin
 * only, so nothing a server wrote could run even if it reached a page unescaped; forms post
 * only here; no page may be framed. No referrer leaves for another origin (a login link
 * carries a one-time code, though it redirects at once); within the console it is kept, since
 * with `no-referrer` browsers send `Origin: null` on form posts, and the origin check
 * needs the real one.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const headers = c.res.headers;
  headers.set(
    'content-security-policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
      "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  headers.set('x-content-type-options', 'nosniff');
  headers.set('referrer-policy', 'same-origin');
  headers.set('x-frame-options', 'DENY');
  headers.set('cross-origin-opener-policy', 'same-origin');
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store');
};

export function isApi(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === '/events';
}

export function unauthorized(c: Context, message: string): Response {
  return c.json({ error: { code: 'UNAUTHORIZED', message } }, 401, {
    'www-authenticate': 'Bearer realm="mcp-drift console"',
  });
}

/** Seconds to tell a throttled client in Retry-After. */
export const retrySeconds = (waitMs: number) => Math.max(1, Math.ceil(waitMs / 1000));

export function tooManyTries(c: Context, waitMs: number): Response {
  const seconds = retrySeconds(waitMs);
  return c.json(
    {
      error: {
        code: 'TOO_MANY_REQUESTS',
        message: `too many wrong tokens from this address; try again in ${seconds} s`,
      },
    },
    429,
    { 'retry-after': String(seconds) },
  );
}

export function startSession(c: Context, access: AccessOptions, actor: string): Session {
  const { cookie, session } = access.keys.issue(actor);
  setCookie(c, SESSION_COOKIE, cookie, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    maxAge: SESSION_SECONDS,
    // Behind a TLS proxy the request to us is plain HTTP; TRUST_PROXY lets its word count.
    secure: overTls(c, access.trustProxy),
  });
  return session;
}

export function authenticate(access: AccessOptions): MiddlewareHandler<ConsoleEnv> {
  const { keys, throttle } = access;
  return async (c, next) => {
    const path = c.req.path;
    const session = keys.verify(getCookie(c, SESSION_COOKIE));
    c.set('session', session);
    c.set('bearer', false);
    c.set('actor', { name: session?.actor ?? 'console', via: 'console' });
    if (PUBLIC.has(path)) return next();

    const address = clientAddress(c, access.trustProxy);
    const authorization = c.req.header('authorization');
    if (authorization !== undefined) {
      const wait = throttle.wait(address);
      if (wait > 0) return tooManyTries(c, wait);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match || !keys.tokenMatches(match[1])) {
        throttle.failed(address);
        return unauthorized(c, 'the bearer token is not the console token');
      }
      throttle.succeeded(address);
      c.set('bearer', true);
      c.set('actor', { name: cleanActor(c.req.header('x-mcp-drift-actor') ?? 'api'), via: 'api' });
      return next();
    }

    // A login link: `/?token=<one-time code>` starts a session, then drops the code from the
    // address bar by redirecting. Used once, or expired, or locked out: the login page.
    const code = c.req.query('token');
    if (code !== undefined && c.req.method === 'GET' && !isApi(path)) {
      if (throttle.wait(address) > 0) return c.redirect('/login?link=throttled', 303);
      if (!keys.redeemLoginCode(code)) {
        throttle.failed(address);
        return c.redirect('/login?link=used', 303);
      }
      throttle.succeeded(address);
      startSession(c, access, 'console');
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      return c.redirect(localPath(`${url.pathname}${url.search}`), 303);
    }

    if (session) return next();
    if (isApi(path))
      return unauthorized(c, 'log in, or send Authorization: Bearer <console token>');
    const url = new URL(c.req.url);
    return c.redirect(`/login?next=${encodeURIComponent(`${url.pathname}${url.search}`)}`, 303);
  };
}

/**
 * The request comes from a page of this console: Sec-Fetch-Site says same-origin, and the
 * Origin names this host. Browsers send at least one of them with every POST; a request
 * with neither is refused, since it cannot show where it came from.
 */
export function fromThisOrigin(c: Context): boolean {
  const site = c.req.header('sec-fetch-site');
  const origin = c.req.header('origin');
  if (site === undefined && origin === undefined) return false;
  if (site !== undefined && site !== 'same-origin') return false;
  if (origin !== undefined) {
    try {
      if (new URL(origin).host !== c.req.header('host')) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** State-changing requests on a session: this origin and the session's CSRF token. */
export function checkCsrf({ keys }: AccessOptions): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (!UNSAFE.has(c.req.method) || c.get('bearer') || c.req.path === '/login') return next();
    const session = c.get('session');
    const refuse = (message: string) =>
      isApi(c.req.path)
        ? c.json({ error: { code: 'FORBIDDEN', message } }, 403)
        : c.text(`${message}\n`, 403);
    if (!session) return refuse('log in first');
    if (!fromThisOrigin(c)) return refuse('refused: this request did not come from a console page');
    const type = c.req.header('content-type') ?? '';
    const sent =
      c.req.header('x-csrf-token') ??
      (type.startsWith('application/x-www-form-urlencoded') ||
      type.startsWith('multipart/form-data')
        ? formValue(await c.req.parseBody(), '_csrf')
        : undefined);
    if (!keys.csrfMatches(session, sent))
      return refuse('refused: the form carried no valid CSRF token; reload the page');
    return next();
  };
}

export function formValue(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

/** Every value of a repeated field (checkboxes), from `parseBody({ all: true })`. */
export function formValues(body: Record<string, unknown>, name: string): string[] {
  const value = body[name];
  return (Array.isArray(value) ? (value as unknown[]) : [value]).filter(
    (item): item is string => typeof item === 'string',
  );
}
