import { describe, expect, it } from 'vitest';
import {
  cleanActor,
  ConsoleKeys,
  LOGIN_CODE_SECONDS,
  SESSION_SECONDS,
} from '../../src/console/session.js';

const keys = new ConsoleKeys('a-console-token-of-some-length');

describe('console sessions', () => {
  it('accepts the token and no other', () => {
    expect(keys.tokenMatches('a-console-token-of-some-length')).toBe(true);
    expect(keys.tokenMatches('a-console-token-of-some-lengtH')).toBe(false);
    expect(keys.tokenMatches('')).toBe(false);
    expect(keys.tokenMatches(undefined)).toBe(false);
  });

  it('verifies a cookie it issued, with who logged in, until it expires', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    const { cookie, session } = keys.issue('Ada Lovelace', now);
    expect(keys.verify(cookie, now + 1000)).toEqual(session);
    expect(session.actor).toBe('Ada Lovelace');
    expect(keys.verify(cookie, now + SESSION_SECONDS * 1000 + 1000)).toBeNull();
  });

  it('refuses a cookie changed in any part, or signed with another token', () => {
    const { cookie } = keys.issue('Ada');
    const [id, issued, actor, mac] = cookie.split('.') as [string, string, string, string];
    const other = new ConsoleKeys('another-console-token-entirely');
    for (const forged of [
      `${id}x.${issued}.${actor}.${mac}`,
      `${id}.${Number(issued) + 1}.${actor}.${mac}`,
      `${id}.${issued}.${Buffer.from('admin').toString('base64url')}.${mac}`,
      `${id}.${issued}.${actor}`,
      other.issue('Ada').cookie,
    ]) {
      expect(keys.verify(forged)).toBeNull();
    }
  });

  it('refuses a revoked session, and a cookie this process did not issue', () => {
    const { cookie, session } = keys.issue('Ada');
    const other = keys.issue('Bob');
    keys.revoke(session);
    expect(keys.verify(cookie)).toBeNull();
    expect(keys.verify(other.cookie)).toEqual(other.session);
    // Same token, another process (or after a restart): signed right, but not kept there.
    expect(new ConsoleKeys('a-console-token-of-some-length').verify(other.cookie)).toBeNull();
  });

  it('takes a login code once, and not after it expires', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    const code = keys.loginCode(now);
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keys.redeemLoginCode(code, now + 1000)).toBe(true);
    expect(keys.redeemLoginCode(code, now + 2000)).toBe(false);
    const late = keys.loginCode(now);
    expect(keys.redeemLoginCode(late, now + LOGIN_CODE_SECONDS * 1000)).toBe(false);
    expect(keys.redeemLoginCode('a-console-token-of-some-length', now)).toBe(false);
    expect(keys.redeemLoginCode(undefined, now)).toBe(false);
  });

  it('ties a CSRF token to its session', () => {
    const first = keys.issue('Ada').session;
    const second = keys.issue('Ada').session;
    const token = keys.csrfToken(first);
    expect(keys.csrfMatches(first, token)).toBe(true);
    expect(keys.csrfMatches(second, token)).toBe(false);
    expect(keys.csrfMatches(first, undefined)).toBe(false);
  });

  it('keeps a login name to one line of printable text', () => {
    expect(cleanActor('  Ada\n\u202eLovelace\u0000 ')).toBe('Ada Lovelace');
    expect(cleanActor('')).toBe('console');
    expect(cleanActor('x'.repeat(100))).toHaveLength(64);
  });
});
