import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import { loadConfig } from '../../src/config/load.js';
import { LiveFeed } from '../../src/console/live-feed.js';
import { LoginThrottle } from '../../src/console/login-throttle.js';
import { ConsoleKeys, SESSION_COOKIE } from '../../src/console/session.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  baselines,
  changes,
  operatorActions,
  servers,
  type ServerRow,
} from '../../src/db/schema.js';
import type { RunningHttpServer } from '../../src/http/http-server.js';
import { startOpsServer } from '../../src/http/ops-server.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { createLogger } from '../../src/log.js';
import { markDown } from '../../src/watch/outages-repo.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed } from '../support/probe-results.js';

/*
 * The console over real HTTP, in-process, on this file's own database with real recorded
 * changes: who may see what, CSRF and origin checks on every action, the API, and server
 * text that tries to be markup.
 */

const TOKEN = 'console-test-token-0123456789';
const HOSTILE = 'Reads a note. <script>alert(1)</script><img src=x onerror=alert(2)>';
const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
const logger = createLogger('silent');

let database: TestDatabase;
let handle: DatabaseHandle;
let http: RunningHttpServer;
let live: LiveFeed;
let url: string;
let cookie: string;
let csrf: string;
const keys = new ConsoleKeys(TOKEN);
const ids: {
  notesChange: number;
  notesAlert: number;
  hostileChange: number;
  notesTo: string;
  lonelyAlert: number;
} = {
  notesChange: 0,
  notesAlert: 0,
  hostileChange: 0,
  notesTo: '',
  lonelyAlert: 0,
};

async function newServer(name: string, extra: Partial<ServerRow> = {}): Promise<ServerRow> {
  const [row] = await handle.db
    .insert(servers)
    .values({ name, transport: 'http', url: `http://127.0.0.1:9/${name}`, ...extra })
    .returning();
  return row!;
}

function observe(server: ServerRow, tools: RawTool[]) {
  return recordObservation(handle.db, {
    alerts: emailOnlyPolicy(['ops@example.org']),
    server,
    result: listed(tools),
    trigger: 'poll',
    startedAt: new Date(),
  });
}

