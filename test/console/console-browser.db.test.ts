import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { desc, eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { alerts, changes, observations, servers } from '../../src/db/schema.js';
import {
  chromiumAvailable,
  launchChromium,
  screenshot,
  seriousViolations,
} from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  controlFixture,
  fixturePath,
  startHttpFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * The console in a real headless Chromium, served by a real `mcp-drift serve` watching
 * three fixture servers (test/fixtures/servers/): logging in with the URL serve prints,
 * the fleet, a silent relaxation arriving on open pages without a reload, approving and
 * acknowledging (checked with the CLI), server text that tries to be markup, a form on
 * another origin, and each page's screenshot and accessibility check.
 */

const HOSTILE = 'Posts a message. <script>alert("script")</script><img src=x onerror=alert("img")>';
/** Probes never fire on their own unless a test asks for them. */
const YEARLY = '0 0 1 1 *';
const EVERY_2S = '*/2 * * * * *';

let database: TestDatabase;
let serve: RunningServe;
let handle: DatabaseHandle;
let browser: Browser;
let context: BrowserContext;
let loginUrl: string;
let token: string;
let consoleUrl: string;
const fixtures: HttpFixture[] = [];
let relaxedChange: { id: number; toHash: string } | undefined;

const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

async function addServer(...args: string[]): Promise<void> {
  const added = await cli('server', 'add', ...args);
  expect(added.code, added.stderr).toBe(0);
}

/** Dialogs (alert, confirm) a page opened: none may, whatever server text it shows. */
function watchDialogs(page: Page): string[] {
  const opened: string[] = [];
  page.on('dialog', (dialog) => {
    opened.push(dialog.message());
    void dialog.dismiss();
  });
  return opened;
}

async function expectAccessible(page: Page, name: string): Promise<void> {
  const violations = await seriousViolations(page);
  expect(
    violations.map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
    ),
    `serious or critical accessibility violations on the ${name} page`,
  ).toEqual([]);
}

/** Logs in with the token on the login page the browser shows (the link works only once). */
async function logIn(page: Page): Promise<void> {
  await page.locator('input[name="token"]').fill(token);
  await page.locator('button[type="submit"]').click();
  await page.waitForURL(`${consoleUrl}/`);
}

const available = chromiumAvailable();

beforeAll(async () => {
  if (!available) return;
  database = await createTestDatabase();
  const notes = await startHttpFixture('sdk1-server.mjs');
  const tenants = await startHttpFixture('sdk2-server.mjs', [
    '--post-message-description',
    HOSTILE,
  ]);
  fixtures.push(notes, tenants);
  await addServer('notes', '--url', `${notes.baseUrl}/mcp`, '--schedule', EVERY_2S);
  await addServer('tenants', '--url', `${tenants.baseUrl}/mcp`, '--schedule', YEARLY);
  await addServer(
    'pages',
    '--schedule',
    YEARLY,
    '--stdio',
    '--',
    process.execPath,
    fixturePath('paginating-server.mjs'),
  );
  // No CONSOLE_TOKEN: serve makes one, and prints a one-time login link.
  serve = await startServe({
    env: { ...database.env, ALERT_TO: 'ops@example.org', DIGEST_SECONDS: '0' },
    cwd: database.dir,
  });
  // The link is on stdout, written before the line startServe waits for.
  await waitUntil('the login link on stdout', () => /\?token=/.test(serve.output()), {
    describe: () => serve.output(),
  });
  loginUrl = /(http:\/\/\S+\/\?token=[A-Za-z0-9_-]{43})\s/.exec(serve.output())![1]!;
  token = readFileSync(path.join(database.env.MCP_DRIFT_HOME, 'console-token'), 'utf8').trim();
  consoleUrl = new URL(loginUrl).origin;
  handle = await database.open();
  // Every server has listed once (held sessions and stdio startup probes).
  await waitUntil(
    'a first listing of each of the three servers',
    async () => {
      const rows = await handle.db
        .selectDistinct({ serverId: observations.serverId })
        .from(observations)
        .where(eq(observations.outcome, 'ok'));
      return rows.length === 3;
    },
    { timeoutMs: 60_000, describe: () => serve.log().slice(-3000) },
  );
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await handle?.close();
  await serve?.stop();
  await Promise.all(fixtures.map((fixture) => fixture.stop()));
  await database?.drop();
});

// A deadline, not a timing claim: on PGlite under load, a stream's first read of the
// database can wait behind serve's probes for several seconds.
const LIVE_DEADLINE_MS = 30_000;

