import { isDeepStrictEqual } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  alerts,
  deliveries,
  changes,
  heldSessions,
  listings,
  observationCounts,
  observations,
  outages,
  serverConfigProblems,
  servers,
} from '../../src/db/schema.js';
import { countAttempts } from '../../src/listings/observation-counts-repo.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  closedLoopbackPort,
  controlFixture,
  startHttpFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { get, httpUrlOf, parseMetrics, waitFor, type Sample } from './ops-support.js';

/*
 * Acceptance 3 of the operations issue: what `/metrics` of a running serve reports matches
 * what its database holds. The database is filled by serve watching real fixture servers
 * (held sessions, a change, an outage), by `check`, and by rows written here for the figures
 * the watchers would take long to produce (old listings, slow probes, alert states). The
 * expected figures are computed here in JavaScript from the raw rows, not with the
 * endpoint's SQL.
 */

let database: TestDatabase;
let serve: RunningServe;
let handle: DatabaseHandle;
const fixtures: HttpFixture[] = [];
const YEARLY = '0 0 1 1 *';
const BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const cli = async (...args: string[]) => {
  const result = await runCli(args, { env: database.env, cwd: database.dir });
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result;
};
const serveLog = () => serve?.log() ?? '';

beforeAll(async () => {
  database = await createTestDatabase();
  serve = await startServe({ env: database.env, cwd: database.dir });
  handle = await database.open();
});
afterAll(async () => {
  await handle?.close();
  await serve?.stop();
  await Promise.all(fixtures.map((fixture) => fixture.stop()));
  await database?.drop();
});

async function serverId(name: string): Promise<number> {
  const [row] = await handle.db
    .select({ id: servers.id })
    .from(servers)
    .where(eq(servers.name, name));
  return row!.id;
}

