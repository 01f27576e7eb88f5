import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  closedLoopbackPort,
  controlFixture,
  startHttpFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { waitUntil } from '../support/wait.js';

/*
 * The outbox end to end through the CLI and `serve`: changes recorded by `check` wait in
 * the outbox while the mail server refuses connections, `serve` is killed (SIGKILL) with
 * them pending, and after a restart each arrives exactly once. Then the alert commands.
 */

let database: TestDatabase;
let fixture: HttpFixture;
let smtp: TestSmtpServer | undefined;
let serve: RunningServe | undefined;
let env: Record<string, string>;

const cli = (...args: string[]) => runCli(args, { env, cwd: database.dir });

interface AlertView {
  id: number;
  changeId: number;
  status: string;
  attempts: number;
  recipients: string[];
  messageId: string;
  lastError: string | null;
}

async function alerts(): Promise<AlertView[]> {
  const listed = await cli('alerts', 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { alerts: AlertView[] }).alerts;
}

async function check(): Promise<void> {
  const checked = await cli('check', 'fx');
  expect(checked.code, checked.stderr).toBe(0);
}

beforeAll(async () => {
  database = await createTestDatabase();
  fixture = await startHttpFixture('sdk1-server.mjs');
  const smtpPort = await closedLoopbackPort();
  env = {
    ...database.env,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    ALERT_TO: 'ops@example.org',
    ALERT_FROM: 'drift@example.org',
    DIGEST_SECONDS: '0',
    // Long enough that serve is killed while both alerts wait out their backoff, not in
    // the middle of a send (a send cut by a crash is retried only when its lease ends).
    ALERT_RETRY_SECONDS: '20',
  };
});
afterAll(async () => {
  await serve?.stop('SIGKILL');
  await smtp?.close();
  await fixture?.stop();
  await database?.drop();
});

describe(`alerts through serve and the CLI (${backend})`, () => {
  it('delivers every pending alert exactly once across an SMTP outage and a SIGKILL of serve', async () => {
    const added = await cli(
      'server',
      'add',
      'fx',
      '--url',
      `${fixture.baseUrl}/mcp`,
      '--notify',
      'owner@example.org',
      '--schedule',
      '0 0 1 1 *',
    );
    expect(added.code, added.stderr).toBe(0);
    await check();
    // Relax silently, tighten back, relax again: two critical changes to alert (the
    // tightening is below ALERT_MIN_SEVERITY), each in the outbox as `check` records it.
    await controlFixture(fixture.baseUrl, { relax: true, notify: false });
    await check();
    await controlFixture(fixture.baseUrl, { relax: false, notify: false });
    await check();
    await controlFixture(fixture.baseUrl, { relax: true, notify: false });
    await check();
    const queued = await alerts();
    expect(queued).toHaveLength(2);
    expect(queued.every((alert) => alert.status === 'pending' && alert.attempts === 0)).toBe(true);
    expect(queued[0]!.recipients.sort()).toEqual(['ops@example.org', 'owner@example.org']);

    const smtpPort = Number(new URL(env.SMTP_URL!).port);
    serve = await startServe({ env, cwd: database.dir });
    await waitUntil(
      'serve to try and fail to send both alerts',
      async () => (await alerts()).every((alert) => alert.attempts >= 1 && alert.lastError),
      { timeoutMs: 90_000, describe: () => serve!.log().slice(-3000) },
    );
    await serve.stop('SIGKILL');
    serve = undefined;
    expect((await alerts()).every((alert) => alert.status === 'pending')).toBe(true);

    smtp = await startSmtpServer({ port: smtpPort });
    serve = await startServe({ env, cwd: database.dir });
    await waitUntil(
      'both alerts to be sent',
      async () => (await alerts()).every((alert) => alert.status === 'sent'),
      { timeoutMs: 90_000, describe: () => serve!.log().slice(-3000) },
    );
    const { code } = await serve.stop();
    serve = undefined;
    expect(code).toBe(0);

    const sent = await alerts();
    expect(smtp.received.map((entry) => entry.mail.messageId).sort()).toEqual(
      sent.map((alert) => alert.messageId).sort(),
    );
    for (const entry of smtp.received) {
      expect(entry.envelopeTo.sort()).toEqual(['ops@example.org', 'owner@example.org']);
      expect(entry.mail.from?.text).toBe('drift@example.org');
      expect(entry.mail.subject).toMatch(/^\[mcp-drift\] CRITICAL fx: /);
    }
  });

  it('acknowledges alerts and shows changes with their interpretation records', async () => {
    const [latest] = await alerts();
    const acked = await cli('alerts', 'ack', String(latest!.id));
    expect(acked.code, acked.stderr).toBe(0);
    expect(acked.stdout).toContain(`acknowledged alert ${latest!.id}`);
    const again = await cli('alerts', 'ack', String(latest!.id));
    expect(again.stdout).toContain('already acknowledged');
    const listed = await cli('alerts', 'list', '--status', 'acknowledged', '--json');
    expect(JSON.parse(listed.stdout).alerts.map((alert: AlertView) => alert.id)).toEqual([
      latest!.id,
    ]);
    const table = await cli('alerts', 'list');
    expect(table.stdout).toMatch(
      new RegExp(`^${latest!.id}\\s+fx\\s+${latest!.changeId}\\s+critical\\s+acknowledged`, 'm'),
    );

    const missing = await cli('alerts', 'ack', '999999');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no alert with id 999999');
    const badStatus = await cli('alerts', 'list', '--status', 'lost');
    expect(badStatus.code).toBe(2);
    const badId = await cli('alerts', 'ack', 'seven');
    expect(badId.code).toBe(2);

    const listedChanges = await cli('changes', '--server', 'fx', '--json');
    expect(listedChanges.code, listedChanges.stderr).toBe(0);
    const changeRows = JSON.parse(listedChanges.stdout).changes as {
      id: number;
      severity: string;
    }[];
    expect(changeRows.map((change) => change.severity)).toEqual(['critical', 'low', 'critical']);

    const shown = await cli('change', 'show', String(latest!.changeId), '--json');
    expect(shown.code, shown.stderr).toBe(0);
    const detail = JSON.parse(shown.stdout);
    expect(detail.change.id).toBe(latest!.changeId);
    const relaxation = detail.findings.find(
      (finding: { kind: string; field?: string }) =>
        finding.kind === 'annotation_relaxed' && finding.field === 'readOnlyHint',
    );
    expect(relaxation.severity).toBe('critical');
    expect(relaxation.record.hints.readOnlyHint.effectiveAfter).toBe(true);

    const text = await cli('change', 'show', String(latest!.changeId));
    expect(text.stdout).toContain('readOnlyHint: declared');
    expect(text.stdout).toContain('trust: untrusted:');
    expect(text.stdout).toContain('mcp-drift baseline approve fx --listing');
    const unknown = await cli('change', 'show', '999999');
    expect(unknown.code).toBe(3);
  });
});
