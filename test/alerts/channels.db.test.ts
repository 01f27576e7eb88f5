import { readFileSync } from 'node:fs';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAlertViews } from '../../src/alerts/alert-list.js';
import { alertPolicyOf } from '../../src/alerts/alert-policy.js';
import { listAlerts, type AlertSummary } from '../../src/alerts/alerts-repo.js';
import { messageIdOf } from '../../src/delivery/channel.js';
import { createDispatcher } from '../../src/delivery/create-dispatcher.js';
import type { AlertDispatcher } from '../../src/delivery/dispatcher.js';
import { retryAlert } from '../../src/alerts/retry-alert.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { ServerRow } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { createLogger } from '../../src/log.js';
import { insertServer } from '../../src/registry/servers-repo.js';
import { blockKitProblems } from '../support/block-kit.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { requestsTo, startReceiver, type TestReceiver } from '../support/http-receiver.js';
import { listed, withHints } from '../support/probe-results.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { waitUntil } from '../support/wait.js';

/*
 * Email, Slack and webhook deliveries from recorded changes, through the real dispatchers
 * (one per channel, as serve runs them) to a real SMTP server and a node:http receiver on
 * loopback that stands in for Slack's incoming webhooks and a webhook endpoint.
 */

const SECRET = 'test-webhook-secret-0123456789abcdef';
const logger = createLogger('silent');
const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));

