import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/*
 * Console sessions: the cookie carries a random session id, when it was issued and who
 * logged in, signed with a key derived from the console token; and the serve process that
 * issued it keeps the id until logout or expiry. A cookie is valid only while both hold, so
 * logging out ends a session for good (a copied cookie is refused after), and a restart
 * ends every session. The CSRF token of a session is derived from its id with the same key:
 * a page's forms carry it, and only a page served to that session has it.
 *
 * Login codes: what the login link serve prints carries instead of the token. Each works
 * once and for LOGIN_CODE_SECONDS, so the link left in a browser's history, a terminal's
 * scrollback or a log is worth nothing.
 */

export const SESSION_COOKIE = 'mcp_drift_session';
/** A session lasts this long from login; logging in again starts a new one. */
export const SESSION_SECONDS = 7 * 24 * 3600;
/** A login link's code is good for this long, and once. */
export const LOGIN_CODE_SECONDS = 15 * 60;
/** Sessions kept at most; past it the oldest ends, so logins cannot fill the memory. */
const MAX_SESSIONS = 10_000;
const MAX_LOGIN_CODES = 100;
/** A name given at login is cut to this length. */
const ACTOR_MAX = 64;

export interface Session {
  id: string;
  /** The name given at login, for the record of what was done ("console" when none). */
  actor: string;
  issuedAt: number;
}

const b64 = (buffer: Buffer) => buffer.toString('base64url');
const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** Drops the entries whose expiry (the value, ms) has passed. */
function prune(entries: Map<string, number>, now: number): void {
  for (const [key, expires] of entries) if (expires <= now) entries.delete(key);
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A login name as it may be stored and shown: one line of printable text. */
export function cleanActor(name: string | undefined): string {
  const clean = (name ?? '')
    .replace(/[\p{C}]+/gu, ' ')
    .trim()
    .slice(0, ACTOR_MAX);
  return clean === '' ? 'console' : clean;
}

export class ConsoleKeys {
  private readonly tokenDigest: Buffer;
  private readonly key: Buffer;
  /** Live session ids and when each expires (ms), oldest first. */
  private readonly sessions = new Map<string, number>();
  /** Digests of unused login codes and when each expires (ms). */
  private readonly codes = new Map<string, number>();

  constructor(token: string) {
    this.tokenDigest = createHash('sha256').update(token).digest();
    this.key = createHmac('sha256', token).update('mcp-drift console session v1').digest();
  }

  /** Compares digests, so that neither the token's length nor its bytes leak by timing. */
  tokenMatches(candidate: string | undefined): boolean {
    if (candidate === undefined || candidate === '') return false;
    return sameBytes(createHash('sha256').update(candidate).digest(), this.tokenDigest);
  }

  issue(actor: string, now = Date.now()): { cookie: string; session: Session } {
    const session = {
      id: b64(randomBytes(18)),
      actor: cleanActor(actor),
      issuedAt: Math.floor(now / 1000),
    };
    prune(this.sessions, now);
    if (this.sessions.size >= MAX_SESSIONS)
      this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(session.id, now + SESSION_SECONDS * 1000);
    const body = `${session.id}.${session.issuedAt}.${b64(Buffer.from(session.actor))}`;
    return { cookie: `${body}.${this.sign(body)}`, session };
  }

  /** The session a cookie value names, or null when it is forged, malformed or expired. */
  verify(cookie: string | undefined, now = Date.now()): Session | null {
    if (!cookie) return null;
    const parts = cookie.split('.');
    if (parts.length !== 4) return null;
    const [id, issued, actor, mac] = parts as [string, string, string, string];
    if (!sameBytes(Buffer.from(mac), Buffer.from(this.sign(`${id}.${issued}.${actor}`))))
      return null;
    const issuedAt = Number(issued);
    if (!Number.isInteger(issuedAt) || now / 1000 - issuedAt > SESSION_SECONDS) return null;
    if (!this.sessions.has(id)) return null;
    return { id, actor: Buffer.from(actor, 'base64url').toString(), issuedAt };
  }

  /** Ends a session: its cookie is refused from now on, wherever it was copied to. */
  revoke(session: Session): void {
    this.sessions.delete(session.id);
  }

  /** A new one-time login code, for a login link. */
  loginCode(now = Date.now()): string {
    prune(this.codes, now);
    if (this.codes.size >= MAX_LOGIN_CODES) this.codes.delete(this.codes.keys().next().value!);
    const code = b64(randomBytes(32));
    this.codes.set(digest(code), now + LOGIN_CODE_SECONDS * 1000);
    return code;
  }

  /** Whether `code` is an unused, unexpired login code; it is used up by this call. */
  redeemLoginCode(code: string | undefined, now = Date.now()): boolean {
    if (!code) return false;
    const key = digest(code);
    const expires = this.codes.get(key);
    this.codes.delete(key);
    return expires !== undefined && now < expires;
  }

  csrfToken(session: Session): string {
    return this.sign(`csrf.${session.id}`);
  }

  csrfMatches(session: Session, candidate: string | undefined): boolean {
    if (!candidate) return false;
    return sameBytes(Buffer.from(candidate), Buffer.from(this.csrfToken(session)));
  }

  private sign(text: string): string {
    return b64(createHmac('sha256', this.key).update(text).digest());
  }
}
