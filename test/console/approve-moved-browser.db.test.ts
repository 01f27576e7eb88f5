import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { baselines, operatorActions, servers } from '../../src/db/schema.js';
import type { RunningHttpServer } from '../../src/http/http-server.js';
import type { LiveFeed } from '../../src/console/live-feed.js';
import { createLogger } from '../../src/log.js';
import { chromiumAvailable, launchChromium, screenshot } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { startConsoleServer } from '../support/console-server.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { controlFixture, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';

/*
 * The console approves what its page showed: a page rendered before the server's listing
 * moved posts the hash it showed, and the approval is refused with a 409 page, the baseline
 * untouched. In a real headless Chromium, against a real fixture server listed by `check`.
 */

const TOKEN = 'console-test-token-approve-moved-0123456789';
const logger = createLogger('silent');
const available = chromiumAvailable();

let database: TestDatabase;
let handle: DatabaseHandle;
let http: RunningHttpServer;
let live: LiveFeed;
let fixture: HttpFixture;
let browser: Browser;
let url: string;

const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

async function checked(): Promise<string> {
  const result = await cli('check', 'notes', '--json');
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { observation: { listingHash: string } }).observation
    .listingHash;
}

async function baselineRow() {
  const [server] = await handle.db.select().from(servers).where(eq(servers.name, 'notes'));
  const [row] = await handle.db.select().from(baselines).where(eq(baselines.serverId, server!.id));
  return row!;
}

async function logIn(page: Page): Promise<void> {
  await page.goto(`${url}/login`);
  await page.locator('input[name="token"]').fill(TOKEN);
  await page.locator('input[name="name"]').fill('Ada');
  await page.locator('button[type="submit"]').click();
  await page.waitForURL(`${url}/`);
}

beforeAll(async () => {
  if (!available) return;
  database = await createTestDatabase();
  // Shared, as serve shares it: the CLI's `check` goes through this process's socket.
  handle = await database.open({ share: true });
  fixture = await startHttpFixture('sdk1-server.mjs');
  const added = await cli('server', 'add', 'notes', '--url', `${fixture.baseUrl}/mcp`);
  expect(added.code, added.stderr).toBe(0);
  await checked();
  ({ http, live } = await startConsoleServer(handle.db, { token: TOKEN, logger }));
  url = http.url;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  live?.stop();
  await http?.close();
  await fixture?.stop();
  await handle?.close();
  await database?.drop();
});

describe.skipIf(!available)(`approving a listing that moved after render (${backend})`, () => {
  it('answers 409 with a page that says so, and approves nothing', async () => {
    await controlFixture(fixture.baseUrl, { relax: true, notify: false });
    const shown = await checked();
    const page = await browser.newPage();
    try {
      await logIn(page);
      await page.goto(`${url}/servers/notes/approve?listing=${shown}`);
      expect(await page.locator('code.hash-full').first().innerText()).toBe(shown);
      expect(await page.locator('input[name="latest"]').getAttribute('value')).toBe(shown);
      const before = await baselineRow();

      // The listing moves while the page is open.
      await controlFixture(fixture.baseUrl, { relax: false, notify: false });
      const moved = await checked();
      expect(moved).not.toBe(shown);

      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/servers/notes/baseline')),
        page.locator('form.approve button.primary').click(),
      ]);
      expect(answer.status()).toBe(409);
      await page.waitForLoadState();
      await screenshot(page, 'approve-moved');
      const text = await page.locator('main, body').first().innerText();
      expect(text).toContain('The listing changed after you reviewed it');
      expect(text).toContain('Nothing was approved');
      expect(text).toContain(moved);

      expect(await baselineRow()).toEqual(before);
      const approvals = await handle.db
        .select()
        .from(operatorActions)
        .where(eq(operatorActions.action, 'baseline.approve'));
      expect(approvals).toEqual([]);

      // The same page rendered again shows the latest listing, and approving it goes ahead.
      await page.goto(`${url}/servers/notes/approve?listing=${moved}`);
      await Promise.all([
        page.waitForURL(/notice=approved/),
        page.locator('form.approve button.primary').click(),
      ]);
      expect(await baselineRow()).toMatchObject({ listingHash: moved, approvedBy: 'operator' });
    } finally {
      await page.close();
    }
  });

  it('refuses the same through the API when the latest hash it gives moved', async () => {
    const latest = await checked();
    const stale = (await baselineRow()).listingHash;
    await controlFixture(fixture.baseUrl, { relax: true, notify: false });
    const moved = await checked();
    const answer = await fetch(`${url}/api/v1/servers/notes/baseline`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ listing: latest, latest }),
    });
    expect(answer.status).toBe(409);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('CONFLICT');
    expect(body.error.message).toContain(moved);
    expect((await baselineRow()).listingHash).toBe(stale);
  });
});
