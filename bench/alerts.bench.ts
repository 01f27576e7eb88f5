// The alert dispatchers' throughput, per channel: COUNT alerts
// queued in the outbox with an email, a Slack and a webhook delivery each, drained by the
// real dispatcher of each channel in turn: email to an SMTP server on loopback (the
// smtp-server package, in this process), Slack and the webhook to a node:http receiver on
// loopback that answers 200. Run alone with `npm run bench -- alerts`.
//
// Each channel is printed side by side with its floor, the bare client sending the same
// rendered messages with no database: nodemailer through the same pool for email, fetch
// with the same concurrency for Slack and the webhook. The gap is the outbox's own cost
// (claiming, loading, rendering, signing, recording each outcome).
//
// Settings (environment): BENCH_ALERTS_DB=pglite|postgres|both (default: both when
// PostgreSQL answers at 127.0.0.1:5432, else pglite), BENCH_ALERTS_COUNT (1000).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, count, eq, sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { alertPolicyOf } from '../src/alerts/alert-policy.js';
import { type ChannelName } from '../src/vocabulary/channels.js';
import { messageIdOf } from '../src/delivery/channel.js';
import { createChannels } from '../src/delivery/create-dispatcher.js';
import { claimDueDeliveries } from '../src/alerts/deliveries-repo.js';
import { ChannelDispatcher, DEFAULT_DISPATCHER_OPTIONS } from '../src/delivery/dispatcher.js';
import { loadDeliveryMessages } from '../src/delivery/load-delivery-messages.js';
import { renderAlert } from '../src/alerts/render-alert.js';
import { renderSlack } from '../src/alerts/render-slack.js';
import { renderWebhook } from '../src/alerts/render-webhook.js';
import { recordObservation } from '../src/changes/record-observation.js';
import { loadConfig } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';
import type { DatabaseHandle } from '../src/db/client.js';
import { deliveries } from '../src/db/schema.js';
import type { RawTool } from '../src/listings/canonical.js';
import { createLogger } from '../src/log.js';
import { insertServer } from '../src/registry/servers-repo.js';
import { openBench } from './throwaway-database.js';
import { benchBackends } from './watch-monitor.js';
import { listed, relaxed } from '../test/support/probe-results.js';

const COUNT = Number(process.env.BENCH_ALERTS_COUNT ?? 1000);
/** Changes per server: alerts spread over servers as a real backlog would be. */
const CHANGES_PER_SERVER = 10;
const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));

