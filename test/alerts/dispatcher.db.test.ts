import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOnlyPolicy, type AlertPolicy } from '../../src/alerts/alert-policy.js';
import { listAlerts } from '../../src/alerts/alerts-repo.js';
import { ChannelDispatcher, DEFAULT_DISPATCHER_OPTIONS } from '../../src/delivery/dispatcher.js';
import { messageIdOf } from '../../src/delivery/channel.js';
import { createEmailChannel } from '../../src/delivery/email-channel.js';
import { createEmlSender } from '../../src/delivery/eml-sender.js';
import type { MailSender } from '../../src/delivery/mail-sender.js';
import { createSmtpSender } from '../../src/delivery/smtp-sender.js';
import { recordObservation } from '../../src/changes/record-observation.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { ServerRow } from '../../src/db/schema.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { createLogger } from '../../src/log.js';
import { insertServer } from '../../src/registry/servers-repo.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { closedLoopbackPort } from '../support/mcp-fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { waitUntil } from '../support/wait.js';
import { listed, withHints } from '../support/probe-results.js';

/*
 * The outbox and its dispatcher against a real SMTP server on loopback: changes are
 * recorded as the service records them (recordObservation, the alert in the change's
 * transaction), then sent by the dispatcher and read back with mailparser.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
const logger = createLogger('silent');
const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

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

async function observe(server: ServerRow, tools: RawTool[], policy: AlertPolicy) {
  return recordObservation(handle.db, {
    server,
    result: listed(tools),
    trigger: 'poll',
    startedAt: new Date(),
    delivery: { listChangedAdvertised: true, notificationSeen: false },
    alerts: policy,
  });
}

function dispatcher(
  sender: MailSender,
  overrides: { retryBaseMs?: number; maxAttempts?: number } = {},
) {
  return new ChannelDispatcher({
    db: handle.db,
    channel: createEmailChannel(sender, 'mcp-drift@example.org'),
    logger,
    options: {
      ...DEFAULT_DISPATCHER_OPTIONS,
      maxAttempts: overrides.maxAttempts ?? 10,
      retryBaseMs: overrides.retryBaseMs ?? 200,
      pollMs: 50,
    },
  });
}

const immediate: AlertPolicy = emailOnlyPolicy(['ops@example.org']);

async function alertsOf(server: ServerRow) {
  return (await listAlerts(handle.db, { limit: 1000 })).filter((row) => row.serverId === server.id);
}

/** The server's alerts' deliveries, oldest first. */
async function deliveriesOf(server: ServerRow) {
  return (await alertsOf(server)).flatMap((row) => row.deliveries).sort((a, b) => a.id - b.id);
}