/** A request as a browser on a console page sends it: same origin, the session cookie. */
function browserPost(
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return fetch(`${url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie,
      origin: url,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
}

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { redirect: 'manual', headers });

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  const notes = await newServer('notes');
  await observe(notes, memory);
  const change = (await observe(notes, relaxed(memory, 'delete_entities'))).change!;
  ids.notesChange = change.row.id;
  ids.notesAlert = change.alert!.alert.id;
  ids.notesTo = change.row.toHash;

  const hostileTools = memory.map((tool) =>
    tool.name === 'read_graph' ? { ...tool, description: HOSTILE } : tool,
  );
  const hostile = await newServer('hostile');
  await observe(hostile, hostileTools);
  const edited = hostileTools.map((tool) =>
    tool.name === 'read_graph'
      ? {
          ...tool,
          description: `${HOSTILE} \u200bNow <b>bold</b>.`,
          annotations: { ...(tool['annotations'] as object), openWorldHint: true },
        }
      : tool,
  );
  ids.hostileChange = (await observe(hostile, edited)).change!.row.id;

  // Recorded when nobody was to be told: its alert is undeliverable until someone is.
  const lonely = await newServer('lonely');
  const quiet = (tools: RawTool[]) =>
    recordObservation(handle.db, {
      alerts: emailOnlyPolicy([]),
      server: lonely,
      result: listed(tools),
      trigger: 'poll',
      startedAt: new Date(),
    });
  await quiet(memory);
  ids.lonelyAlert = (await quiet(relaxed(memory, 'delete_entities'))).change!.alert!.alert.id;

  const down = await newServer('down-one', { transport: 'stdio', url: null, command: 'node' });
  await markDown(handle.db, down.id, new Date(), 'connection refused');

  const config = loadConfig({ HTTP_PORT: '0', CONSOLE_TOKEN: TOKEN });
  live = new LiveFeed(handle.db, { logger });
  http = await startOpsServer({
    db: handle.db,
    config,
    logger,
    workerId: 'test-worker',
    console: {
      db: handle.db,
      config,
      logger,
      keys,
      live,
      // This file tries wrong tokens on every route; throttling has its own test
      // (login-hardening.db.test.ts).
      throttle: new LoginThrottle({ freeFailures: 10_000 }),
    },
  });
  url = http.url;

  // Log in as a browser would, with a name for the record.
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: TOKEN, name: 'Ada', next: '/' }).toString(),
  });
  expect(login.status).toBe(303);
  const setCookie = login.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/HttpOnly/i);
  expect(setCookie).toMatch(/SameSite=Strict/i);
  cookie = setCookie.split(';')[0]!;
  const fleet = await (await get('/', { cookie })).text();
  csrf = /name="_csrf" value="([^"]+)"/.exec(fleet)![1]!;
});

afterAll(async () => {
  live?.stop();
  await http?.close();
  await handle?.close();
  await database?.drop();
});

/** Every page and API route of the console, with a method. */
function routes(): [string, string][] {
  return [
    ['GET', '/'],
    ['GET', '/servers/notes'],
    ['GET', `/changes/${ids.notesChange}`],
    ['GET', '/changes'],
    ['GET', '/alerts'],
    ['GET', '/no-such-page'],
    ['GET', '/events'],
    ['GET', '/api/v1/servers'],
    ['GET', '/api/v1/servers/notes'],
    ['GET', '/api/v1/changes'],
    ['GET', `/api/v1/changes/${ids.notesChange}`],
    ['GET', '/api/v1/alerts'],
    ['POST', '/api/v1/servers/notes/baseline'],
    ['POST', '/api/v1/servers/notes/disable'],
    ['POST', `/api/v1/alerts/${ids.notesAlert}/ack`],
    ['POST', `/api/v1/alerts/${ids.notesAlert}/retry`],
    ['GET', '/servers/notes/approve'],
    ['GET', '/api/v1/servers/notes/approval'],
    ['POST', '/servers/notes/baseline'],
    ['POST', '/servers/notes/disable'],
    ['POST', '/servers/notes/enable'],
    ['POST', `/alerts/${ids.notesAlert}/ack`],
    ['POST', `/alerts/${ids.notesAlert}/retry`],
  ];
}

describe(`the console's access rules (${backend})`, () => {
  it('answers every page with a redirect to /login, and every API route with 401, without a token', async () => {
    for (const [method, path] of routes()) {
      for (const headers of [
        {},
        { authorization: 'Bearer not-the-token' },
        { cookie: `${SESSION_COOKIE}=forged.1.Y29uc29sZQ.x` },
      ] as Record<string, string>[]) {
        const answer = await fetch(`${url}${path}`, { method, redirect: 'manual', headers });
        const api = path.startsWith('/api/') || path === '/events';
        if (api || 'authorization' in headers) {
          expect(answer.status, `${method} ${path}`).toBe(401);
          expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
        } else if (method === 'GET') {
          expect(answer.status, `${method} ${path}`).toBe(303);
          expect(answer.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
        } else {
          expect([303, 403], `${method} ${path}`).toContain(answer.status);
          if (answer.status === 303) expect(answer.headers.get('location')).toMatch(/^\/login/);
        }
        await answer.body?.cancel();
      }
    }
    // Nothing was done by any of them.
    expect(await handle.db.select().from(operatorActions)).toEqual([]);
  });

  it('keeps /healthz, /readyz and /metrics open, and the login page with its stylesheet', async () => {
    for (const path of [
      '/healthz',
      '/readyz',
      '/metrics',
      '/login',
      '/assets/console.css',
      '/assets/console.js',
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      await answer.text();
    }
  });

  it('refuses a wrong token at the login form, and logs in with a login link', async () => {
    const wrong = await fetch(`${url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'nope', next: '/' }).toString(),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    // A login posted from another site is refused whatever it carries.
    const forged = await fetch(`${url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: 'http://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: TOKEN }).toString(),
    });
    expect(forged.status).toBe(403);
    const byUrl = await get(`/changes?token=${keys.loginCode()}&severity=critical`);
    expect(byUrl.status).toBe(303);
    // The code leaves the address; the filter stays.
    expect(byUrl.headers.get('location')).toBe('/changes?severity=critical');
    expect(byUrl.headers.get('set-cookie')).toMatch(/^mcp_drift_session=.*HttpOnly/i);
    const next = await get('/login?next=//evil.example/');
    expect(await next.text()).toContain('name="next" value="/"');
  });

  it('answers the pages with a Content-Security-Policy that allows no inline script', async () => {
    const answer = await get('/', { cookie });
    expect(answer.status).toBe(200);
    const policy = answer.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    const html = await answer.text();
    expect(html).toMatch(/^<!doctype html>/);
    // The only script element is console.js, by URL.
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/assets/console.js" defer="">']);
  });

  it('refuses an action without the CSRF token, with a wrong one, or from another origin', async () => {
    const attempts = [
      browserPost(`/alerts/${ids.notesAlert}/ack`, {}),
      browserPost(`/alerts/${ids.notesAlert}/ack`, { _csrf: 'x'.repeat(43) }),
      browserPost(
        `/alerts/${ids.notesAlert}/ack`,
        { _csrf: csrf },
        { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      ),
      browserPost(
        `/alerts/${ids.notesAlert}/ack`,
        { _csrf: csrf },
        { origin: 'http://evil.example', 'sec-fetch-site': 'same-site' },
      ),
      browserPost('/servers/notes/disable', { _csrf: csrf }, { origin: 'http://evil.example' }),
      fetch(`${url}/servers/notes/disable`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `_csrf=${csrf}`,
      }),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status).toBe(403);
      expect(await answer.text()).toMatch(/^refused/);
    }
    const [alertRow] = (
      (await await get('/api/v1/alerts', { authorization: `Bearer ${TOKEN}` }).then((r) =>
        r.json(),
      )) as { alerts: { id: number; status: string }[] }
    ).alerts.filter((a) => a.id === ids.notesAlert);
    expect(alertRow!.status).not.toBe('acknowledged');
    const [server] = await handle.db.select().from(servers).where(eq(servers.name, 'notes'));
    expect(server!.enabled).toBe(true);
  });
});

describe(`the console's actions and API (${backend})`, () => {
  it('approves exactly the hash a page posts, and records who did', async () => {
    // A prefix, even of the right listing, is not an approval of what was reviewed.
    const prefix = await browserPost('/servers/notes/baseline', {
      _csrf: csrf,
      listing: ids.notesTo.slice(0, 12),
      latest: ids.notesTo,
    });
    expect(prefix.status).toBe(400);
    const unknown = await browserPost('/servers/notes/baseline', {
      _csrf: csrf,
      listing: 'f'.repeat(64),
      latest: ids.notesTo,
    });
    expect(unknown.status).toBe(404);
    const approved = await browserPost('/servers/notes/baseline', {
      _csrf: csrf,
      listing: ids.notesTo,
      latest: ids.notesTo,
      change: String(ids.notesChange),
    });
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toBe(`/changes/${ids.notesChange}?notice=approved`);
    const [server] = await handle.db.select().from(servers).where(eq(servers.name, 'notes'));
    const [baseline] = await handle.db
      .select()
      .from(baselines)
      .where(eq(baselines.serverId, server!.id));
    expect(baseline).toMatchObject({ listingHash: ids.notesTo, approvedBy: 'operator' });
    const actions = await handle.db.select().from(operatorActions);
    expect(actions).toEqual([
      expect.objectContaining({
        actor: 'Ada',
        via: 'console',
        action: 'baseline.approve',
        server: 'notes',
        subject: ids.notesTo,
      }),
    ]);
    const page = await (
      await get(`/changes/${ids.notesChange}?notice=approved`, { cookie })
    ).text();
    expect(page).toContain('Baseline approved');
    expect(page).toMatch(/is the baseline of notes/);
  });

  it('acknowledges an alert and enables and disables a server from the pages', async () => {
    const ack = await browserPost(`/alerts/${ids.notesAlert}/ack`, { _csrf: csrf });
    expect(ack.status).toBe(303);
    const alerts = (await (
      await get('/api/v1/alerts', { authorization: `Bearer ${TOKEN}` })
    ).json()) as { alerts: { id: number; status: string }[] };
    expect(alerts.alerts.find((alert) => alert.id === ids.notesAlert)?.status).toBe('acknowledged');
    expect((await browserPost('/servers/notes/disable', { _csrf: csrf })).status).toBe(303);
    const [disabled] = await handle.db.select().from(servers).where(eq(servers.name, 'notes'));
    expect(disabled!.enabled).toBe(false);
    expect((await browserPost('/servers/notes/enable', { _csrf: csrf })).status).toBe(303);
    const actions = (await handle.db.select().from(operatorActions)).map((row) => row.action);
    expect(actions).toEqual(['baseline.approve', 'alert.ack', 'server.disable', 'server.enable']);
  });

  it('serves the fleet, a server, the feed, a change and the outbox as JSON with a bearer token', async () => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const fleet = (await (await get('/api/v1/servers', bearer)).json()) as {
      servers: {
        name: string;
        health: string;
        latestChange: { id: number } | null;
        drifted: boolean;
      }[];
      changeCounts: Record<string, Record<string, number>>;
    };
    expect(fleet.servers.map((server) => [server.name, server.health])).toEqual([
      ['down-one', 'down'],
      ['hostile', 'up'],
      ['lonely', 'up'],
      ['notes', 'up'],
    ]);
    expect(fleet.servers.find((server) => server.name === 'hostile')).toMatchObject({
      latestChange: { id: ids.hostileChange },
      drifted: true,
    });
    // Both changes were recorded just now: each severity's count is the number of them.
    const recorded = await handle.db.select({ severity: changes.severity }).from(changes);
    for (const window of ['24h', '7d']) {
      for (const severity of ['critical', 'high', 'medium', 'low', 'info', 'none']) {
        expect(fleet.changeCounts[window]![severity], `${window} ${severity}`).toBe(
          recorded.filter((row) => row.severity === severity).length,
        );
      }
    }
    expect(recorded).toHaveLength(3);
    const down = (await (await get('/api/v1/servers?health=down', bearer)).json()) as {
      servers: { name: string }[];
    };
    expect(down.servers.map((server) => server.name)).toEqual(['down-one']);

    const feed = (await (await get('/api/v1/changes?server=hostile&limit=1', bearer)).json()) as {
      changes: { id: number; headline: { kind: string } }[];
      next: number | null;
    };
    expect(feed.changes.map((change) => change.id)).toEqual([ids.hostileChange]);
    expect(feed.next).toBeNull();
    const byKind = (await (
      await get('/api/v1/changes?kind=description_changed', bearer)
    ).json()) as { changes: { id: number }[] };
    expect(byKind.changes.map((change) => change.id)).toEqual([ids.hostileChange]);
    const paged = (await (await get('/api/v1/changes?limit=1', bearer)).json()) as {
      changes: { id: number }[];
      next: number;
    };
    expect(paged.next).toBe(paged.changes[0]!.id);
    const older = (await (
      await get(`/api/v1/changes?limit=1&before=${paged.next}`, bearer)
    ).json()) as { changes: { id: number }[] };
    expect(older.changes[0]!.id).toBeLessThan(paged.next);
    expect((await get('/api/v1/changes?severity=extreme', bearer)).status).toBe(400);

    const review = (await (await get(`/api/v1/changes/${ids.hostileChange}`, bearer)).json()) as {
      tools: {
        tool: string;
        hints: { hint: string; effectiveChanged: boolean }[];
        description: { changed: boolean };
      }[];
      approval: { listing: string; approved: boolean };
    };
    const tool = review.tools.find((entry) => entry.tool === 'read_graph')!;
    expect(tool.description.changed).toBe(true);
    expect(tool.hints.filter((hint) => hint.effectiveChanged).map((hint) => hint.hint)).toEqual([
      'openWorldHint',
    ]);
    expect(review.approval.approved).toBe(false);

    const detail = (await (await get('/api/v1/servers/notes', bearer)).json()) as {
      registration: { name: string };
      timeline: { spans: unknown[]; changes: { id: number }[] };
      actions: { action: string; actor: string }[];
    };
    expect(detail.registration.name).toBe('notes');
    const page1 = (await (await get('/api/v1/servers/notes?limit=1', bearer)).json()) as {
      observations: { items: { id: number }[]; next: number | null };
      timeline: { changes: { trigger: string; notificationSeen: boolean | null }[] };
    };
    expect(page1.observations.items).toHaveLength(1);
    expect(page1.observations.next).toBe(page1.observations.items[0]!.id);
    // A probe found it, and no held session could have heard a notification.
    expect(page1.timeline.changes).toEqual([
      expect.objectContaining({ trigger: 'poll', notificationSeen: null }),
    ]);
    const page2 = (await (
      await get(
        `/api/v1/servers/notes?limit=1&observations_before=${page1.observations.next}`,
        bearer,
      )
    ).json()) as { observations: { items: { id: number }[]; next: number | null } };
    expect(page2.observations.items[0]!.id).toBeLessThan(page1.observations.next!);
    expect(page2.observations.next).toBeNull();
    expect(detail.timeline.changes.map((change) => change.id)).toEqual([ids.notesChange]);
    expect(detail.timeline.spans).toHaveLength(2);
    expect(detail.actions[0]).toMatchObject({ action: 'server.enable', actor: 'Ada' });
    expect((await get('/api/v1/servers/nobody', bearer)).status).toBe(404);
  });

  it('approves and acknowledges through the API, recorded as its caller', async () => {
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-mcp-drift-actor': 'ci-bot',
    };
    const hostile = (await (await get(`/api/v1/changes/${ids.hostileChange}`, headers)).json()) as {
      approval: { listing: string };
    };
    const approved = await fetch(`${url}/api/v1/servers/hostile/baseline`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ listing: hostile.approval.listing }),
    });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({
      server: 'hostile',
      hash: hostile.approval.listing,
    });
    const [last] = (await handle.db.select().from(operatorActions)).slice(-1);
    expect(last).toMatchObject({ actor: 'ci-bot', via: 'api', action: 'baseline.approve' });
    const missing = await fetch(`${url}/api/v1/servers/hostile/baseline`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 'INVALID_INPUT' } });
  });
});