/** The README's verification snippet, run as written (its import line aside). */
function readmeVerifier(): (body: string, header: string, secret: string) => boolean {
  const readme = readFileSync('README.md', 'utf8');
  const block = /<!-- webhook-verify:start -->\s*```js\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no webhook verification snippet');
  const code = block[1]!.replace(/^import .*$/m, '');
  return new Function('createHmac', 'timingSafeEqual', `${code}\nreturn verifyMcpDriftSignature;`)(
    createHmac,
    timingSafeEqual,
  );
}

let database: TestDatabase;
let handle: DatabaseHandle;
let smtp: TestSmtpServer;
let receiver: TestReceiver;
const refuse = new Map<string, number>();

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  smtp = await startSmtpServer({ refuse });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await smtp?.close();
  await handle?.close();
  await database?.drop();
});

function configFor(name: string, extra: Record<string, string> = {}): Config {
  return loadConfig({
    SMTP_URL: smtp.url,
    ALERT_TO: 'ops@example.org',
    ALERT_FROM: 'drift@example.org',
    SLACK_WEBHOOK_URL: receiver.url(`/slack/${name}`),
    WEBHOOK_URL: receiver.url(`/hook/${name}`),
    WEBHOOK_SECRET: SECRET,
    DIGEST_SECONDS: '0',
    ALERT_RETRY_SECONDS: '0.2',
    ...extra,
  });
}

async function newServer(name: string, notify: string[] = []): Promise<ServerRow> {
  return insertServer(handle.db, {
    name,
    transport: 'http',
    command: null,
    args: [],
    env: {},
    cwd: null,
    url: 'http://127.0.0.1:9/mcp',
    headers: {},
    trust: 'trusted',
    schedule: null,
    notify,
    slackUrl: null,
    webhookUrl: null,
    hold: false,
    alertMinSeverity: null,
  });
}

/** A first listing, then `delete_entities` turned read-only: one critical change. */
async function criticalChange(server: ServerRow, config: Config) {
  const observe = (tools: RawTool[]) =>
    recordObservation(handle.db, {
      server,
      result: listed(tools),
      trigger: 'poll',
      startedAt: new Date(),
      delivery: { listChangedAdvertised: true, notificationSeen: false },
      alerts: alertPolicyOf(config),
    });
  await observe(memory);
  const recorded = await observe(withHints(memory, 'delete_entities', { readOnlyHint: true }));
  expect(recorded.change?.row.severity).toBe('critical');
  return recorded.change!.alert!;
}

async function alertOf(id: number): Promise<AlertSummary> {
  const [alert] = await listAlerts(handle.db, { ids: [id], limit: 1 });
  return alert!;
}

const deliveryOf = (alert: AlertSummary, channel: string) =>
  alert.deliveries.find((delivery) => delivery.channel === channel)!;

function run(config: Config): AlertDispatcher {
  const dispatcher = createDispatcher(handle.db, config, logger, { pollMs: 50 });
  dispatcher.start();
  return dispatcher;
}

describe(`alert channels (${backend})`, () => {
  it('delivers a critical change once to email, Slack and a signed webhook', async () => {
    const config = configFor('once');
    const server = await newServer('once');
    const queued = await criticalChange(server, config);
    expect(queued.deliveries.map((row) => row.channel).sort()).toEqual([
      'email',
      'slack',
      'webhook',
    ]);
    const mailsBefore = smtp.received.length;
    const dispatcher = run(config);
    try {
      await waitUntil(
        'every delivery',
        async () => (await alertOf(queued.alert.id)).status === 'sent',
      );
    } finally {
      await dispatcher.stop();
    }
    const alert = await alertOf(queued.alert.id);

    const mails = smtp.received.slice(mailsBefore);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.mail.messageId).toBe(messageIdOf(deliveryOf(alert, 'email').key));

    const [slack, ...moreSlack] = requestsTo(receiver, '/slack/once');
    expect(moreSlack).toEqual([]);
    expect(slack!.headers['x-mcp-drift-delivery']).toBe(deliveryOf(alert, 'slack').key);
    const message = JSON.parse(slack!.body);
    expect(blockKitProblems(message)).toEqual([]);
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: {
        type: 'plain_text',
        text: 'CRITICAL once: delete_entities now claims read-only (no change notification)',
      },
    });
    const texts = JSON.stringify(message.blocks);
    expect(texts).toContain('*readOnlyHint: false → true*');
    expect(texts).toContain('Old values held by');
    expect(texts).toContain(`mcp-drift change show ${queued.alert.changeId}`);
    expect(texts).toContain('mcp-drift baseline approve once --listing');

    const [hook, ...moreHooks] = requestsTo(receiver, '/hook/once');
    expect(moreHooks).toEqual([]);
    const key = deliveryOf(alert, 'webhook').key;
    expect(hook!.headers['x-mcp-drift-delivery']).toBe(key);
    const document = JSON.parse(hook!.body);
    expect(document).toMatchObject({
      type: 'mcp-drift.alert',
      delivery: key,
      alert: queued.alert.id,
      server: { name: 'once', trust: 'trusted' },
      severity: 'critical',
    });
    const relaxed = document.changes[0].findings.find(
      (finding: { kind: string }) => finding.kind === 'annotation_relaxed',
    );
    expect(relaxed.record.hints.readOnlyHint).toMatchObject({
      effectiveBefore: false,
      effectiveAfter: true,
    });
    expect(document.commands.approve).toMatch(/^mcp-drift baseline approve once --listing /);

    const verify = readmeVerifier();
    const signature = String(hook!.headers['x-mcp-drift-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verify(hook!.body, signature, SECRET)).toBe(true);
    expect(verify(hook!.body, signature, 'another-secret-0123456789abcdef')).toBe(false);
    expect(verify(hook!.body.replace('critical', 'low'), signature, SECRET)).toBe(false);
  });

  it('retries Slack and the webhook through a 503 outage while email goes out; each arrives once with one key', async () => {
    const config = configFor('outage');
    const server = await newServer('outage');
    const outage = { on: true };
    const previous = receiver.answer;
    receiver.answer = (request) =>
      request.path.endsWith('/outage') && outage.on
        ? { status: 503, body: 'service unavailable' }
        : previous(request);
    const queued = await criticalChange(server, config);
    const dispatcher = run(config);
    try {
      await waitUntil(
        'email delivered and three refusals each for Slack and the webhook',
        async () => {
          const alert = await alertOf(queued.alert.id);
          return (
            deliveryOf(alert, 'email').status === 'delivered' &&
            requestsTo(receiver, '/slack/outage').length >= 3 &&
            requestsTo(receiver, '/hook/outage').length >= 3
          );
        },
      );
      // Email went out while the outage was on: it waited for neither.
      const during = await alertOf(queued.alert.id);
      expect(deliveryOf(during, 'slack').status).toBe('pending');
      expect(deliveryOf(during, 'webhook').status).toBe('pending');
      expect(deliveryOf(during, 'slack').lastError).toBe('HTTP 503: service unavailable');
      outage.on = false;
      await waitUntil(
        'every delivery',
        async () => (await alertOf(queued.alert.id)).status === 'sent',
      );
    } finally {
      await dispatcher.stop();
      receiver.answer = previous;
    }
    const alert = await alertOf(queued.alert.id);
    for (const [channel, path] of [
      ['slack', '/slack/outage'],
      ['webhook', '/hook/outage'],
    ] as const) {
      const delivery = deliveryOf(alert, channel);
      const requests = requestsTo(receiver, path);
      expect(requests.map((request) => request.headers['x-mcp-drift-delivery'])).toEqual(
        requests.map(() => delivery.key),
      );
      expect(requests.filter((request) => request.status === 200)).toHaveLength(1);
      expect(requests).toHaveLength(delivery.attempts);
    }
    expect(
      smtp.received.filter(
        (entry) => entry.mail.messageId === messageIdOf(deliveryOf(alert, 'email').key),
      ),
    ).toHaveLength(1);
  });

  it('waits as long as a 429 says in Retry-After, not the shorter backoff', async () => {
    const config = configFor('limited', { ALERT_RETRY_SECONDS: '0.1' });
    const server = await newServer('limited');
    const previous = receiver.answer;
    receiver.answer = (request) =>
      request.path === '/slack/limited' && requestsTo(receiver, '/slack/limited').length === 1
        ? { status: 429, headers: { 'retry-after': '3' }, body: 'rate_limited' }
        : previous(request);
    const queued = await criticalChange(server, config);
    const dispatcher = run(config);
    try {
      await waitUntil(
        'the Slack delivery',
        async () => deliveryOf(await alertOf(queued.alert.id), 'slack').status === 'delivered',
      );
    } finally {
      await dispatcher.stop();
      receiver.answer = previous;
    }
    const [first, second, ...rest] = requestsTo(receiver, '/slack/limited');
    expect(rest).toEqual([]);
    expect(first!.status).toBe(429);
    expect(second!.status).toBe(200);
    // A lower bound the dispatcher must respect, not a measure of its speed: without
    // Retry-After the retry would come after the 0.1 s backoff.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(2900);
  });

  it('fails a delivery at once on a 400 and shows the reason the body gave', async () => {
    const config = configFor('refused');
    const server = await newServer('refused');
    const previous = receiver.answer;
    receiver.answer = (request) =>
      request.path === '/slack/refused'
        ? { status: 400, body: 'invalid_blocks' }
        : previous(request);
    const queued = await criticalChange(server, config);
    const dispatcher = run(config);
    try {
      await waitUntil(
        'the Slack delivery to fail',
        async () => deliveryOf(await alertOf(queued.alert.id), 'slack').status === 'failed',
      );
      await waitUntil('the others', async () =>
        (await alertOf(queued.alert.id)).deliveries.every((row) => row.status !== 'pending'),
      );
    } finally {
      await dispatcher.stop();
      receiver.answer = previous;
    }
    const alert = await alertOf(queued.alert.id);
    expect(alert.status).toBe('failed');
    const slack = deliveryOf(alert, 'slack');
    expect(slack.attempts).toBe(1);
    expect(slack.lastError).toBe('HTTP 400: invalid_blocks');
    expect(deliveryOf(alert, 'email').status).toBe('delivered');
    const [listed] = (await listAlertViews(handle.db, { limit: 100 })).alerts.filter(
      (row) => row.id === alert.id,
    );
    expect(listed!.deliveries.find((row) => row.channel === 'slack')).toMatchObject({
      status: 'failed',
      lastError: 'HTTP 400: invalid_blocks',
      destination: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/slack\/\*\*\*\*$/),
    });

    // Once the cause is fixed, `alerts retry` sends the failed delivery again, only it.
    const retried = await retryAlert(handle.db, config, alert.id);
    expect(retried.queued.map((row) => row.channel)).toEqual(['slack']);
    const again = run(config);
    try {
      await waitUntil(
        'the retried delivery',
        async () => (await alertOf(alert.id)).status === 'sent',
      );
    } finally {
      await again.stop();
    }
    expect(requestsTo(receiver, '/slack/refused').map((request) => request.status)).toEqual([
      400, 200,
    ]);
  });

  it('retries a recipient refused with 451 and fails one refused with 550, each on its own', async () => {
    const config = configFor('rcpt', {
      ALERT_TO: 'ok@example.org,full@example.org,gone@example.org',
    });
    const server = await newServer('rcpt');
    refuse.set('gone@example.org', 550);
    refuse.set('full@example.org', 451);
    const queued = await criticalChange(server, config);
    const emailTo = (alert: AlertSummary, address: string) =>
      alert.deliveries.find((row) => row.channel === 'email' && row.destination === address)!;
    const dispatcher = run(config);
    try {
      await waitUntil('two refusals of the deferred recipient', async () => {
        const alert = await alertOf(queued.alert.id);
        return (
          emailTo(alert, 'ok@example.org').status === 'delivered' &&
          emailTo(alert, 'gone@example.org').status === 'failed' &&
          emailTo(alert, 'full@example.org').attempts >= 2
        );
      });
      const during = await alertOf(queued.alert.id);
      expect(emailTo(during, 'gone@example.org')).toMatchObject({ attempts: 1 });
      expect(emailTo(during, 'gone@example.org').lastError).toMatch(/550/);
      expect(emailTo(during, 'full@example.org').status).toBe('pending');
      expect(emailTo(during, 'full@example.org').lastError).toMatch(/451/);
      refuse.delete('full@example.org');
      await waitUntil(
        'the deferred recipient',
        async () =>
          emailTo(await alertOf(queued.alert.id), 'full@example.org').status === 'delivered',
      );
    } finally {
      await dispatcher.stop();
      refuse.clear();
    }
    const alert = await alertOf(queued.alert.id);
    expect(alert.status).toBe('failed');
    const [listed] = (await listAlertViews(handle.db, { limit: 100 })).alerts.filter(
      (row) => row.id === alert.id,
    );
    expect(
      listed!.deliveries
        .filter((row) => row.channel === 'email')
        .map((row) => [row.destination, row.status])
        .sort(),
    ).toEqual([
      ['full@example.org', 'delivered'],
      ['gone@example.org', 'failed'],
      ['ok@example.org', 'delivered'],
    ]);
    const received = smtp.received.filter((entry) =>
      alert.deliveries.some((row) => entry.mail.messageId === messageIdOf(row.key)),
    );
    expect(received.map((entry) => entry.envelopeTo[0]).sort()).toEqual([
      'full@example.org',
      'ok@example.org',
    ]);
  });

  it('sends a digest per channel: two changes in the window make one message on each', async () => {
    const config = configFor('digest', { DIGEST_SECONDS: '2' });
    const server = await newServer('digest');
    const observe = (tools: RawTool[]) =>
      recordObservation(handle.db, {
        server,
        result: listed(tools),
        trigger: 'poll',
        startedAt: new Date(),
        delivery: { listChangedAdvertised: true, notificationSeen: false },
        alerts: alertPolicyOf(config),
      });
    await observe(memory);
    const first = await observe(withHints(memory, 'delete_entities', { readOnlyHint: true }));
    const second = await observe(
      withHints(withHints(memory, 'delete_entities', { readOnlyHint: true }), 'delete_relations', {
        readOnlyHint: true,
      }),
    );
    const ids = [first.change!.alert!.alert.id, second.change!.alert!.alert.id];
    const mailsBefore = smtp.received.length;
    const dispatcher = run(config);
    try {
      await waitUntil('both alerts', async () =>
        (await Promise.all(ids.map(alertOf))).every((alert) => alert.status === 'sent'),
      );
    } finally {
      await dispatcher.stop();
    }
    const changeIds = [first.change!.row.id, second.change!.row.id];
    const [slack, ...moreSlack] = requestsTo(receiver, '/slack/digest');
    expect(moreSlack).toEqual([]);
    expect(blockKitProblems(JSON.parse(slack!.body))).toEqual([]);
    for (const id of changeIds) expect(slack!.body).toContain(`mcp-drift change show ${id}`);
    const [hook, ...moreHooks] = requestsTo(receiver, '/hook/digest');
    expect(moreHooks).toEqual([]);
    expect(JSON.parse(hook!.body).changes.map((change: { id: number }) => change.id)).toEqual(
      changeIds,
    );
    const mails = smtp.received.slice(mailsBefore);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.mail.subject).toMatch(/^\[mcp-drift\] CRITICAL digest: 2 changes/);
  });

  it('gives each channel its own minimum severity', async () => {
    const config = configFor('minimums', {
      SLACK_MIN_SEVERITY: 'critical',
      ALERT_MIN_SEVERITY: 'low',
    });
    expect(config.WEBHOOK_MIN_SEVERITY).toBe('low');
    const server = await newServer('minimums');
    const policy = alertPolicyOf(config);
    const observe = (tools: RawTool[]) =>
      recordObservation(handle.db, {
        server,
        result: listed(tools),
        trigger: 'poll',
        startedAt: new Date(),
        delivery: { listChangedAdvertised: true, notificationSeen: true },
        alerts: policy,
      });
    await observe(memory);
    // A new tool, notified: a low change.
    const added = await observe([...memory, { ...memory[0]!, name: 'brand_new_tool' }]);
    expect(added.change?.row.severity).toBe('low');
    expect(added.change!.alert!.deliveries.map((row) => row.channel).sort()).toEqual([
      'email',
      'webhook',
    ]);
  });

  it('records an alert with nobody to tell as undeliverable, and delivers it once retried with a destination', async () => {
    const bare = loadConfig({ SMTP_URL: smtp.url, DIGEST_SECONDS: '0' });
    const server = await newServer('nobody');
    const queued = await criticalChange(server, bare);
    expect(queued.deliveries).toEqual([]);
    expect((await alertOf(queued.alert.id)).status).toBe('undeliverable');
    await expect(retryAlert(handle.db, bare, queued.alert.id)).rejects.toThrow(
      /still has nobody to go to: set ALERT_TO/,
    );

    const configured = loadConfig({
      SMTP_URL: smtp.url,
      ALERT_TO: 'late@example.org',
      DIGEST_SECONDS: '0',
    });
    const retried = await retryAlert(handle.db, configured, queued.alert.id);
    expect(retried.queued.map((row) => [row.channel, row.destination])).toEqual([
      ['email', 'late@example.org'],
    ]);
    const dispatcher = run(configured);
    try {
      await waitUntil('the alert', async () => (await alertOf(queued.alert.id)).status === 'sent');
    } finally {
      await dispatcher.stop();
    }
    expect(smtp.received.some((entry) => entry.envelopeTo[0] === 'late@example.org')).toBe(true);
  });
});