describe(`alert outbox and dispatcher (${backend})`, () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
  });

  it('sends one email for a critical change, with both parts, the recipients, subject and tables', async () => {
    const server = await newServer('memory-critical', ['owner@example.org', 'ops@example.org']);
    await observe(server, memory, immediate);
    const recorded = await observe(
      server,
      withHints(memory, 'delete_entities', { readOnlyHint: true }),
      immediate,
    );
    expect(recorded.change?.row.severity).toBe('critical');
    expect(recorded.change?.alert?.deliveries.map((row) => row.status)).toEqual([
      'pending',
      'pending',
    ]);

    const before = smtp.received.length;
    const sender = createSmtpSender(smtp.url);
    const running = dispatcher(sender);
    running.start();
    await waitUntil('the alert to be sent', async () =>
      (await alertsOf(server)).every((row) => row.status === 'sent'),
    );
    await running.stop();

    // One message per recipient: each address is a delivery of its own.
    const mails = smtp.received.slice(before);
    expect(mails.map((entry) => entry.envelopeTo).sort()).toEqual([
      ['ops@example.org'],
      ['owner@example.org'],
    ]);
    const { mail, envelopeTo } = mails.find((entry) => entry.envelopeTo[0] === 'ops@example.org')!;
    const opsDelivery = recorded.change!.alert!.deliveries.find(
      (row) => row.destination === envelopeTo[0],
    )!;
    expect(mail.subject).toBe(
      '[mcp-drift] CRITICAL memory-critical: delete_entities now claims read-only (no change notification)',
    );
    expect(mail.messageId).toBe(messageIdOf(opsDelivery.key));
    expect(mail.text).toContain('delete_entities');
    expect(mail.text).toContain(`mcp-drift change show ${recorded.change!.row.id}`);
    expect(mail.text).toContain(`mcp-drift alerts ack ${recorded.change!.alert!.alert.id}`);
    expect(mail.html).toContain('<table');
    expect(mail.html).toContain('readOnlyHint');
    expect(mail.headers.get('x-mcp-drift-severity')).toBe('critical');
  });

  it('records nothing in the outbox below the minimum severity', async () => {
    const server = await newServer('memory-quiet');
    await observe(server, memory, immediate);
    const changed = memory.map((tool) =>
      tool.name === 'read_graph' ? { ...tool, title: 'Read the graph' } : tool,
    );
    // A title change, not notified: medium and high findings, no critical one.
    const recorded = await observe(
      server,
      changed,
      emailOnlyPolicy(['ops@example.org'], { minSeverity: 'critical' }),
    );
    expect(recorded.change).not.toBeNull();
    expect(recorded.change?.alert).toBeNull();
    expect(await alertsOf(server)).toEqual([]);
  });

  it('keeps retrying while SMTP refuses connections, then delivers each alert exactly once', async () => {
    const server = await newServer('memory-outage');
    await observe(server, memory, immediate);
    const changes = [];
    for (const name of ['delete_entities', 'delete_observations', 'delete_relations']) {
      changes.push(
        await observe(server, withHints(memory, name, { readOnlyHint: true }), immediate),
      );
    }
    const port = await closedLoopbackPort();
    const sender = createSmtpSender(`smtp://127.0.0.1:${port}`);
    const running = dispatcher(sender, { retryBaseMs: 100 });
    running.start();
    await waitUntil('two refused attempts per delivery', async () =>
      (await deliveriesOf(server)).every((row) => row.attempts >= 2 && row.status === 'pending'),
    );
    const refused = await deliveriesOf(server);
    expect(refused[0]!.lastError).toMatch(/ECONNREFUSED/);

    const late = await startSmtpServer({ port });
    try {
      await waitUntil('every alert to be sent', async () =>
        (await alertsOf(server)).every((row) => row.status === 'sent'),
      );
      await running.stop();
      const ids = late.received.map((entry) => entry.mail.messageId);
      expect(ids.sort()).toEqual(
        changes.map((change) => messageIdOf(change.change!.alert!.deliveries[0]!.key)).sort(),
      );
    } finally {
      await running.stop();
      await late.close();
    }
  });

  it('marks an alert failed at once when the server refuses its recipients for good', async () => {
    const server = await newServer('memory-refused');
    await observe(server, memory, immediate);
    await observe(server, withHints(memory, 'delete_entities', { readOnlyHint: true }), immediate);
    const refusing = await startSmtpServer({ rejectRecipients: true });
    const running = dispatcher(createSmtpSender(refusing.url));
    try {
      running.start();
      await waitUntil('the alert to fail', async () =>
        (await alertsOf(server)).every((row) => row.status === 'failed'),
      );
      const [delivery] = await deliveriesOf(server);
      expect(delivery!.attempts).toBe(1);
      expect(delivery!.lastError).toMatch(/550/);
    } finally {
      await running.stop();
      await refusing.close();
    }
  });

  it('gives up after the bounded number of attempts', async () => {
    const server = await newServer('memory-unreachable');
    await observe(server, memory, immediate);
    await observe(server, withHints(memory, 'delete_entities', { readOnlyHint: true }), immediate);
    const port = await closedLoopbackPort();
    const running = dispatcher(createSmtpSender(`smtp://127.0.0.1:${port}`), {
      retryBaseMs: 50,
      maxAttempts: 3,
    });
    running.start();
    try {
      await waitUntil('the alert to fail', async () =>
        (await alertsOf(server)).every((row) => row.status === 'failed'),
      );
      const [delivery] = await deliveriesOf(server);
      expect(delivery!.attempts).toBe(3);
      expect(delivery!.lastError).toMatch(/ECONNREFUSED/);
    } finally {
      await running.stop();
    }
  });

  it('escapes server-supplied text: HTML stays inert and no header can be injected', async () => {
    const server = await newServer('memory-hostile');
    await observe(server, memory, immediate);
    const hostileName = 'x\r\nBcc: x@evil.example';
    const relaxed = withHints(memory, 'delete_entities', { readOnlyHint: true });
    const hostile = [
      ...relaxed.map((tool) =>
        tool.name === 'delete_entities'
          ? { ...tool, description: '<img src=x onerror=alert(1)>' }
          : tool,
      ),
      { ...memory.find((tool) => tool.name === 'read_graph')!, name: hostileName },
    ];
    await observe(server, hostile, immediate);
    const before = smtp.received.length;
    const running = dispatcher(createSmtpSender(smtp.url));
    running.start();
    await waitUntil('the alert to be sent', async () =>
      (await alertsOf(server)).every((row) => row.status === 'sent'),
    );
    await running.stop();
    const [{ mail, envelopeTo, raw }] = smtp.received.slice(before) as [
      (typeof smtp.received)[number],
    ];
    expect(envelopeTo).toEqual(['ops@example.org']);
    expect(mail.bcc).toBeUndefined();
    expect(raw).not.toMatch(/^Bcc:/im);
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('sends five changes of one server within the digest window as one email listing all', async () => {
    const server = await newServer('memory-digest');
    const digest: AlertPolicy = { ...immediate, digestSeconds: 3 };
    await observe(server, memory, digest);
    const names = ['delete_entities', 'delete_observations', 'delete_relations'];
    const recorded = [];
    let tools = memory;
    for (const hints of [{ readOnlyHint: true }, { readOnlyHint: false }]) {
      for (const name of names) {
        if (recorded.length === 5) break;
        tools = withHints(tools, name, hints);
        recorded.push(await observe(server, tools, digest));
      }
    }
    expect(recorded).toHaveLength(5);
    const before = smtp.received.length;
    const running = dispatcher(createSmtpSender(smtp.url));
    running.start();
    await waitUntil('the digest to be sent', async () =>
      (await alertsOf(server)).every((row) => row.status === 'sent'),
    );
    await running.stop();
    const mails = smtp.received.slice(before);
    expect(mails).toHaveLength(1);
    const headId = recorded[0]!.change!.alert!.deliveries[0]!.id;
    expect((await deliveriesOf(server)).filter((row) => row.digestOf === headId)).toHaveLength(4);
    for (const entry of recorded) {
      expect(mails[0]!.mail.text).toContain(`mcp-drift change show ${entry.change!.row.id}`);
    }
    expect(mails[0]!.mail.subject).toMatch(/^\[mcp-drift\] CRITICAL memory-digest: 5 changes/);
  });

  it('writes each alert as an .eml file in the outbox when no SMTP server is configured', async () => {
    const server = await newServer('memory-eml');
    await observe(server, memory, immediate);
    const recorded = await observe(
      server,
      withHints(memory, 'delete_entities', { readOnlyHint: true }),
      immediate,
    );
    const outbox = path.join(database.dir, 'outbox');
    const running = dispatcher(createEmlSender(outbox, logger));
    running.start();
    await waitUntil('the alert to be written', async () =>
      (await alertsOf(server)).every((row) => row.status === 'sent'),
    );
    await running.stop();
    const files = readdirSync(outbox).filter((file) => file.endsWith('.eml'));
    expect(files).toEqual([
      expect.stringMatching(
        new RegExp(
          `-alert-${recorded.change!.alert!.alert.id}-${recorded.change!.alert!.deliveries[0]!.id}\\.eml$`,
        ),
      ),
    ]);
    const mail = await simpleParser(readFileSync(path.join(outbox, files[0]!)));
    expect(mail.subject).toMatch(
      /^\[mcp-drift\] CRITICAL memory-eml: delete_entities now claims read-only/,
    );
    expect(mail.text).toContain('delete_entities');
    expect(mail.html).toContain('<table');
  });
});