describe(`retrying an alert from the console (${backend})`, () => {
  it('queues an undeliverable alert again once its server names someone to tell', async () => {
    // Nobody yet: the console says why, and nothing is recorded.
    const refused = await browserPost(`/alerts/${ids.lonelyAlert}/retry`, { _csrf: csrf });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('still has nobody to go to');
    await handle.db
      .update(servers)
      .set({ notify: ['ops@example.org'] })
      .where(eq(servers.name, 'lonely'));
    const retried = await browserPost(`/alerts/${ids.lonelyAlert}/retry`, { _csrf: csrf });
    expect(retried.status).toBe(303);
    expect(retried.headers.get('location')).toBe(`/alerts?notice=retried#alert-${ids.lonelyAlert}`);
    const outbox = (await (
      await get('/api/v1/alerts?server=lonely', { authorization: `Bearer ${TOKEN}` })
    ).json()) as {
      alerts: {
        id: number;
        status: string;
        deliveries: { channel: string; destination: string }[];
      }[];
    };
    expect(outbox.alerts).toEqual([
      expect.objectContaining({
        id: ids.lonelyAlert,
        status: 'pending',
        deliveries: [expect.objectContaining({ channel: 'email', destination: 'ops@example.org' })],
      }),
    ]);
    const [last] = (await handle.db.select().from(operatorActions)).slice(-1);
    expect(last).toMatchObject({
      action: 'alert.retry',
      actor: 'Ada',
      server: 'lonely',
      subject: String(ids.lonelyAlert),
    });
  });
});

