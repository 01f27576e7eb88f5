import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, isNull, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { alerts, deliveries, servers, type AlertRow, type DeliveryRow } from '../db/schema.js';
import { DriftError } from '../errors.js';
import type { AlertDecision, Destination } from './alert-policy.js';

export type { AlertRow, DeliveryRow };

/**
 * An alert's status is derived from its deliveries: `undeliverable` when it has none
 * (nobody to tell when it was queued), `pending` while any is, `failed` when any failed
 * for good, `sent` when every one was delivered; `acknowledged` above all of these.
 */
export const ALERT_STATUSES = [
  'pending',
  'sent',
  'failed',
  'undeliverable',
  'acknowledged',
] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

const deliveryExists = (status?: DeliveryRow['status']) =>
  status === undefined
    ? sql`exists (select 1 from ${deliveries} where ${deliveries.alertId} = ${alerts.id})`
    : // A literal, not a parameter: the expression must read the same in GROUP BY.
      sql`exists (select 1 from ${deliveries} where ${deliveries.alertId} = ${alerts.id} and ${deliveries.status} = ${sql.raw(`'${status}'`)})`;

/** The one definition of an alert's status, for listing, filtering and metrics alike. */
export const alertStatus = sql<AlertStatus>`case
  when ${alerts.acknowledgedAt} is not null then 'acknowledged'
  when not ${deliveryExists()} then 'undeliverable'
  when ${deliveryExists('pending')} then 'pending'
  when ${deliveryExists('failed')} then 'failed'
  else 'sent' end`;

export interface QueuedAlert {
  alert: AlertRow;
  deliveries: DeliveryRow[];
}

/**
 * Puts a change's alert and its deliveries in the outbox; the caller runs this in the
 * change's own transaction, so a change is never recorded without its alert (docs/design.md §9).
 *
 * Digests, per channel and destination: a server's first delivery to a destination waits
 * out the digest window; a delivery arriving while such a first one is still unsent joins
 * it (`digest_of`), and they go out as one message. The `for update` lock on the first
 * deliveries orders this against the dispatcher claiming them: once claimed (attempts > 0)
 * nothing more joins, so nothing joins a message that has already been rendered.
 */
export async function enqueueAlert(
  tx: Database,
  input: AlertDecision & { serverId: number; changeId: number; digestSeconds: number },
): Promise<QueuedAlert> {
  const [alert] = await tx
    .insert(alerts)
    .values({ serverId: input.serverId, changeId: input.changeId, severity: input.severity })
    .returning();
  if (input.destinations.length === 0) return { alert: alert!, deliveries: [] };
  const heads = input.digestSeconds > 0 ? await openDigests(tx, input.serverId) : new Map();
  const rows = await tx
    .insert(deliveries)
    .values(
      input.destinations.map((target) => {
        const head = heads.get(destinationKey(target));
        return {
          alertId: alert!.id,
          serverId: input.serverId,
          channel: target.channel,
          destination: target.destination,
          key: randomUUID(),
          digestOf: head ?? null,
          nextAttemptAt:
            head !== undefined
              ? sql`now()`
              : sql`now() + make_interval(secs => ${input.digestSeconds})`,
        };
      }),
    )
    .returning();
  return { alert: alert!, deliveries: rows };
}

const destinationKey = (target: Destination) => `${target.channel} ${target.destination}`;

/** The server's first deliveries still waiting out their digest window, by destination. */
async function openDigests(tx: Database, serverId: number): Promise<Map<string, number>> {
  const rows = await tx
    .select({
      id: deliveries.id,
      channel: deliveries.channel,
      destination: deliveries.destination,
    })
    .from(deliveries)
    .where(
      and(
        eq(deliveries.serverId, serverId),
        eq(deliveries.status, 'pending'),
        isNull(deliveries.digestOf),
        eq(deliveries.attempts, 0),
        sql`${deliveries.nextAttemptAt} > now()`,
      ),
    )
    .orderBy(deliveries.id)
    .for('update');
  // Ordered by id, so the latest open digest of a destination wins.
  return new Map(rows.map((row) => [destinationKey(row), row.id]));
}

/** These alerts, in no particular order; unknown ids are skipped. */
export async function alertsWithIds(db: Database, ids: readonly number[]): Promise<AlertRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(alerts)
    .where(inArray(alerts.id, [...new Set(ids)]));
}

/** How many of the server's alerts await an acknowledgement (a correlated subquery; see listings-repo). */
export function unacknowledgedAlertCount(serverId: SQL): SQL<number> {
  return sql<number>`(select count(*)::int from ${alerts}
    where ${alerts.serverId} = ${serverId} and ${alerts.acknowledgedAt} is null)`;
}

