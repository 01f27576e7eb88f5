import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy } from '../../src/alerts/alert-policy.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import { loadConfig } from '../../src/config/load.js';
import { LiveFeed } from '../../src/console/live-feed.js';
import { ConsoleKeys } from '../../src/console/session.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  alerts,
  baselines,
  operatorActions,
  servers,
  type ServerRow,
} from '../../src/db/schema.js';
import type { RunningHttpServer } from '../../src/http/http-server.js';
import { startOpsServer } from '../../src/http/ops-server.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { createLogger } from '../../src/log.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed, relaxed } from '../support/probe-results.js';

/*
 * Approving from the console takes two steps: the change page leads to a confirmation page
 * that shows what the approval accepts, and only that page posts it, with or without the
 * acknowledgement of the alerts of the changes up to that listing. Over real HTTP,
 * in-process, on this file's own database.
 */

const TOKEN = 'console-test-token-approve-0123456789';
const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
const logger = createLogger('silent');

let database: TestDatabase;
let handle: DatabaseHandle;
let http: RunningHttpServer;
let live: LiveFeed;
let url: string;
let cookie: string;
let csrf: string;
let server: ServerRow;
const keys = new ConsoleKeys(TOKEN);
/** Two changes: the baseline → A (delete_entities read-only), then A → B (delete_relations too). */
const ids = { firstHash: '', changeA: 0, hashA: '', alertA: 0, changeB: 0, hashB: '', alertB: 0 };

function observe(tools: RawTool[]) {
  return recordObservation(handle.db, {
    alerts: emailOnlyPolicy(['ops@example.org']),
    server,
    result: listed(tools),
    trigger: 'poll',
    startedAt: new Date(),
  });
}