describe(`server text in the console (${backend})`, () => {
  it('renders markup in a description as text on the server and change pages', async () => {
    for (const path of ['/servers/hostile', `/changes/${ids.hostileChange}`]) {
      const html = await (await get(path, { cookie })).text();
      expect(html, path).toContain(
        '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;',
      );
      expect(html, path).not.toContain('<script>alert');
      expect(html, path).not.toContain('<img');
      expect(html, path).not.toContain('<b>bold');
    }
    const change = await (await get(`/changes/${ids.hostileChange}`, { cookie })).text();
    // The zero-width space is shown as its escape, marked; the added words as an insertion.
    expect(change).toContain(
      '<span class="escape" title="a character readers do not see, shown as its code point">⟦U+200B⟧</span>',
    );
    expect(change).toMatch(/<ins>[^]*Now[^]*<\/ins>/);
    // The diff's content check found the hidden character; the page says where, and shows it.
    const review = (await (
      await get(`/api/v1/changes/${ids.hostileChange}`, { authorization: `Bearer ${TOKEN}` })
    ).json()) as {
      groups: { findings: { kind: string; record: { content: { path: string } | null } }[] }[];
    };
    const hidden = review.groups
      .flatMap((group) => group.findings)
      .find((finding) => finding.kind === 'hidden_characters');
    expect(hidden?.record.content?.path).toBe('description');
    expect(change).toContain('<dt>found in</dt>');
  });
});