export interface AlertSummary extends AlertRow {
  server: string;
  status: AlertStatus;
  deliveries: DeliveryRow[];
}

/** The outbox, newest first, each alert with its deliveries (oldest first). */
export async function listAlerts(
  db: Database,
  options: {
    status?: AlertStatus;
    limit: number;
    ids?: number[];
    before?: number;
    serverId?: number;
    severities?: readonly AlertRow['severity'][];
    changeId?: number;
  },
): Promise<AlertSummary[]> {
  const rows = await db
    .select({ alert: alerts, server: servers.name, status: alertStatus })
    .from(alerts)
    .innerJoin(servers, eq(servers.id, alerts.serverId))
    .where(
      and(
        options.status ? sql`${alertStatus} = ${options.status}` : undefined,
        options.ids ? inArray(alerts.id, options.ids) : undefined,
        options.before === undefined ? undefined : lt(alerts.id, options.before),
        options.serverId === undefined ? undefined : eq(alerts.serverId, options.serverId),
        options.severities ? inArray(alerts.severity, [...options.severities]) : undefined,
        options.changeId === undefined ? undefined : eq(alerts.changeId, options.changeId),
      ),
    )
    .orderBy(desc(alerts.id))
    .limit(options.limit);
  if (rows.length === 0) return [];
  const deliveryRows = await db
    .select()
    .from(deliveries)
    .where(
      inArray(
        deliveries.alertId,
        rows.map((row) => row.alert.id),
      ),
    )
    .orderBy(deliveries.id);
  return rows.map((row) => ({
    ...row.alert,
    server: row.server,
    status: row.status,
    deliveries: deliveryRows.filter((delivery) => delivery.alertId === row.alert.id),
  }));
}

export async function getAlert(db: Database, id: number): Promise<AlertSummary> {
  const [alert] = await listAlerts(db, { ids: [id], limit: 1 });
  if (!alert) {
    throw new DriftError(
      'NOT_FOUND',
      `no alert with id ${id}; \`mcp-drift alerts list\` lists them`,
    );
  }
  return alert;
}

/**
 * Marks an alert as seen by an operator; what was not delivered yet will not be (its
 * pending deliveries are cancelled). Acknowledging an alert whose deliveries carry a
 * digest acknowledges the alerts that joined those messages too.
 * Returns the alerts acknowledged now (none when they already were).
 */
export async function acknowledgeAlert(db: Database, id: number): Promise<AlertRow[]> {
  await getAlert(db, id);
  return db.transaction(async (tx) => {
    const members = await tx
      .selectDistinct({ alertId: deliveries.alertId })
      .from(deliveries)
      .where(
        inArray(
          deliveries.digestOf,
          tx.select({ id: deliveries.id }).from(deliveries).where(eq(deliveries.alertId, id)),
        ),
      );
    const ids = [id, ...members.map((row) => row.alertId)];
    const acknowledged = await tx
      .update(alerts)
      .set({ acknowledgedAt: sql`now()` })
      .where(and(inArray(alerts.id, ids), isNull(alerts.acknowledgedAt)))
      .returning();
    if (acknowledged.length > 0) {
      await tx
        .update(deliveries)
        .set({ status: 'cancelled' })
        .where(
          and(
            inArray(
              deliveries.alertId,
              acknowledged.map((row) => row.id),
            ),
            eq(deliveries.status, 'pending'),
          ),
        );
    }
    return acknowledged.sort((a, b) => a.id - b.id);
  });
}

/**
 * A value that moves whenever an alert is queued or acknowledged (the console's live updates poll it; see
 * src/console/live-feed.ts).
 */
export const alertsVersion = sql<string>`(select concat_ws(':', max(${alerts.id}), count(${alerts.acknowledgedAt})) from ${alerts})`;

/** How many alerts the server has had. */
export async function countAlerts(db: Database, serverId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(alerts)
    .where(eq(alerts.serverId, serverId));
  return Number(row?.n ?? 0);
}

/**
 * The server's unacknowledged alerts, oldest first: all of them, or those of changes up to
 * this one (ids at or below it: a change's id orders it in its server's chain).
 */
export async function openAlertsUpTo(
  db: Database,
  serverId: number,
  changeId?: number,
): Promise<number[]> {
  const rows = await db
    .select({ id: alerts.id })
    .from(alerts)
    .where(
      and(
        eq(alerts.serverId, serverId),
        isNull(alerts.acknowledgedAt),
        changeId === undefined ? undefined : lte(alerts.changeId, changeId),
      ),
    )
    .orderBy(asc(alerts.id));
  return rows.map((row) => row.id);
}
