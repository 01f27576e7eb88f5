import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { insertServer } from '../../src/registry/servers-repo.js';
import { startService, type RunningService } from '../../src/service.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { controlFixture, startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';

/*
 * The service in process, from src/ (no dist/ needed): the watch supervisor holding a
 * session to a real MCP server over Streamable HTTP, the alert dispatcher sending to a real
 * SMTP server, and the console answering a real HTTP request. Every step awaits the
 * service's own events (service-events.ts) rather than sleeping or polling.
 */

const TOKEN = 'start-service-console-token-0123456789';

let database: TestDatabase;
let handle: DatabaseHandle;
let fixture: HttpFixture;
let smtp: TestSmtpServer;
let config: Config;
let service: RunningService | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  fixture = await startHttpFixture('sdk1-server.mjs');
  smtp = await startSmtpServer();
  config = loadConfig({
    ...database.env,
    HTTP_PORT: '0',
    CONSOLE_TOKEN: TOKEN,
    SMTP_URL: smtp.url,
    ALERT_TO: 'ops@example.org',
    ALERT_FROM: 'drift@example.org',
    DIGEST_SECONDS: '0',
  });
});
afterAll(async () => {
  await service?.stop();
  await fixture?.stop();
  await smtp?.close();
  await handle?.close();
  await database?.drop();
});

describe(`startService (${backend})`, () => {
  it('watches a held server, alerts on its change by email, and answers the console', async () => {
    const server = await insertServer(handle.db, {
      name: 'notes',
      transport: 'http',
      command: null,
      args: [],
      env: {},
      cwd: null,
      url: `${fixture.baseUrl}/mcp`,
      headers: {},
      trust: 'trusted',
      schedule: null,
      notify: [],
      slackUrl: null,
      webhookUrl: null,
      hold: false,
      alertMinSeverity: null,
    });
    service = await startService({
      config,
      env: {},
      db: handle,
      logger: createLogger('silent'),
      tickMs: 200,
      dispatcher: { pollMs: 100 },
    });
    const { events } = service;
    const ofServer = (event: { serverId: number }) => event.serverId === server.id;

    // The startup listing of the held session: the first observation, and the baseline.
    await events.next('session-held', ofServer, { past: true, timeoutMs: 60_000 });
    const first = await events.next('observation-recorded', ofServer, {
      past: true,
      timeoutMs: 60_000,
    });
    expect(first).toMatchObject({ ok: true, trigger: 'startup' });
    expect(first.listingHash).toMatch(/^[0-9a-f]{64}$/);

    // The destructive tool re-declared read-only, with a notification: the session re-lists.
    const changed = events.next('change-recorded', ofServer, { timeoutMs: 60_000 });
    const delivered = events.next('alert-delivered', (event) => event.channel === 'email', {
      timeoutMs: 60_000,
    });
    const answer = await controlFixture(fixture.baseUrl, { relax: true, notify: true });
    expect(answer.relaxed).toBe(true);
    const change = await changed;
    expect(change).toMatchObject({ trigger: 'notification', severity: 'critical' });
    expect(change.findings).toBeGreaterThan(0);

    const mail = await delivered;
    expect(mail.server).toBe('notes');
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.envelopeTo).toEqual(['ops@example.org']);
    expect(smtp.received[0]!.mail.subject).toContain('notes');

    // The console, over real HTTP on the service's address, with the bearer token.
    const health = await fetch(`${service.addresses.http}/healthz`);
    expect(health.status).toBe(200);
    const unauthorized = await fetch(`${service.addresses.http}/api/v1/alerts`);
    expect(unauthorized.status).toBe(401);
    const listed = await fetch(`${service.addresses.http}/api/v1/alerts`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { alerts: { id: number; server: string }[] };
    expect(body.alerts.map((alert) => alert.id)).toEqual(mail.alertIds);
    expect(body.alerts[0]?.server).toBe('notes');

    await service.stop();
    // Stopped: the listener is closed.
    await expect(fetch(`${service.addresses.http}/healthz`)).rejects.toThrow();
    service = undefined;
  });
});
