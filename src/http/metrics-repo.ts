import { eq, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../db/client.js';
import { ALERT_STATUSES as OUTBOX_STATUSES, alertStatus } from '../alerts/alerts-repo.js';
import { countDeliveries } from '../alerts/deliveries-repo.js';
import { CHANNELS, type ChannelName } from '../vocabulary/channels.js';
import {
  alerts,
  changes,
  deliveries,
  heldSessions,
  observations,
  outages,
  serverConfigProblems,
  servers,
} from '../db/schema.js';
import { PROBE_BUCKETS_MS, readObservationCounts } from '../listings/observation-counts-repo.js';

export { PROBE_BUCKETS_MS };

export const TRIGGERS = observations.trigger.enumValues;
export const OUTCOMES = observations.outcome.enumValues;
export const CHANGE_SEVERITIES = changes.severity.enumValues;
export const ALERT_STATUSES = OUTBOX_STATUSES;
export const DELIVERY_STATUSES = deliveries.status.enumValues;

export interface ProbeDurations {
  count: number;
  sumSeconds: number;
  /** Cumulative counts, one per PROBE_BUCKETS_MS bound. */
  buckets: number[];
}

/** What /metrics reports, read from the database in one snapshot. */
export interface MetricsSnapshot {
  servers: { enabled: number; disabled: number; down: number; misconfigured: number };
  heldSessions: { worker: number; all: number };
  probes: Record<(typeof TRIGGERS)[number], ProbeDurations>;
  observations: Record<(typeof OUTCOMES)[number], number>;
  changes: Record<(typeof CHANGE_SEVERITIES)[number], number>;
  alerts: Record<(typeof ALERT_STATUSES)[number], number>;
  deliveries: Record<ChannelName, Record<(typeof DELIVERY_STATUSES)[number], number>>;
  /** Enabled servers with a successful listing: seconds since the latest one started. */
  secondsSinceListing: { server: string; seconds: number }[];
}

/** Counts arrive as float8: count(*) is a bigint, which postgres.js hands over as a string. */
const count = (filter?: SQL) =>
  filter ? sql<number>`(count(*) filter (where ${filter}))::float8` : sql<number>`count(*)::float8`;

/*
 * Correlated subqueries are fragments of their own: drizzle writes the columns at the top
 * level of a single-table select's fields without their table, and `"server_id" = "id"`
 * inside the subquery would compare two columns of the inner table.
 */
const openOutage = (serverId: AnyPgColumn) =>
  sql`exists (select 1 from ${outages} where ${outages.serverId} = ${serverId} and ${outages.upAt} is null)`;

// A registration serve cannot use as it stands: not watched, and no outage either.
const configProblem = (serverId: AnyPgColumn) =>
  sql`exists (select 1 from ${serverConfigProblems} where ${serverConfigProblems.serverId} = ${serverId})`;

// The end of the server's latest ok run: one probe of observations_server_ok.
const latestListing = (serverId: AnyPgColumn) =>
  sql`(select ${observations.lastSeenAt} from ${observations}
    where ${observations.serverId} = ${serverId} and ${observations.outcome} = 'ok'
    order by ${observations.id} desc limit 1)`;

/**
 * Reads every figure in one read-only repeatable-read transaction, so that a scrape is one
 * consistent picture of the database, whichever worker serves it. Figures are read from
 * the tables rather than counted in the process: they then agree with the database and
 * with every other worker, and survive restarts. Nothing here grows with history: attempts
 * come from observation_counts (kept as they are written), the rest from tables that grow
 * with servers and changes, and each server's latest listing is one index probe.
 */
export function readMetricsSnapshot(db: Database, workerId: string): Promise<MetricsSnapshot> {
  return db.transaction(
    async (tx) => {
      const [serverCounts] = await tx
        .select({
          enabled: count(sql`${servers.enabled}`),
          disabled: count(sql`not ${servers.enabled}`),
          down: count(sql`${servers.enabled} and ${openOutage(servers.id)}`),
          misconfigured: count(sql`${servers.enabled} and ${configProblem(servers.id)}`),
        })
        .from(servers);

      // A held server's outage is opened when its session is lost and closed when it is
      // back, so a session row without an open outage is a connected session.
      const [held] = await tx
        .select({ worker: count(eq(heldSessions.workerId, workerId)), all: count() })
        .from(heldSessions)
        .where(sql`not ${openOutage(heldSessions.serverId)}`);

      const countRows = await readObservationCounts(tx);

      const changeRows = await tx
        .select({ severity: changes.severity, count: count() })
        .from(changes)
        .groupBy(changes.severity);
      const alertRows = await tx
        .select({ status: alertStatus, count: count() })
        .from(alerts)
        .groupBy(alertStatus);
      const deliveryRows = await countDeliveries(tx);

      const lastListing = await tx
        .select({
          server: servers.name,
          seconds: sql<
            number | null
          >`extract(epoch from now() - ${latestListing(servers.id)})::float8`,
        })
        .from(servers)
        .where(eq(servers.enabled, true));

      const probes = Object.fromEntries(
        TRIGGERS.map((trigger) => [trigger, { count: 0, sumSeconds: 0, buckets: [] as number[] }]),
      ) as MetricsSnapshot['probes'];
      const observationCounts = zeroes(OUTCOMES);
      for (const row of countRows) {
        const probe = probes[row.trigger];
        const count = Number(row.count);
        probe.count += count;
        probe.sumSeconds += Number(row.sumMs) / 1000;
        // Cumulative: an attempt in bucket b is at or below every bound from b on.
        probe.buckets = PROBE_BUCKETS_MS.map(
          (_, index) => (probe.buckets[index] ?? 0) + (index >= row.bucket ? count : 0),
        );
        observationCounts[row.outcome] += count;
      }
      for (const probe of Object.values(probes)) {
        if (probe.buckets.length === 0) probe.buckets = PROBE_BUCKETS_MS.map(() => 0);
      }

      return {
        servers: serverCounts ?? { enabled: 0, disabled: 0, down: 0, misconfigured: 0 },
        heldSessions: held ?? { worker: 0, all: 0 },
        probes,
        observations: observationCounts,
        changes: tally(CHANGE_SEVERITIES, changeRows, (row) => row.severity),
        alerts: tally(ALERT_STATUSES, alertRows, (row) => row.status),
        deliveries: Object.fromEntries(
          CHANNELS.map((channel) => [
            channel,
            tally(
              DELIVERY_STATUSES,
              deliveryRows.filter((row) => row.channel === channel),
              (row) => row.status,
            ),
          ]),
        ) as MetricsSnapshot['deliveries'],
        secondsSinceListing: lastListing.flatMap((row) =>
          row.seconds === null ? [] : [{ server: row.server, seconds: row.seconds }],
        ),
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

function zeroes<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
}

function tally<K extends string, R extends { count: number }>(
  keys: readonly K[],
  rows: R[],
  keyOf: (row: R) => K,
): Record<K, number> {
  const counts = zeroes(keys);
  for (const row of rows) counts[keyOf(row)] += row.count;
  return counts;
}