describe.skipIf(!available)(`the console in a browser (${backend})`, () => {
  it('logs in with the printed URL and lists the three servers on the fleet page', async () => {
    // The log of a first start names the token's file, and holds neither it nor the link.
    const serving = serve
      .log()
      .split('\n')
      .find((entry) => entry.includes('"msg":"mcp-drift serving"'));
    expect(JSON.parse(serving!)).toMatchObject({
      console: { token: path.join(database.env.MCP_DRIFT_HOME, 'console-token') },
    });
    expect(serve.log()).not.toContain(token);
    expect(serve.log()).not.toContain(new URL(loginUrl).searchParams.get('token')!);
    const page = await context.newPage();
    const dialogs = watchDialogs(page);
    await page.goto(loginUrl);
    // The code left the address bar at once.
    expect(page.url()).toBe(`${consoleUrl}/`);
    await expect
      .poll(async () => page.locator('table.fleet tbody tr').count(), { timeout: 10_000 })
      .toBe(3);
    for (const name of ['notes', 'tenants', 'pages']) {
      await page.locator(`#server-${name} a[href="/servers/${name}"]`).waitFor({ timeout: 5_000 });
    }
    await page.locator('#live-status', { hasText: 'Live' }).waitFor({ timeout: LIVE_DEADLINE_MS });
    await screenshot(page, 'fleet');
    await expectAccessible(page, 'fleet');
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('reads the same without JavaScript, where the used link lands on the login page', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    const page = await plain.newPage();
    await page.goto(loginUrl);
    expect(page.url()).toBe(`${consoleUrl}/login?link=used`);
    await page.locator('[role="alert"]', { hasText: 'has been used already' }).waitFor();
    await logIn(page);
    expect(await page.locator('table.fleet tbody tr').count()).toBe(3);
    await page.locator('a[href="/servers/notes"]').click();
    await page.locator('h2', { hasText: 'Timeline' }).waitFor();
    expect(await page.locator('svg.timeline').count()).toBe(1);
    await page.goto(`${consoleUrl}/login`);
    await screenshot(page, 'login');
    await plain.close();
  });

  it('shows a silent relaxation on the open fleet and server pages without a reload', async () => {
    const fleet = await context.newPage();
    const server = await context.newPage();
    await fleet.goto(`${consoleUrl}/`);
    await server.goto(`${consoleUrl}/servers/notes`);
    for (const page of [fleet, server]) {
      await page
        .locator('#live-status', { hasText: 'Live' })
        .waitFor({ timeout: LIVE_DEADLINE_MS });
      await page.evaluate(
        () => ((globalThis as unknown as { stillThisPage: boolean }).stillThisPage = true),
      );
    }
    const [notes] = await handle.db.select().from(servers).where(eq(servers.name, 'notes'));
    await controlFixture(fixtures[0]!.baseUrl, { relax: true, notify: false });
    await waitUntil(
      'the silent relaxation to be recorded',
      async () => {
        [relaxedChange] = await handle.db
          .select({ id: changes.id, toHash: changes.toHash })
          .from(changes)
          .where(eq(changes.serverId, notes!.id))
          .orderBy(desc(changes.id))
          .limit(1);
        return relaxedChange !== undefined;
      },
      { timeoutMs: 60_000, describe: () => serve.log().slice(-3000) },
    );
    // Within 5 s of being recorded, on both open pages (the bound).
    const link = `a[href="/changes/${relaxedChange!.id}"]`;
    await Promise.all([
      fleet.locator(`#server-notes ${link}`).waitFor({ timeout: 5_000 }),
      server.locator(`[data-live="server-changes"] ${link}`).waitFor({ timeout: 5_000 }),
    ]);
    for (const page of [fleet, server]) {
      expect(
        await page.evaluate(
          () => (globalThis as unknown as { stillThisPage?: boolean }).stillThisPage,
        ),
      ).toBe(true);
    }
    await expect
      .poll(() => fleet.locator('#server-notes .sev-critical').count())
      .toBeGreaterThan(0);
    await server.locator(`svg.timeline ${link}`).waitFor({ timeout: 5_000 });
    await screenshot(server, 'server');
    await expectAccessible(server, 'server');
    await Promise.all([fleet.close(), server.close()]);
  });

  it('approves the change’s listing in two steps, and baseline show agrees', async () => {
    expect(relaxedChange).toBeDefined();
    const page = await context.newPage();
    await page.goto(`${consoleUrl}/changes/${relaxedChange!.id}`);
    await page.locator('text=Each changed tool, before and after').waitFor();
    await screenshot(page, 'change');
    await expectAccessible(page, 'change');
    // The form leads to the confirmation of exactly the listing the page shows.
    expect(await page.locator('form.approve input[name="listing"]').inputValue()).toBe(
      relaxedChange!.toHash,
    );
    const before = JSON.parse((await cli('baseline', 'show', 'notes', '--json')).stdout);
    await page.locator('form.approve button').click();
    await page.waitForURL(/\/servers\/notes\/approve\?/);
    await page.locator('h1', { hasText: 'Approve a baseline of' }).waitFor();
    const summary = page.locator('dl.approval-summary');
    expect(await summary.textContent()).toContain(relaxedChange!.toHash);
    expect(await summary.locator('code.hash').first().getAttribute('title')).toBe(before.hash);
    expect(await page.locator('section.accepts .sev-critical').count()).toBeGreaterThan(0);
    expect(await page.locator('section.accepts').textContent()).toContain('annotation_relaxed');
    const buttons = page.locator('form.confirm button');
    expect(await buttons.allTextContents()).toEqual([
      'Approve',
      expect.stringMatching(/^Approve and acknowledge its alerts/),
    ]);
    await screenshot(page, 'approve');
    await expectAccessible(page, 'approve');
    // The first step changed nothing.
    const unchanged = JSON.parse((await cli('baseline', 'show', 'notes', '--json')).stdout);
    expect(unchanged.hash).toBe(before.hash);

    // Approve alone: the alert stays for the next test to acknowledge from the outbox.
    await buttons.filter({ hasText: /^Approve$/ }).click();
    await page.locator('.notice', { hasText: 'Baseline approved' }).waitFor();
    expect(await page.locator('[data-live="approval"]').textContent()).toMatch(
      /approved by .+ \(console\)/,
    );
    const shown = await cli('baseline', 'show', 'notes', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      hash: relaxedChange!.toHash,
      approvedBy: 'operator',
      approver: { via: 'console' },
    });
    await page.close();
  });

  it('acknowledges the alert from the outbox, and alerts list agrees', async () => {
    const [alert] = await handle.db
      .select()
      .from(alerts)
      .where(eq(alerts.changeId, relaxedChange!.id));
    expect(alert).toBeDefined();
    const page = await context.newPage();
    await page.goto(`${consoleUrl}/alerts`);
    await screenshot(page, 'alerts');
    await expectAccessible(page, 'alerts');
    await page.locator(`#alert-${alert!.id} button`, { hasText: 'Acknowledge' }).click();
    await page.locator('.notice', { hasText: 'Alert acknowledged' }).waitFor();
    const listed = await cli('alerts', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const mine = (
      JSON.parse(listed.stdout) as { alerts: { id: number; status: string }[] }
    ).alerts.find((entry) => entry.id === alert!.id);
    expect(mine?.status).toBe('acknowledged');
    await page.goto(`${consoleUrl}/changes`);
    await page.locator(`a[href="/changes/${relaxedChange!.id}"]`).waitFor();
    await screenshot(page, 'changes');
    await expectAccessible(page, 'changes');
    await page.close();
  });

  it('shows a description holding <script> and <img onerror> as text, and opens no dialog', async () => {
    // With the page's Content-Security-Policy off too: escaping alone must keep it text.
    for (const bypassCSP of [false, true]) {
      const isolated = await browser.newContext({ bypassCSP });
      const page = await isolated.newPage();
      const dialogs = watchDialogs(page);
      await page.goto(`${consoleUrl}/login`);
      await logIn(page);
      await page.goto(`${consoleUrl}/servers/tenants`);
      const cell = page.locator('table.tools tr', { hasText: 'post_message' }).locator('td.text');
      expect(await cell.textContent()).toBe(HOSTILE);
      expect(await page.locator('main img, main script').count()).toBe(0);
      // Let anything that could fire (an image error handler) have its chance.
      await page.waitForLoadState('networkidle');
      expect(dialogs, `bypassCSP: ${bypassCSP}`).toEqual([]);
      await isolated.close();
    }
  });

  it('sends a browser without a session to the login page, and refuses a form from another origin', async () => {
    const stranger = await browser.newContext();
    const page = await stranger.newPage();
    for (const path of [
      '/',
      '/servers/notes',
      `/changes/${relaxedChange!.id}`,
      '/changes',
      '/alerts',
    ]) {
      await page.goto(`${consoleUrl}${path}`);
      expect(new URL(page.url()).pathname, path).toBe('/login');
    }
    const api = await page.goto(`${consoleUrl}/api/v1/servers`);
    expect(api?.status()).toBe(401);
    await stranger.close();

    // Another origin on this machine (same site: the session cookie goes along) serves a
    // form that posts to the console, even with the session's own CSRF token.
    const own = await context.newPage();
    await own.goto(`${consoleUrl}/servers/notes`);
    const csrf = await own.locator('input[name="_csrf"]').first().inputValue();
    const evil: Server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><title>elsewhere</title>` +
          `<form method="post" action="${consoleUrl}/servers/notes/disable"><input type="hidden" name="_csrf" value="${csrf}"><button id="with">with token</button></form>` +
          `<form method="post" action="${consoleUrl}/servers/notes/disable"><button id="without">without token</button></form>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const elsewhere = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
      for (const button of ['#with', '#without']) {
        await own.goto(elsewhere);
        const [answer] = await Promise.all([own.waitForNavigation(), own.locator(button).click()]);
        expect(answer?.status(), button).toBe(403);
      }
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
    const [notes] = await handle.db.select().from(servers).where(eq(servers.name, 'notes'));
    expect(notes!.enabled).toBe(true);
    await own.close();
  });
});
