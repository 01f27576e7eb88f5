// The alert dispatcher's throughput (issue 5, acceptance 6): 1,000 alerts queued in the
// outbox, drained by the real dispatcher to an SMTP server on loopback (the smtp-server
// package, in this process). Run alone with `npm run bench -- alerts`.
//
// Printed side by side with its floor: bare nodemailer sending the same 1,000 rendered
// messages through the same pool, with no database. The gap is the outbox's own cost
// (claiming, loading, rendering, recording each outcome).
//
// Settings (environment): BENCH_ALERTS_DB=pglite|postgres|both (default: both when
// PostgreSQL answers at 127.0.0.1:5432, else pglite), BENCH_ALERTS_COUNT (1000).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { count, eq, sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import type { AlertPolicy } from '../src/alerts/alert-policy.js';
import { AlertDispatcher, DEFAULT_DISPATCHER_OPTIONS } from '../src/alerts/dispatcher.js';
import { loadAlertMessages } from '../src/alerts/load-alert-messages.js';
import { claimDueAlerts } from '../src/alerts/alerts-repo.js';
import { renderAlert } from '../src/alerts/render-alert.js';
import { createSmtpSender } from '../src/alerts/smtp-sender.js';
import { recordObservation } from '../src/changes/record-observation.js';
import type { DatabaseHandle } from '../src/db/client.js';
import { alerts } from '../src/db/schema.js';
import type { RawTool } from '../src/listings/canonical.js';
import { createLogger } from '../src/log.js';
import { insertServer } from '../src/registry/servers-repo.js';
import { openBench } from './throwaway-database.js';
import { postgresReachable, type Backend } from './watch-monitor.js';
import { listed, relaxed } from '../test/support/probe-results.js';

const COUNT = Number(process.env.BENCH_ALERTS_COUNT ?? 1000);
/** Changes per server: alerts spread over servers as a real backlog would be. */
const CHANGES_PER_SERVER = 10;
const policy: AlertPolicy = {
  minSeverity: 'medium',
  recipients: ['ops@example.org'],
  digestSeconds: 0,
};
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

/** Queues COUNT critical alerts the way the service does: by recording changes. */
async function queueAlerts(handle: DatabaseHandle): Promise<void> {
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

async function dispatcherRun(handle: DatabaseHandle, port: number): Promise<number> {
  const dispatcher = new AlertDispatcher({
    db: handle.db,
    sender: createSmtpSender(`smtp://127.0.0.1:${port}`),
    logger: createLogger('silent'),
    options: {
      ...DEFAULT_DISPATCHER_OPTIONS,
      from: 'bench@example.org',
      maxAttempts: 3,
      retryBaseMs: 1000,
    },
  });
  const started = performance.now();
  dispatcher.start();
  // Done when every alert is recorded as sent, which follows the SMTP server's acceptance.
  for (;;) {
    const [row] = await handle.db
      .select({ sent: count() })
      .from(alerts)
      .where(eq(alerts.status, 'sent'));
    if (row!.sent >= COUNT) break;
    if (performance.now() - started > 600_000)
      throw new Error(`only ${row!.sent} of ${COUNT} sent`);
    await sleep(50);
  }
  const ms = performance.now() - started;
  await dispatcher.stop();
  return ms;
}

/** The floor: the same messages, rendered beforehand, through a bare nodemailer pool. */
async function bareRun(handle: DatabaseHandle, port: number): Promise<number> {
  // Render the messages of the (already sent) alerts again, outside the timed part.
  await handle.db.execute(sql`update alerts set status = 'pending', next_attempt_at = now()`);
  // (The dispatcher run above is over, so these rows are not claimed by anyone else.)
  const heads = await claimDueAlerts(handle.db, { limit: COUNT, leaseSeconds: 600 });
  const messages = (await loadAlertMessages(handle.db, heads)).map((parts) => ({
    messageId: parts.head.messageId,
    to: parts.recipients,
    ...renderAlert({
      server: { name: parts.server.name, trust: parts.server.trust },
      alertId: parts.head.id,
      changes: parts.changes,
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
  const batch = DEFAULT_DISPATCHER_OPTIONS.batchSize;
  for (let index = 0; index < messages.length; index += batch) {
    await Promise.all(
      messages
        .slice(index, index + batch)
        .map((message) => transport.sendMail({ from: 'bench@example.org', ...message })),
    );
  }
  const ms = performance.now() - started;
  transport.close();
  return ms;
}

export async function runAlertsBench(): Promise<void> {
  const setting = process.env.BENCH_ALERTS_DB;
  const backends: Backend[] =
    setting === 'pglite' || setting === 'postgres'
      ? [setting]
      : (await postgresReachable())
        ? ['pglite', 'postgres']
        : ['pglite'];
  console.log(
    `${COUNT} critical alerts queued, drained to smtp-server on loopback (pool of 5, batches of ${DEFAULT_DISPATCHER_OPTIONS.batchSize}); load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  for (const backend of backends) {
    const { handle, drop } = await openBench(backend, 'alerts');
    const smtp = await sink();
    try {
      const queueStarted = performance.now();
      await queueAlerts(handle);
      const queueMs = performance.now() - queueStarted;
      const dispatcherMs = await dispatcherRun(handle, smtp.port);
      const bareMs = await bareRun(handle, smtp.port);
      const rate = (ms: number) => ((COUNT / ms) * 1000).toFixed(0);
      console.log(
        `\n${backend}: recording ${COUNT} changes with their alerts took ${(queueMs / 1000).toFixed(1)} s (not timed below)`,
      );
      console.log('  step                                   time      alerts/s');
      console.log(
        `  dispatcher (claim, load, render, send)  ${(dispatcherMs / 1000).toFixed(2).padStart(6)} s  ${rate(dispatcherMs).padStart(8)}`,
      );
      console.log(
        `  floor: bare nodemailer pool, no DB      ${(bareMs / 1000).toFixed(2).padStart(6)} s  ${rate(bareMs).padStart(8)}`,
      );
      console.log(
        `  ratio dispatcher / floor                ${(dispatcherMs / bareMs).toFixed(2).padStart(6)}`,
      );
      console.log(`  messages received by the SMTP server: ${smtp.received()} (${COUNT} each run)`);
    } finally {
      await smtp.close();
      await handle.close();
      await drop();
    }
  }
}