// Last in the file: it registers a server the fleet assertions above do not expect.
describe(`surfaces in the console (${backend})`, () => {
  it('shows which surfaces a change moved and what each listing holds', async () => {
    const library = await newServer('library');
    const prompt = { name: 'summarize', description: 'Summarizes a topic.' };
    const record = (overrides: Parameters<typeof listed>[1]) =>
      recordObservation(handle.db, {
        alerts: emailOnlyPolicy(['ops@example.org']),
        server: library,
        result: listed(memory, { capabilities: { tools: {}, prompts: {} }, ...overrides }),
        trigger: 'poll',
        startedAt: new Date(),
      });
    await record({ prompts: [prompt], resources: [], instructions: 'Search first.' });
    const moved = (
      await record({
        prompts: [{ ...prompt, description: 'Summarizes a topic, newest first.' }],
        resources: [],
        instructions: 'Search first, then write.',
      })
    ).change!.row.id;
    const tools = `${memory.length} tools`;

    const change = await (await get(`/changes/${moved}`, { cookie })).text();
    expect(change).toContain('<dt>surfaces moved</dt><dd>prompts, instructions</dd>');
    expect(change).toContain(
      `<dt>listing before</dt><dd>${tools}, 1 prompt, 0 resources, instructions</dd>`,
    );
    expect(change).toContain(
      `<dt>listing after</dt><dd>${tools}, 1 prompt, 0 resources, instructions</dd>`,
    );
    // A change of tools only says so, on the feed.
    const feed = await (await get('/changes?server=notes', { cookie })).text();
    expect(feed).toMatch(new RegExp(`#${ids.notesChange}[^]*?<td>tools</td>`));

    const server = await (await get('/servers/library', { cookie })).text();
    expect(server).toMatch(new RegExp(`#${moved}</a></th>[^]*?<td>prompts, instructions</td>`));
    expect(server).toContain(`<td>${tools}, 1 prompt, 0 resources, instructions</td>`);
    expect(server).toContain('first listing');

    const api = (await (
      await get(`/api/v1/changes/${moved}`, { authorization: `Bearer ${TOKEN}` })
    ).json()) as { change: { surfaces: string[] } };
    expect(api.change.surfaces).toEqual(['prompts', 'instructions']);
  });
});