/** An SMTP server that accepts and discards: the bench measures the sender, not parsing. */
async function sink(): Promise<{
  port: number;
  received: () => number;
  close: () => Promise<void>;
}> {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.server.address() as AddressInfo).port,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A receiver that answers 200 and discards the body, counting what it got. */
async function httpSink(): Promise<{
  url: (path: string) => string;
  received: () => number;
  close: () => Promise<void>;
}> {
  let received = 0;
  const server = createServer((request, response) => {
    request.on('data', () => {});
    request.on('end', () => {
      received++;
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Queues COUNT critical alerts the way the service does: by recording changes. */
async function queueAlerts(handle: DatabaseHandle, config: Config): Promise<void> {
  const policy = alertPolicyOf(config);
  const listings = [relaxed(memory, 'delete_entities'), relaxed(memory, 'delete_observations')];
  const servers = Math.ceil(COUNT / CHANGES_PER_SERVER);
  let queued = 0;
  for (let index = 0; index < servers && queued < COUNT; index++) {
    const server = await insertServer(handle.db, {
      name: `bench-${index}`,
      transport: 'http',
      command: null,
      args: [],
      env: {},
      cwd: null,
      url: `http://127.0.0.1:9/${index}`,
      headers: {},
      trust: 'trusted',
      schedule: null,
      notify: [],
      slackUrl: null,
      webhookUrl: null,
      hold: false,
      alertMinSeverity: null,
    });
    for (let change = 0; change <= CHANGES_PER_SERVER && queued < COUNT; change++) {
      const recorded = await recordObservation(handle.db, {
        server,
        result: listed(listings[change % 2]!),
        trigger: 'poll',
        startedAt: new Date(),
        alerts: policy,
      });
      if (recorded.change?.alert) queued++;
    }
  }
}

async function delivered(handle: DatabaseHandle, channel: ChannelName): Promise<number> {
  const [row] = await handle.db
    .select({ done: count() })
    .from(deliveries)
    .where(and(eq(deliveries.channel, channel), eq(deliveries.status, 'delivered')));
  return row!.done;
}

/** One channel's dispatcher alone, until every delivery of that channel is recorded delivered. */
async function dispatcherRun(
  handle: DatabaseHandle,
  config: Config,
  channel: ChannelName,
): Promise<number> {
  const logger = createLogger('silent');
  const dispatcher = new ChannelDispatcher({
    db: handle.db,
    channel: createChannels(config, logger)[channel],
    logger,
    options: {
      ...DEFAULT_DISPATCHER_OPTIONS,
      maxAttempts: 3,
      retryBaseMs: 1000,
      leaseSeconds: config.ALERT_CLAIM_SECONDS,
    },
  });
  const started = performance.now();
  dispatcher.start();
  for (;;) {
    const done = await delivered(handle, channel);
    if (done >= COUNT) break;
    if (performance.now() - started > 600_000)
      throw new Error(`only ${done} of ${COUNT} ${channel} deliveries`);
    await sleep(50);
  }
  const ms = performance.now() - started;
  await dispatcher.stop();
  return ms;
}

/** The channel's deliveries rendered again, outside the timed part, for the bare client. */
async function renderedAgain(handle: DatabaseHandle, channel: ChannelName) {
  await handle.db.execute(
    sql`update deliveries set status = 'pending', next_attempt_at = now() where channel = ${channel}`,
  );
  // (That channel's dispatcher run is over, so these rows are not claimed by anyone else.)
  const heads = await claimDueDeliveries(handle.db, { channel, limit: COUNT, leaseSeconds: 600 });
  return loadDeliveryMessages(handle.db, heads);
}

async function inBatches<T>(items: T[], send: (item: T) => Promise<unknown>): Promise<void> {
  const batch = DEFAULT_DISPATCHER_OPTIONS.batchSize;
  for (let index = 0; index < items.length; index += batch) {
    await Promise.all(items.slice(index, index + batch).map(send));
  }
}

/** Floor for email: the same messages through a bare nodemailer pool, no database. */
async function bareEmail(handle: DatabaseHandle, port: number): Promise<number> {
  const messages = (await renderedAgain(handle, 'email')).map((message) => ({
    messageId: messageIdOf(message.head.key),
    to: [message.head.destination],
    ...renderAlert({
      server: { name: message.server.name, trust: message.server.trust },
      alertId: message.head.alertId,
      changes: message.changes,
    }),
  }));
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: 5,
    host: '127.0.0.1',
    port,
    secure: false,
  });
  const started = performance.now();
  await inBatches(messages, (message) =>
    transport.sendMail({ from: 'bench@example.org', ...message }),
  );
  const ms = performance.now() - started;
  transport.close();
  return ms;
}

/** Floor for Slack and the webhook: the same bodies POSTed with bare fetch, no database. */
async function bareFetch(handle: DatabaseHandle, channel: 'slack' | 'webhook'): Promise<number> {
  const requests = (await renderedAgain(handle, channel)).map((message) => {
    const input = {
      server: { name: message.server.name, trust: message.server.trust },
      alertId: message.head.alertId,
      changes: message.changes,
    };
    const body = JSON.stringify(
      channel === 'slack'
        ? renderSlack(input)
        : renderWebhook({ ...input, delivery: message.head.key }),
    );
    return { url: message.head.destination, body };
  });
  const started = performance.now();
  await inBatches(requests, async ({ url, body }) => {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  });
  return performance.now() - started;
}

export async function runAlertsBench(): Promise<void> {
  const backends = await benchBackends(process.env.BENCH_ALERTS_DB);
  console.log(
    `${COUNT} critical alerts queued, each with an email, a Slack and a webhook delivery; each channel drained alone (batches of ${DEFAULT_DISPATCHER_OPTIONS.batchSize}; SMTP pool of 5); load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  for (const backend of backends) {
    const { handle, drop } = await openBench(backend, 'alerts');
    const smtp = await sink();
    const http = await httpSink();
    try {
      const config = loadConfig({
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        ALERT_TO: 'ops@example.org',
        ALERT_FROM: 'bench@example.org',
        SLACK_WEBHOOK_URL: http.url('/slack'),
        WEBHOOK_URL: http.url('/hook'),
        WEBHOOK_SECRET: 'bench-secret-0123456789abcdef',
        DIGEST_SECONDS: '0',
      });
      const queueStarted = performance.now();
      await queueAlerts(handle, config);
      const queueMs = performance.now() - queueStarted;
      console.log(
        `\n${backend}: recording ${COUNT} changes with their alerts and ${COUNT * 3} deliveries took ${(queueMs / 1000).toFixed(1)} s (not timed below)`,
      );
      console.log(
        '  channel   dispatcher deliveries/s   bare client deliveries/s   ratio dispatcher/bare',
      );
      const rate = (ms: number) => (COUNT / ms) * 1000;
      for (const channel of ['email', 'slack', 'webhook'] as const) {
        const dispatcherMs = await dispatcherRun(handle, config, channel);
        const bareMs =
          channel === 'email'
            ? await bareEmail(handle, smtp.port)
            : await bareFetch(handle, channel);
        const bare = channel === 'email' ? 'nodemailer' : 'fetch';
        console.log(
          `  ${channel.padEnd(8)}  ${rate(dispatcherMs).toFixed(0).padStart(23)}   ${`${rate(bareMs).toFixed(0)} (${bare})`.padStart(24)}   ${(rate(dispatcherMs) / rate(bareMs)).toFixed(2).padStart(21)}`,
        );
      }
      console.log(
        `  received: ${smtp.received()} emails by the SMTP server, ${http.received()} requests by the HTTP receiver (${COUNT} per channel per run, two runs)`,
      );
    } finally {
      await http.close();
      await smtp.close();
      await handle.close();
      await drop();
    }
  }
}
