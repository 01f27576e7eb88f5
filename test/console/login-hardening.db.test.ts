import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { LiveFeed } from '../../src/console/live-feed.js';
import { LoginThrottle } from '../../src/console/login-throttle.js';
import { localPath } from '../../src/console/params.js';
import { ConsoleKeys, LOGIN_CODE_SECONDS } from '../../src/console/session.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { servers } from '../../src/db/schema.js';
import type { RunningHttpServer } from '../../src/http/http-server.js';
import { startOpsServer } from '../../src/http/ops-server.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

/*
 * The console's login over real HTTP: where `next` may send a browser, throttling of wrong
 * tokens per client address (on a clock the test moves), Secure cookies behind a TLS proxy,
 * logout ending a session on the server, login links that work once, and a NUL in a URL
 * answered 400 without an error in the log. Two listeners: one with TRUST_PROXY, one without.
 */

const TOKEN = 'login-hardening-test-token-0123456789';
const logLines: string[] = [];
const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });

let database: TestDatabase;
let handle: DatabaseHandle;
let clock = Date.parse('2026-12-02T06:00:00Z');
const keys = new ConsoleKeys(TOKEN);
let trusting: RunningHttpServer;
let direct: RunningHttpServer;

async function listen(trustProxy: boolean): Promise<RunningHttpServer> {
  const config = loadConfig({
    HTTP_PORT: '0',
    CONSOLE_TOKEN: TOKEN,
    ...(trustProxy ? { TRUST_PROXY: '1' } : {}),
  });
  return startOpsServer({
    db: handle.db,
    config,
    logger,
    workerId: 'test-worker',
    console: {
      db: handle.db,
      config,
      logger,
      keys,
      live: new LiveFeed(handle.db, { logger }),
      throttle: new LoginThrottle({ now: () => clock }),
    },
  });
}