function browserPost(path: string, form: Record<string, string>) {
  return fetch(`${url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie,
      origin: url,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form).toString(),
  });
}

const get = (path: string, headers: Record<string, string> = { cookie }) =>
  fetch(`${url}${path}`, { redirect: 'manual', headers });

async function baselineHash(): Promise<string | undefined> {
  const [row] = await handle.db.select().from(baselines).where(eq(baselines.serverId, server.id));
  return row?.listingHash;
}

async function acknowledgedAlerts(): Promise<number[]> {
  const rows = await handle.db.select().from(alerts).where(eq(alerts.serverId, server.id));
  return rows
    .filter((row) => row.acknowledgedAt !== null)
    .map((row) => row.id)
    .sort((a, b) => a - b);
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  const [row] = await handle.db
    .insert(servers)
    .values({ name: 'notes', transport: 'http', url: 'http://127.0.0.1:9/notes' })
    .returning();
  server = row!;
  ids.firstHash = (await observe(memory)).observation.listingHash!;
  const a = (await observe(relaxed(memory, 'delete_entities'))).change!;
  const b = (await observe(relaxed(relaxed(memory, 'delete_entities'), 'delete_relations')))
    .change!;
  Object.assign(ids, {
    changeA: a.row.id,
    hashA: a.row.toHash,
    alertA: a.alert!.alert.id,
    changeB: b.row.id,
    hashB: b.row.toHash,
    alertB: b.alert!.alert.id,
  });

  const config = loadConfig({ HTTP_PORT: '0', CONSOLE_TOKEN: TOKEN });
  live = new LiveFeed(handle.db, { logger });
  http = await startOpsServer({
    db: handle.db,
    config,
    logger,
    workerId: 'test-worker',
    console: { db: handle.db, config, logger, keys, live },
  });
  url = http.url;
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: TOKEN, name: 'Ada', next: '/' }).toString(),
  });
  expect(login.status).toBe(303);
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const fleet = await (await get('/')).text();
  csrf = /name="_csrf" value="([^"]+)"/.exec(fleet)![1]!;
});

afterAll(async () => {
  live?.stop();
  await http?.close();
  await handle?.close();
  await database?.drop();
});

describe(`approving from the console (${backend})`, () => {
  it('leads from the change page to a confirmation page, approving nothing on the way', async () => {
    const changePage = await (await get(`/changes/${ids.changeA}`)).text();
    // The change page's button is a link to the confirmation, not the approval.
    expect(changePage).toContain('<form method="get" action="/servers/notes/approve"');
    expect(changePage).not.toContain('action="/servers/notes/baseline"');

    const answer = await get(`/servers/notes/approve?listing=${ids.hashA}&change=${ids.changeA}`);
    expect(answer.status).toBe(200);
    const page = await answer.text();
    expect(page).toContain('Approve a baseline of');
    expect(page).toContain(`title="${ids.firstHash}"`);
    expect(page).toContain('the first listing seen');
    expect(page).toContain(`<code class="hash-full">${ids.hashA}</code>`);
    // The form carries the latest listing the page was made from: B, newer than A.
    expect(page).toContain(`name="latest" value="${ids.hashB}"`);
    expect(page).toContain('annotation_relaxed');
    expect(page).toMatch(/<span class="sev sev-critical">critical<\/span>/);
    // The finding of the later change is not what approving A accepts.
    expect(page).not.toContain('delete_relations</code>');
    expect(page).toContain('<form method="post" action="/servers/notes/baseline"');
    expect(page).toContain(`name="_csrf" value="${csrf}"`);
    expect(page).toMatch(
      /<button type="submit" class="primary" name="acknowledge" value="">\s*Approve\s*<\/button>/,
    );
    expect(page).toContain('Approve and acknowledge its alerts (1)');
    expect(await baselineHash()).toBe(ids.firstHash);
    expect(await handle.db.select().from(operatorActions)).toEqual([]);
  });

  it('refuses a confirmation page for a hash prefix, and one of another server’s listing', async () => {
    expect((await get(`/servers/notes/approve?listing=${ids.hashA.slice(0, 12)}`)).status).toBe(
      400,
    );
    expect((await get(`/servers/notes/approve?listing=${'f'.repeat(64)}`)).status).toBe(404);
  });

  it('serves the same preview as JSON', async () => {
    const answer = await get(`/api/v1/servers/notes/approval?listing=${ids.hashB}`, {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(answer.status).toBe(200);
    const preview = (await answer.json()) as {
      previous: { hash: string };
      candidate: { hash: string };
      severity: string;
      findings: { tool: string; kind: string; headline: string }[];
      openAlerts: number[];
    };
    expect(preview.previous.hash).toBe(ids.firstHash);
    expect(preview.candidate.hash).toBe(ids.hashB);
    expect(preview.severity).toBe('critical');
    // From the baseline to B: both relaxations, however many changes lie between.
    expect(
      preview.findings
        .filter((finding) => finding.kind === 'annotation_relaxed')
        .map((finding) => finding.tool)
        .sort(),
    ).toEqual(['delete_entities', 'delete_relations']);
    expect(preview.findings[0]!.headline).toMatch(/now claims read-only/);
    expect(preview.openAlerts).toEqual([ids.alertA, ids.alertB]);
  });

  it('approves and acknowledges the alerts up to that listing from the confirmation page, and shows who approved', async () => {
    const approved = await browserPost('/servers/notes/baseline', {
      _csrf: csrf,
      listing: ids.hashA,
      latest: ids.hashB,
      change: String(ids.changeA),
      acknowledge: 'alerts',
    });
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toBe(
      `/changes/${ids.changeA}?notice=approved-acknowledged`,
    );
    expect(await baselineHash()).toBe(ids.hashA);
    // B's alert is about a listing this approval did not accept: it stays open.
    expect(await acknowledgedAlerts()).toEqual([ids.alertA]);
    const actions = await handle.db
      .select()
      .from(operatorActions)
      .where(and(eq(operatorActions.server, 'notes'), eq(operatorActions.actor, 'Ada')));
    expect(actions.map((row) => [row.action, row.subject])).toEqual([
      ['baseline.approve', ids.hashA],
      ['alert.ack', String(ids.alertA)],
    ]);

    const changePage = await (
      await get(`/changes/${ids.changeA}?notice=approved-acknowledged`)
    ).text();
    expect(changePage).toContain('alerts of its changes acknowledged');
    expect(changePage).toContain('approved by Ada (console)');
    const serverPage = await (await get('/servers/notes')).text();
    expect(serverPage).toContain('approved by Ada (console)');
    // The next confirmation starts from the baseline Ada set.
    const next = await (await get(`/servers/notes/approve?listing=${ids.hashB}`)).text();
    expect(next).toContain('approved by Ada (console)');
    expect(next).toContain('Approve and acknowledge its alerts (1)');
  });

  it('refuses a post without the latest listing its page showed', async () => {
    const refused = await browserPost('/servers/notes/baseline', {
      _csrf: csrf,
      listing: ids.hashB,
      acknowledge: '',
    });
    expect(refused.status).toBe(400);
    expect(await baselineHash()).toBe(ids.hashA);
  });

  it('approves without acknowledging from the plain button', async () => {
    const approved = await browserPost('/servers/notes/baseline', {
      _csrf: csrf,
      listing: ids.hashB,
      latest: ids.hashB,
      acknowledge: '',
    });
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toBe('/servers/notes?notice=approved');
    expect(await baselineHash()).toBe(ids.hashB);
    expect(await acknowledgedAlerts()).toEqual([ids.alertA]);
  });
});
