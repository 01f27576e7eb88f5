import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/*
 * Console sessions without server-side state: the cookie carries a random session id, when
 * it was issued and who logged in, signed with a key derived from the console token. So a
 * session survives a restart and is valid on every `serve` sharing the token, and changing
 * the token ends every session. The CSRF token of a session is derived from its id with
 * the same key: a page's forms carry it, and only a page served to that session has it.
 */

export const SESSION_COOKIE = 'mcp_drift_session';
/** A session lasts this long from login; logging in again starts a new one. */
export const SESSION_SECONDS = 7 * 24 * 3600;
/** A name given at login is cut to this length. */
const ACTOR_MAX = 64;

export interface Session {
  id: string;
  /** The name given at login, for the record of what was done ("console" when none). */
  actor: string;
  issuedAt: number;
}

const b64 = (buffer: Buffer) => buffer.toString('base64url');

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
    return { id, actor: Buffer.from(actor, 'base64url').toString(), issuedAt };
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