/** A login posted as the console's login page posts it. */
function login(
  server: RunningHttpServer,
  token: string,
  headers: Record<string, string> = {},
  next = '/',
) {
  return fetch(`${server.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      origin: server.url,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body: new URLSearchParams({ token, next }).toString(),
  });
}

const cookieOf = (answer: Response) => answer.headers.get('set-cookie')?.split(';')[0];

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  await handle.db
    .insert(servers)
    .values({ name: 'notes', transport: 'http', url: 'http://127.0.0.1:9/mcp' });
  trusting = await listen(true);
  direct = await listen(false);
});

afterAll(async () => {
  await trusting?.close();
  await direct?.close();
  await handle?.close();
  await database?.drop();
});

describe('the path `next` may send a browser to', () => {
  it('keeps a path of this console', () => {
    for (const path of ['/', '/servers/notes?window=7d', '/changes?severity=high#top', '/a%09b']) {
      expect(localPath(path)).toBe(path);
    }
  });

  it('sends anything else to /', () => {
    for (const path of [
      '//evil.example/',
      '/\\evil.example/',
      '/\t/evil.example/',
      '\t//evil.example/',
      '/\n/evil.example/',
      '/\r/evil.example/',
      '/ /evil.example/',
      '/x\\y',
      '/\u007f',
      '/\u0085x',
      '/é',
      'https://evil.example/',
      'evil.example',
      '',
      undefined,
    ]) {
      expect(localPath(path), JSON.stringify(path)).toBe('/');
    }
  });
});

describe(`the login over HTTP (${backend})`, () => {
  it('redirects a login with a tab in `next` to /, and offers none in the form', async () => {
    const answer = await login(
      trusting,
      TOKEN,
      { 'x-forwarded-for': '198.51.100.1' },
      '/\t/evil.example/',
    );
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
    const form = await fetch(`${trusting.url}/login?next=%09/evil.example/`);
    expect(await form.text()).toContain('name="next" value="/"');
  });

  it('locks an address out after a few wrong tokens, for twice as long each time', async () => {
    const from = { 'x-forwarded-for': '203.0.113.7' };
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 300; attempt++) {
      const answer = await login(trusting, `wrong-${attempt}`, from);
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.headers.get('retry-after')).toBe('1');
        expect(await answer.text()).toContain('Too many wrong tokens');
        break;
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    // Locked out, the right token is refused too, unchecked; another address is not.
    expect((await login(trusting, TOKEN, from)).status).toBe(429);
    expect((await login(trusting, TOKEN, { 'x-forwarded-for': '203.0.113.8' })).status).toBe(303);

    for (const seconds of [2, 4, 8]) {
      clock += (seconds / 2) * 1000;
      expect((await login(trusting, 'wrong-again', from)).status).toBe(401);
      const locked = await login(trusting, TOKEN, from);
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toBe(String(seconds));
    }
    clock += 8000;
    expect((await login(trusting, TOKEN, from)).status).toBe(303);
    // The right token cleared the address: its next wrong try is free again.
    expect((await login(trusting, 'wrong', from)).status).toBe(401);
    expect((await login(trusting, 'wrong', from)).status).toBe(401);
  });

  it('throttles bearer tokens, and ignores X-Forwarded-For without TRUST_PROXY', async () => {
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      const answer = await fetch(`${direct.url}/api/v1/servers`, {
        headers: {
          authorization: `Bearer wrong-${attempt}`,
          // A new address each time: believed, it would escape the throttle.
          'x-forwarded-for': `192.0.2.${attempt}`,
        },
      });
      statuses.push(answer.status);
      if (answer.status === 429) {
        const body = (await answer.json()) as { error: { code: string } };
        expect(body.error.code).toBe('TOO_MANY_REQUESTS');
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    clock += 60 * 60_000;
  });

  it('marks the cookie Secure when the request came over TLS, as a trusted proxy says', async () => {
    const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.2' };
    const behindProxy = await login(trusting, TOKEN, https);
    expect(behindProxy.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
    const plain = await login(trusting, TOKEN, { 'x-forwarded-for': '198.51.100.2' });
    expect(plain.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);
    // Without TRUST_PROXY anyone could send the header: it does not count.
    const untrusted = await login(direct, TOKEN, https);
    expect(untrusted.status).toBe(303);
    expect(untrusted.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);
  });

  it('ends the session on the server at logout: a copy of the cookie is refused after', async () => {
    const cookie = cookieOf(await login(direct, TOKEN))!;
    const page = await fetch(`${direct.url}/`, { headers: { cookie }, redirect: 'manual' });
    expect(page.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const logout = await fetch(`${direct.url}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie,
        origin: direct.url,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(logout.status).toBe(303);
    const after = await fetch(`${direct.url}/`, { headers: { cookie }, redirect: 'manual' });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/login?next=%2F');
    const api = await fetch(`${direct.url}/api/v1/servers`, { headers: { cookie } });
    expect(api.status).toBe(401);
  });

  it('takes a login link once; again, expired, or with the token itself, it is the login page', async () => {
    const link = `${direct.url}/servers/notes?token=${keys.loginCode()}`;
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/servers/notes');
    const cookie = cookieOf(first)!;
    expect((await fetch(`${direct.url}/`, { headers: { cookie } })).status).toBe(200);

    const expired = keys.loginCode(Date.now() - (LOGIN_CODE_SECONDS + 1) * 1000);
    for (const again of [
      link,
      `${direct.url}/?token=${expired}`,
      `${direct.url}/?token=${TOKEN}`,
    ]) {
      const answer = await fetch(again, { redirect: 'manual' });
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/login?link=used');
      expect(answer.headers.get('set-cookie')).toBeNull();
    }
    const page = await fetch(`${direct.url}/login?link=used`);
    expect(await page.text()).toContain('That login link has been used already');
  });

  it('answers a NUL in a name with 400, and logs no error', async () => {
    logLines.length = 0;
    const bearer = { authorization: `Bearer ${TOKEN}` };
    for (const path of [
      '/api/v1/servers/%00',
      '/api/v1/changes?server=%00',
      '/api/v1/alerts?server=a%00b',
    ]) {
      const answer = await fetch(`${direct.url}${path}`, { headers: bearer });
      expect(answer.status, path).toBe(400);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('INVALID_INPUT');
      expect(body.error.message).toContain('NUL');
    }
    const cookie = cookieOf(await login(direct, TOKEN))!;
    const page = await fetch(`${direct.url}/servers/%00`, { headers: { cookie } });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('NUL');
    const errors = logLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });
});
