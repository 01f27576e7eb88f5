import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertListItem } from '../../src/alerts/alert-list.js';
import { messageIdOf } from '../../src/delivery/channel.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { requestsTo, startReceiver, type TestReceiver } from '../support/http-receiver.js';
import {
  closedLoopbackPort,
  controlFixture,
  startHttpFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { waitUntil } from '../support/wait.js';
import { get, httpUrlOf } from '../ops/ops-support.js';

/*
 * The outbox end to end through the CLI and `serve`, with every channel: changes recorded
 * by `check` wait while the mail server refuses connections, Slack and the webhooks answer
 * 503, and one Slack endpoint holds its requests unanswered (a send cut mid-way); `serve`
 * is killed (SIGKILL) with all of them pending, and after a restart every delivery
 * arrives. Then the quick start's case, nobody to tell, and the alert commands.
 */

let database: TestDatabase;
let fixture: HttpFixture;
let receiver: TestReceiver;
let smtp: TestSmtpServer | undefined;
let serve: RunningServe | undefined;
let env: Record<string, string>;

const cli = (args: string[], extra: Record<string, string> = {}) =>
  runCli(args, { env: { ...env, ...extra }, cwd: database.dir });

async function alerts(): Promise<AlertListItem[]> {
  const listed = await cli(['alerts', 'list', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { alerts: AlertListItem[] }).alerts;
}

const allDeliveries = async () => (await alerts()).flatMap((alert) => alert.deliveries);

async function check(name: string): Promise<void> {
  const checked = await cli(['check', name]);
  expect(checked.code, checked.stderr).toBe(0);
}

beforeAll(async () => {
  database = await createTestDatabase();
  fixture = await startHttpFixture('sdk1-server.mjs');
  receiver = await startReceiver();
  const smtpPort = await closedLoopbackPort();
  env = {
    ...database.env,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    ALERT_TO: 'ops@example.org',
    ALERT_FROM: 'drift@example.org',
    SLACK_WEBHOOK_URL: receiver.url('/slack/all'),
    WEBHOOK_URL: receiver.url('/hook/all'),
    WEBHOOK_SECRET: 'serve-test-secret-0123456789abcdef',
    DIGEST_SECONDS: '0',
    // Long enough that serve is killed while the refused deliveries wait out their
    // backoff; a send cut by the crash is retried when its claim (20 s) ends.
    ALERT_RETRY_SECONDS: '30',
    ALERT_CLAIM_SECONDS: '20',
  };
});
afterAll(async () => {
  await serve?.stop('SIGKILL');
  await smtp?.close();
  await receiver?.close();
  await fixture?.stop();
  await database?.drop();
});

describe(`alerts through serve and the CLI (${backend})`, () => {
  it('delivers every pending delivery on every channel across outages and a SIGKILL of serve', async () => {
    const added = await cli([
      'server',
      'add',
      'fx',
      '--url',
      `${fixture.baseUrl}/mcp`,
      '--notify',
      'owner@example.org',
      '--slack',
      receiver.url('/slack/fx'),
      '--webhook',
      receiver.url('/hook/fx'),
      '--schedule',
      '0 0 1 1 *',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/slack\s+http:\/\/127\.0\.0\.1:\d+\/slack\/\*\*\*\*/);
    await check('fx');
    // Relax silently, tighten back, relax again: two critical changes to alert (the
    // tightening is below ALERT_MIN_SEVERITY), each in the outbox as `check` records it.
    await controlFixture(fixture.baseUrl, { relax: true, notify: false });
    await check('fx');
    await controlFixture(fixture.baseUrl, { relax: false, notify: false });
    await check('fx');
    await controlFixture(fixture.baseUrl, { relax: true, notify: false });
    await check('fx');
    const queued = await alerts();
    expect(queued).toHaveLength(2);
    for (const alert of queued) {
      expect(alert.status).toBe('pending');
      expect(alert.deliveries.map((row) => `${row.channel} ${row.destination}`).sort()).toEqual([
        'email ops@example.org',
        'email owner@example.org',
        expect.stringMatching(/^slack http:\/\/127\.0\.0\.1:\d+\/slack\/\*\*\*\*$/),
        expect.stringMatching(/^slack http:\/\/127\.0\.0\.1:\d+\/slack\/\*\*\*\*$/),
        expect.stringMatching(/^webhook http:\/\/127\.0\.0\.1:\d+\/hook\/\*\*\*\*$/),
        expect.stringMatching(/^webhook http:\/\/127\.0\.0\.1:\d+\/hook\/\*\*\*\*$/),
      ]);
    }

    // Down everywhere: 503 from Slack and the webhooks, except that the server's own Slack
    // endpoint reads each request and never answers, so serve dies in the middle of it.
    receiver.answer = (request) =>
      request.path === '/slack/fx' ? 'hold' : { status: 503, body: 'down for maintenance' };
    serve = await startServe({ env, cwd: database.dir });
    await waitUntil(
      'every delivery tried once, the two held requests in flight',
      async () =>
        requestsTo(receiver, '/slack/fx').length === 2 &&
        (await allDeliveries()).every((row) => row.attempts === 1),
      { timeoutMs: 90_000, describe: () => serve!.log().slice(-3000) },
    );
    await serve.stop('SIGKILL');
    serve = undefined;
    const pending = await allDeliveries();
    expect(pending.every((row) => row.status === 'pending')).toBe(true);

    smtp = await startSmtpServer({ port: Number(new URL(env.SMTP_URL!).port) });
    receiver.answer = () => ({ status: 200, body: 'ok' });
    serve = await startServe({ env, cwd: database.dir });
    await waitUntil(
      'every alert to be sent',
      async () => (await alerts()).every((alert) => alert.status === 'sent'),
      { timeoutMs: 120_000, describe: () => serve!.log().slice(-3000) },
    );
    const { code } = await serve.stop();
    serve = undefined;
    expect(code).toBe(0);

    const sent = await allDeliveries();
    expect(sent).toHaveLength(12);
    // Email: each delivery's Message-ID exactly once, to its one recipient.
    const emails = sent.filter((row) => row.channel === 'email');
    expect(smtp.received.map((entry) => entry.mail.messageId).sort()).toEqual(
      emails.map((row) => messageIdOf(row.key)).sort(),
    );
    for (const entry of smtp.received) {
      expect(entry.envelopeTo).toHaveLength(1);
      expect(entry.mail.subject).toMatch(/^\[mcp-drift\] CRITICAL fx: /);
    }
    // HTTP: each delivery answered 200 exactly once. The only other requests with its key
    // are refusals (503) and, for the held endpoint, the one request the crash cut off.
    for (const row of sent.filter((delivery) => delivery.channel !== 'email')) {
      const requests = receiver.requests.filter(
        (request) => request.headers['x-mcp-drift-delivery'] === row.key,
      );
      expect(requests.filter((request) => request.status === 200)).toHaveLength(1);
      const others = requests.filter((request) => request.status !== 200);
      if (requests[0]!.path === '/slack/fx') {
        expect(others.map((request) => request.status)).toEqual([null]);
      } else {
        expect(others.every((request) => request.status === 503)).toBe(true);
      }
    }
  });

  it('acknowledges alerts, shows them, and refuses bad input', async () => {
    const [latest] = await alerts();
    const acked = await cli(['alerts', 'ack', String(latest!.id)]);
    expect(acked.code, acked.stderr).toBe(0);
    expect(acked.stdout).toContain(`acknowledged alert ${latest!.id}`);
    const again = await cli(['alerts', 'ack', String(latest!.id)]);
    expect(again.stdout).toContain('already acknowledged');
    const listed = await cli(['alerts', 'list', '--status', 'acknowledged', '--json']);
    expect(JSON.parse(listed.stdout).alerts.map((alert: AlertListItem) => alert.id)).toEqual([
      latest!.id,
    ]);
    const table = await cli(['alerts', 'list']);
    expect(table.stdout).toMatch(
      new RegExp(
        `^${latest!.id}\\s+fx\\s+${latest!.changeId}\\s+critical\\s+acknowledged by \\S+\\s+email\\s+ops@example.org\\s+delivered`,
        'm',
      ),
    );
    expect((await cli(['alerts', 'ack', '999999'])).code).toBe(3);
    expect((await cli(['alerts', 'retry', '999999'])).code).toBe(3);
    expect((await cli(['alerts', 'list', '--status', 'lost'])).code).toBe(2);
    expect((await cli(['alerts', 'ack', 'seven'])).code).toBe(2);
    expect(
      (await cli(['server', 'edit', 'fx', '--slack', 'http://hooks.example.org/x'])).code,
    ).toBe(2);
    const cleared = await cli(['server', 'edit', 'fx', '--no-slack', '--json']);
    expect(JSON.parse(cleared.stdout).slack).toBeNull();
  });
});

describe(`the quick start: nobody to tell (${backend})`, () => {
  let quick: TestDatabase;
  let quickFixture: HttpFixture;
  beforeAll(async () => {
    quick = await createTestDatabase();
    quickFixture = await startHttpFixture('sdk1-server.mjs');
  });
  afterAll(async () => {
    await quickFixture?.stop();
    await quick?.drop();
  });

  it('warns at start, keeps the alert undeliverable, and delivers it once retried with ALERT_TO', async () => {
    const bare = { ...quick.env };
    const run = (args: string[], extra: Record<string, string> = {}) =>
      runCli(args, { env: { ...bare, ...extra }, cwd: quick.dir });
    const running = await startServe({ env: bare, cwd: quick.dir });
    serve = running;
    await waitUntil('the warning', () => running.log().includes('no alert destination'), {
      describe: () => running.log().slice(-2000),
    });
    const warning = running
      .log()
      .split('\n')
      .find((line) => line.includes('no alert destination'))!;
    expect(JSON.parse(warning)).toMatchObject({ level: 40 });
    for (const setting of [
      'ALERT_TO',
      'SMTP_URL',
      'SLACK_WEBHOOK_URL',
      'WEBHOOK_URL',
      '--notify',
    ]) {
      expect(warning).toContain(setting);
    }
    const ready = await get(`${httpUrlOf(running)}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({
      status: 'ready',
      warnings: [expect.stringContaining('no alert destination')],
    });

    expect(
      (
        await run([
          'server',
          'add',
          'quick',
          '--url',
          `${quickFixture.baseUrl}/mcp`,
          '--schedule',
          '0 0 1 1 *',
        ])
      ).code,
    ).toBe(0);
    expect((await run(['check', 'quick'])).code).toBe(0);
    await controlFixture(quickFixture.baseUrl, { relax: true, notify: false });
    expect((await run(['check', 'quick'])).code).toBe(0);
    const listed = await run(['alerts', 'list', '--json']);
    const [alert] = (JSON.parse(listed.stdout) as { alerts: AlertListItem[] }).alerts;
    expect(alert).toMatchObject({ status: 'undeliverable', deliveries: [] });
    const table = await run(['alerts', 'list']);
    expect(table.stdout).toMatch(
      new RegExp(`^${alert!.id}\\s+quick\\s+\\d+\\s+critical\\s+undeliverable`, 'm'),
    );

    const stillNobody = await run(['alerts', 'retry', String(alert!.id)]);
    expect(stillNobody.code).toBe(2);
    expect(stillNobody.stderr).toContain('still has nobody to go to');
    const retried = await run(['alerts', 'retry', String(alert!.id)], {
      ALERT_TO: 'ops@example.org',
    });
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain(`queued 1 delivery of alert ${alert!.id} (email)`);

    // No SMTP_URL: the running serve writes the email into the .eml outbox.
    const outbox = path.join(quick.env.MCP_DRIFT_HOME, 'outbox');
    await waitUntil(
      'the .eml file',
      () => existsSync(outbox) && readdirSync(outbox).some((f) => f.endsWith('.eml')),
      {
        describe: () => running.log().slice(-2000),
      },
    );
    const [file] = readdirSync(outbox).filter((name) => name.endsWith('.eml'));
    const mail = await simpleParser(readFileSync(path.join(outbox, file!)));
    expect(mail.subject).toMatch(/^\[mcp-drift\] CRITICAL quick: /);
    await waitUntil('the alert to be sent', async () => {
      const now = await run(['alerts', 'list', '--json']);
      return JSON.parse(now.stdout).alerts[0].status === 'sent';
    });
    await running.stop();
    serve = undefined;
  });

  it('alerts test reports each channel and exits 4 when one fails', async () => {
    const mail = await startSmtpServer();
    const slack = await startReceiver();
    slack.answer = () => ({ status: 404, body: 'no_service' });
    try {
      const extra = {
        SMTP_URL: mail.url,
        ALERT_TO: 'ops@example.org',
        SLACK_WEBHOOK_URL: slack.url('/services/T0/B0/x'),
      };
      const run = (args: string[]) =>
        runCli(args, { env: { ...quick.env, ...extra }, cwd: quick.dir });
      const all = await run(['alerts', 'test', '--json']);
      expect(all.code).toBe(4);
      expect(JSON.parse(all.stdout).results).toEqual([
        { channel: 'email', destination: 'ops@example.org', ok: true, error: null },
        {
          channel: 'slack',
          destination: expect.stringMatching(/\/services\/\*\*\*\*$/),
          ok: false,
          error: 'HTTP 404: no_service',
        },
      ]);
      expect(all.stderr).toContain('1 of 2 test messages failed (slack)');
      expect(mail.received).toHaveLength(1);
      const emailOnly = await run(['alerts', 'test', '--channel', 'email']);
      expect(emailOnly.code, emailOnly.stderr).toBe(0);
      expect(emailOnly.stdout).toMatch(/^email\s+ops@example.org\s+ok$/m);
      const none = await run(['alerts', 'test', '--channel', 'webhook']);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('set WEBHOOK_URL');
    } finally {
      await slack.close();
      await mail.close();
    }
  });
});
