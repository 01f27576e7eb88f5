import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { alerts, servers } from '../db/schema.js';
import { DriftError } from '../errors.js';
import type { AlertDecision } from './alert-policy.js';

export type AlertRow = typeof alerts.$inferSelect;
export type AlertStatus = AlertRow['status'];
export const ALERT_STATUSES: readonly AlertStatus[] = ['pending', 'sent', 'failed', 'acknowledged'];

/**
 * Puts a change's alert in the outbox; the caller runs this in the change's own
 * transaction, so a change is never recorded without its alert (design §9).
 *
 * Digests: the first alert of a server waits out the digest window; an alert arriving
 * while such a first alert is still unsent joins it (`digest_of`), and the two go out as
 * one message. The `for update` lock on that first alert orders this against the
 * dispatcher claiming it: once claimed (attempts > 0) nothing more joins, so no alert
 * can join a message that has already been rendered.
 */
export async function enqueueAlert(
  tx: Database,
  alert: AlertDecision & { serverId: number; changeId: number; digestSeconds: number },
): Promise<AlertRow> {
  const [head] =
    alert.digestSeconds > 0
      ? await tx
          .select({ id: alerts.id })
          .from(alerts)
          .where(
            and(
              eq(alerts.serverId, alert.serverId),
              isNull(alerts.digestOf),
              eq(alerts.status, 'pending'),
              eq(alerts.attempts, 0),
              gt(alerts.nextAttemptAt, sql`now()`),
            ),
          )
          .orderBy(desc(alerts.id))
          .limit(1)
          .for('update')
      : [];
  const [row] = await tx
    .insert(alerts)
    .values({
      serverId: alert.serverId,
      changeId: alert.changeId,
      severity: alert.severity,
      recipients: alert.recipients,
      messageId: `<${randomUUID()}@mcp-drift>`,
      digestOf: head?.id ?? null,
      nextAttemptAt: head ? sql`now()` : sql`now() + make_interval(secs => ${alert.digestSeconds})`,
    })
    .returning();
  return row!;
}

/**
 * Takes up to `limit` alerts that are due, for one dispatcher. Claiming counts an attempt
 * and pushes the alert's next attempt `leaseSeconds` ahead, so that another worker's
 * dispatcher (skipping the rows locked here) resends it only if this one dies before
 * recording the outcome. Digest members are sent with their first alert, never alone.
 */
export async function claimDueAlerts(
  db: Database,
  options: { limit: number; leaseSeconds: number },
): Promise<AlertRow[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: alerts.id })
      .from(alerts)
      .where(
        and(
          eq(alerts.status, 'pending'),
          isNull(alerts.digestOf),
          lte(alerts.nextAttemptAt, sql`now()`),
        ),
      )
      .orderBy(asc(alerts.nextAttemptAt), asc(alerts.id))
      .limit(options.limit)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(alerts)
      .set({
        attempts: sql`${alerts.attempts} + 1`,
        nextAttemptAt: sql`now() + make_interval(secs => ${options.leaseSeconds})`,
      })
      .where(
        inArray(
          alerts.id,
          due.map((row) => row.id),
        ),
      )
      .returning();
  });
}

/** The alerts that joined these first alerts' digests, oldest first. */
export async function digestMembers(db: Database, headIds: number[]): Promise<AlertRow[]> {
  if (headIds.length === 0) return [];
  return db
    .select()
    .from(alerts)
    .where(and(inArray(alerts.digestOf, headIds), eq(alerts.status, 'pending')))
    .orderBy(asc(alerts.id));
}

/** An alert and the members of its digest: the rows one message stands for. */
const messageRows = (headId: number) =>
  and(or(eq(alerts.id, headId), eq(alerts.digestOf, headId)), eq(alerts.status, 'pending'));

export async function markSent(db: Database, headId: number): Promise<void> {
  await db
    .update(alerts)
    .set({ status: 'sent', sentAt: sql`now()`, lastError: null })
    .where(messageRows(headId));
}

export async function markRetry(
  db: Database,
  headId: number,
  error: string,
  delayMs: number,
): Promise<void> {
  await db
    .update(alerts)
    .set({
      lastError: error,
      nextAttemptAt: sql`now() + make_interval(secs => ${delayMs / 1000})`,
    })
    .where(and(eq(alerts.id, headId), eq(alerts.status, 'pending')));
}

export async function markFailed(db: Database, headId: number, error: string): Promise<void> {
  await db.update(alerts).set({ status: 'failed', lastError: error }).where(messageRows(headId));
}

export interface AlertSummary extends AlertRow {
  server: string;
}

export async function listAlerts(
  db: Database,
  options: { status?: AlertStatus; limit: number },
): Promise<AlertSummary[]> {
  const rows = await db
    .select({ alert: alerts, server: servers.name })
    .from(alerts)
    .innerJoin(servers, eq(servers.id, alerts.serverId))
    .where(options.status ? eq(alerts.status, options.status) : undefined)
    .orderBy(desc(alerts.id))
    .limit(options.limit);
  return rows.map((row) => ({ ...row.alert, server: row.server }));
}

/**
 * Marks an alert as seen by an operator; an alert that was not sent yet will not be.
 * Acknowledging the first alert of a digest acknowledges the whole message.
 * Returns the rows acknowledged now (none when they already were).
 */
export async function acknowledgeAlert(db: Database, id: number): Promise<AlertRow[]> {
  const [alert] = await db.select().from(alerts).where(eq(alerts.id, id));
  if (!alert)
    throw new DriftError(
      'NOT_FOUND',
      `no alert with id ${id}; \`mcp-drift alerts list\` lists them`,
    );
  return db
    .update(alerts)
    .set({ status: 'acknowledged', acknowledgedAt: sql`now()` })
    .where(
      and(
        alert.digestOf === null
          ? or(eq(alerts.id, id), eq(alerts.digestOf, id))
          : eq(alerts.id, id),
        inArray(alerts.status, ['pending', 'sent', 'failed']),
      ),
    )
    .returning();
}