const key = (name: string, labels: Record<string, string | number>) =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((label) => `${label}="${labels[label]}"`)
    .join(',')}}`;

interface Figures {
  /** Every figure except the time-dependent ones and the float sums, by sample key. */
  exact: Record<string, number>;
  sums: Record<string, number>;
  /** Seconds since each enabled server's latest ok listing, at the database's now(). */
  since: Record<string, number>;
}

/** The figures /metrics should show, computed from the raw rows. */
async function figuresInDatabase(workerId: string): Promise<Figures> {
  const db = handle.db;
  const [clock] = await db
    .select({ nowMs: sql<number>`extract(epoch from now())::float8 * 1000` })
    .from(sql`(select 1) as one`);
  const serverRows = await db.select().from(servers);
  const openOutages = new Set(
    (await db.select().from(outages))
      .filter((outage) => outage.upAt === null)
      .map((outage) => outage.serverId),
  );
  const held = await db.select().from(heldSessions);
  const misconfigured = new Set(
    (await db.select().from(serverConfigProblems)).map((problem) => problem.serverId),
  );
  // One snapshot: serve may record an attempt between two reads.
  const [observationRows, countRows] = await db.transaction(
    async (tx) =>
      [await tx.select().from(observations), await tx.select().from(observationCounts)] as const,
    { isolationLevel: 'repeatable read' },
  );
  const changeRows = await db.select().from(changes);
  const alertRows = await db.select().from(alerts);
  const deliveryRows = await db.select().from(deliveries);

  const exact: Record<string, number> = {};
  const sums: Record<string, number> = {};
  const enabled = serverRows.filter((server) => server.enabled);
  exact[key('mcp_drift_servers', { state: 'enabled' })] = enabled.length;
  exact[key('mcp_drift_servers', { state: 'disabled' })] = serverRows.length - enabled.length;
  exact[key('mcp_drift_servers', { state: 'down' })] = enabled.filter((server) =>
    openOutages.has(server.id),
  ).length;
  exact[key('mcp_drift_servers', { state: 'misconfigured' })] = enabled.filter((server) =>
    misconfigured.has(server.id),
  ).length;
  const connected = held.filter((session) => !openOutages.has(session.serverId));
  exact[key('mcp_drift_held_sessions_connected', { scope: 'all' })] = connected.length;
  exact[key('mcp_drift_held_sessions_connected', { scope: 'worker' })] = connected.filter(
    (session) => session.workerId === workerId,
  ).length;
  // Attempts are counted as they are written (observation_counts), and folded into runs
  // (observations.count): the two must agree, and /metrics reports the counters.
  for (const outcome of ['ok', 'error']) {
    const counted = countRows
      .filter((row) => row.outcome === outcome)
      .reduce((total, row) => total + Number(row.count), 0);
    const inRuns = observationRows
      .filter((row) => row.outcome === outcome)
      .reduce((total, row) => total + row.count, 0);
    expect(counted, `${outcome} attempts counted and in runs`).toBe(inRuns);
    exact[key('mcp_drift_observations', { outcome })] = counted;
  }
  for (const severity of ['critical', 'high', 'medium', 'low', 'info', 'none']) {
    exact[key('mcp_drift_changes', { severity })] = changeRows.filter(
      (row) => row.severity === severity,
    ).length;
  }
  // An alert's status follows from its deliveries (src/alerts/alerts-repo.ts, alertStatus).
  const statusOf = (alert: (typeof alertRows)[number]) => {
    const own = deliveryRows.filter((row) => row.alertId === alert.id);
    if (alert.acknowledgedAt !== null) return 'acknowledged';
    if (own.length === 0) return 'undeliverable';
    if (own.some((row) => row.status === 'pending')) return 'pending';
    if (own.some((row) => row.status === 'failed')) return 'failed';
    return 'sent';
  };
  for (const status of ['pending', 'sent', 'failed', 'undeliverable', 'acknowledged']) {
    exact[key('mcp_drift_alerts', { status })] = alertRows.filter(
      (row) => statusOf(row) === status,
    ).length;
  }
  for (const channel of ['email', 'slack', 'webhook']) {
    for (const status of ['pending', 'delivered', 'failed', 'cancelled']) {
      exact[key('mcp_drift_alert_deliveries', { channel, status })] = deliveryRows.filter(
        (row) => row.channel === channel && row.status === status,
      ).length;
    }
  }
  for (const trigger of ['poll', 'notification', 'startup', 'manual']) {
    // A counter's bucket is the index of the first bound at or above its durations.
    const own = countRows.filter((row) => row.trigger === trigger);
    const total = own.reduce((sum, row) => sum + Number(row.count), 0);
    const name = 'mcp_drift_probe_duration_seconds';
    BUCKETS_SECONDS.forEach((le, index) => {
      exact[key(`${name}_bucket`, { trigger, le })] = own
        .filter((row) => row.bucket <= index)
        .reduce((sum, row) => sum + Number(row.count), 0);
    });
    exact[key(`${name}_bucket`, { trigger, le: '+Inf' })] = total;
    exact[key(`${name}_count`, { trigger })] = total;
    sums[key(`${name}_sum`, { trigger })] =
      own.reduce((sum, row) => sum + Number(row.sumMs), 0) / 1000;
  }
  const since: Record<string, number> = {};
  for (const server of enabled) {
    const latest = Math.max(
      ...observationRows
        .filter((row) => row.serverId === server.id && row.outcome === 'ok')
        .map((row) => row.lastSeenAt.getTime()),
    );
    if (Number.isFinite(latest)) since[server.name] = (clock!.nowMs - latest) / 1000;
  }
  return { exact, sums, since };
}

function scraped(samples: Sample[]): Figures {
  const figures: Figures = { exact: {}, sums: {}, since: {} };
  for (const sample of samples) {
    if (sample.name === 'mcp_drift_seconds_since_last_listing') {
      figures.since[sample.labels.server!] = sample.value;
    } else if (sample.name.endsWith('_sum') && sample.name.startsWith('mcp_drift_')) {
      figures.sums[key(sample.name, sample.labels)] = sample.value;
    } else if (sample.name.startsWith('mcp_drift_')) {
      figures.exact[key(sample.name, sample.labels)] = sample.value;
    }
  }
  return figures;
}

describe(`/metrics of a running serve (${backend})`, () => {
  it('reports what the database holds', async () => {
    const url = httpUrlOf(serve);
    const workerId = (
      JSON.parse(
        serveLog()
          .split('\n')
          .find((line) => line.includes('mcp-drift serving'))!,
      ) as {
        worker: string;
      }
    ).worker;

    const steady = await startHttpFixture('sdk1-server.mjs');
    const changing = await startHttpFixture('sdk1-server.mjs');
    fixtures.push(steady, changing);
    const deadPort = await closedLoopbackPort();
    await cli('server', 'add', 'steady', '--url', `${steady.baseUrl}/mcp`, '--schedule', YEARLY);
    await cli(
      'server',
      'add',
      'changing',
      '--url',
      `${changing.baseUrl}/mcp`,
      '--schedule',
      YEARLY,
    );
    await cli(
      'server',
      'add',
      'gone',
      '--url',
      `http://127.0.0.1:${deadPort}/mcp`,
      '--schedule',
      YEARLY,
    );
    await cli(
      'server',
      'add',
      'parked',
      '--url',
      `http://127.0.0.1:${deadPort}/mcp`,
      '--schedule',
      YEARLY,
    );
    await cli('server', 'disable', 'parked');
    // A variable serve does not have: misconfigured, neither watched nor down.
    await cli(
      'server',
      'add',
      'unset',
      '--url',
      `${steady.baseUrl}/mcp`,
      '--header',
      'X-Token=${MCP_DRIFT_METRICS_TEST_UNSET}',
      '--schedule',
      YEARLY,
    );
    const ids = {
      steady: await serverId('steady'),
      changing: await serverId('changing'),
      gone: await serverId('gone'),
      parked: await serverId('parked'),
    };

    await waitFor(
      'both held sessions to list, and the dead server to be down',
      async () => {
        const sessions = await handle.db.select().from(heldSessions);
        const down = await handle.db.select().from(outages).where(eq(outages.serverId, ids.gone));
        const listed = sessions.filter((row) => row.listingHash !== null).length;
        const problems = await handle.db.select().from(serverConfigProblems);
        return listed === 2 && down.some((row) => row.upAt === null) && problems.length === 1
          ? true
          : undefined;
      },
      { context: serveLog },
    );
    await controlFixture(changing.baseUrl, { relax: true, notify: true });
    const change = await waitFor(
      'the announced change to be recorded',
      async () =>
        (await handle.db.select().from(changes).where(eq(changes.serverId, ids.changing)))[0],
      { context: serveLog },
    );
    // A manual observation, through the CLI as an operator takes one.
    await cli('check', 'steady');

    // Rows the watchers would take long to produce, on the disabled server nobody watches
    // (and one old listing of the dead server, so it has a time since its last listing).
    // Each row a run of one attempt, counted as recording counts it.
    const listing = change.fromHash!;
    const now = new Date();
    const base = { serverId: ids.parked, startedAt: now, lastSeenAt: now, listingHash: listing };
    const oddRows = [
      { ...base, durationMs: 20, trigger: 'poll', outcome: 'ok' },
      { ...base, durationMs: 50, trigger: 'poll', outcome: 'ok' },
      { ...base, durationMs: 51, trigger: 'poll', outcome: 'ok' },
      { ...base, durationMs: 2_500, trigger: 'manual', outcome: 'ok' },
      {
        ...base,
        durationMs: 61_000,
        trigger: 'poll',
        listingHash: null,
        outcome: 'error',
        errorMessage: 'timed out',
      },
      { ...base, durationMs: 45_000, trigger: 'notification', outcome: 'ok' },
    ] as const;
    const odd = await handle.db
      .insert(observations)
      .values([...oddRows])
      .returning({ id: observations.id });
    const hourAgo = new Date(Date.now() - 3_600_000);
    const gone = {
      serverId: ids.gone,
      startedAt: hourAgo,
      lastSeenAt: hourAgo,
      durationMs: 400,
      trigger: 'startup',
      outcome: 'ok',
      listingHash: listing,
    } as const;
    await handle.db.insert(observations).values(gone);
    await countAttempts(handle.db, [...oddRows, gone]);
    const [first] = await handle.db
      .insert(changes)
      .values({
        serverId: ids.parked,
        fromHash: listing,
        toHash: change.toHash,
        observationId: odd[0]!.id,
        severity: 'medium',
      })
      .returning();
    const [second] = await handle.db
      .insert(changes)
      .values({
        serverId: ids.parked,
        previousChangeId: first!.id,
        fromHash: change.toHash,
        toHash: listing,
        observationId: odd[1]!.id,
        severity: 'low',
      })
      .returning();
    const [failedAlert] = await handle.db
      .insert(alerts)
      .values([
        { serverId: ids.parked, changeId: first!.id, severity: 'medium' },
        {
          serverId: ids.parked,
          changeId: second!.id,
          severity: 'low',
          acknowledgedAt: new Date(),
        },
      ])
      .returning();
    await handle.db.insert(deliveries).values({
      alertId: failedAlert!.id,
      serverId: ids.parked,
      channel: 'slack',
      destination: 'https://hooks.example.org/services/x',
      status: 'failed',
      key: `k-${failedAlert!.id}`,
    });
    expect(await handle.db.select().from(listings).where(eq(listings.hash, listing))).toHaveLength(
      1,
    );

    // serve keeps writing (heartbeats, and possibly alert deliveries): compare a scrape only
    // with figures that were the same just before and just after it.
    const { before, metrics, after } = await waitFor(
      'a scrape taken while the figures stood still',
      async () => {
        const before = await figuresInDatabase(workerId);
        const answer = await get(`${url}/metrics`);
        expect(answer.status).toBe(200);
        const after = await figuresInDatabase(workerId);
        const still =
          isDeepStrictEqual(before.exact, after.exact) &&
          isDeepStrictEqual(before.sums, after.sums);
        return still ? { before, metrics: scraped(parseMetrics(answer.body)), after } : undefined;
      },
      { context: serveLog },
    );

    expect(metrics.exact).toEqual(before.exact);
    expect(Object.keys(metrics.sums).sort()).toEqual(Object.keys(before.sums).sort());
    for (const [name, value] of Object.entries(before.sums))
      expect(metrics.sums[name], name).toBeCloseTo(value, 6);
    expect(Object.keys(metrics.since).sort()).toEqual(Object.keys(before.since).sort());
    for (const [server, value] of Object.entries(metrics.since)) {
      // Read at the database's now() between the two readings (timestamps in ms here, µs there).
      expect(value, server).toBeGreaterThanOrEqual(before.since[server]! - 0.001);
      expect(value, server).toBeLessThanOrEqual(after.since[server]! + 0.001);
    }

    // The database holds what the test put there, so the comparison above is not vacuous.
    expect(before.exact).toMatchObject({
      [key('mcp_drift_servers', { state: 'enabled' })]: 4,
      [key('mcp_drift_servers', { state: 'disabled' })]: 1,
      [key('mcp_drift_servers', { state: 'down' })]: 1,
      [key('mcp_drift_servers', { state: 'misconfigured' })]: 1,
      [key('mcp_drift_held_sessions_connected', { scope: 'worker' })]: 2,
      [key('mcp_drift_held_sessions_connected', { scope: 'all' })]: 2,
      [key('mcp_drift_changes', { severity: 'medium' })]: 1,
      [key('mcp_drift_changes', { severity: 'low' })]: 1,
      [key('mcp_drift_alerts', { status: 'failed' })]: 1,
      [key('mcp_drift_alerts', { status: 'acknowledged' })]: 1,
      [key('mcp_drift_probe_duration_seconds_bucket', { trigger: 'poll', le: 0.05 })]: 2,
      [key('mcp_drift_probe_duration_seconds_bucket', { trigger: 'poll', le: 60 })]: 3,
      [key('mcp_drift_probe_duration_seconds_bucket', { trigger: 'poll', le: '+Inf' })]: 4,
    });
    expect(before.exact[key('mcp_drift_changes', { severity: 'critical' })]).toBeGreaterThanOrEqual(
      1,
    );
    expect(before.since.gone).toBeGreaterThan(3_600);
    expect(Object.keys(before.since).sort()).toEqual(['changing', 'gone', 'steady']);
  });
});
