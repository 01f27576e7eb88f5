import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { deliveries, type DeliveryRow } from '../db/schema.js';
import type { Destination } from './alert-policy.js';
import type { ChannelName } from '../vocabulary/channels.js';
import { randomUUID } from 'node:crypto';

/**
 * Takes up to `limit` deliveries of one channel that are due, for one dispatcher.
 * Claiming counts an attempt and pushes the next attempt `leaseSeconds` ahead, so that
 * another worker's dispatcher (skipping the rows locked here) sends it again only if this
 * one dies before recording the outcome. Digest members go with their first delivery,
 * never alone.
 */
export async function claimDueDeliveries(
  db: Database,
  options: { channel: ChannelName; limit: number; leaseSeconds: number },
): Promise<DeliveryRow[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: deliveries.id })
      .from(deliveries)
      .where(
        and(
          eq(deliveries.channel, options.channel),
          eq(deliveries.status, 'pending'),
          isNull(deliveries.digestOf),
          lte(deliveries.nextAttemptAt, sql`now()`),
        ),
      )
      .orderBy(asc(deliveries.nextAttemptAt), asc(deliveries.id))
      .limit(options.limit)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(deliveries)
      .set({
        attempts: sql`${deliveries.attempts} + 1`,
        nextAttemptAt: sql`now() + make_interval(secs => ${options.leaseSeconds})`,
      })
      .where(
        inArray(
          deliveries.id,
          due.map((row) => row.id),
        ),
      )
      .returning();
  });
}

/** The deliveries that joined these first deliveries' digests, oldest first. */
export async function digestMembers(db: Database, headIds: number[]): Promise<DeliveryRow[]> {
  if (headIds.length === 0) return [];
  return db
    .select()
    .from(deliveries)
    .where(and(inArray(deliveries.digestOf, headIds), eq(deliveries.status, 'pending')))
    .orderBy(asc(deliveries.id));
}

/** Deliveries and the members of their digests: the rows their messages stand for. */
const messageRows = (headIds: number[]) =>
  and(
    or(inArray(deliveries.id, headIds), inArray(deliveries.digestOf, headIds)),
    eq(deliveries.status, 'pending'),
  );

/** Several messages at once: the dispatcher batches its outcomes (DeliveredBatcher). */
export async function markDelivered(db: Database, headIds: number[]): Promise<void> {
  if (headIds.length === 0) return;
  await db
    .update(deliveries)
    .set({ status: 'delivered', deliveredAt: sql`now()`, lastError: null })
    .where(messageRows(headIds));
}

export async function markRetry(
  db: Database,
  headId: number,
  error: string,
  delayMs: number,
): Promise<void> {
  await db
    .update(deliveries)
    .set({
      lastError: error,
      nextAttemptAt: sql`now() + make_interval(secs => ${delayMs / 1000})`,
    })
    .where(and(eq(deliveries.id, headId), eq(deliveries.status, 'pending')));
}

export async function markFailed(db: Database, headId: number, error: string): Promise<void> {
  await db
    .update(deliveries)
    .set({ status: 'failed', lastError: error })
    .where(messageRows([headId]));
}

/**
 * Puts an alert's failed deliveries back in the outbox, due now, with a fresh count of
 * attempts, together with the failed deliveries that had joined their digests (they go
 * out in the same message again). A failed delivery of this alert that had joined another
 * alert's digest goes out on its own: that message is history.
 */
export async function requeueFailed(db: Database, alertId: number): Promise<DeliveryRow[]> {
  const own = db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(eq(deliveries.alertId, alertId));
  return db
    .update(deliveries)
    .set({
      status: 'pending',
      attempts: 0,
      nextAttemptAt: sql`now()`,
      digestOf: sql`case when ${deliveries.alertId} = ${alertId} then null else ${deliveries.digestOf} end`,
    })
    .where(
      and(
        eq(deliveries.status, 'failed'),
        or(eq(deliveries.alertId, alertId), inArray(deliveries.digestOf, own)),
      ),
    )
    .returning();
}

/** New deliveries for an alert that had none (it was undeliverable), due now. */
export async function addDeliveries(
  db: Database,
  alert: { id: number; serverId: number },
  destinations: Destination[],
): Promise<DeliveryRow[]> {
  if (destinations.length === 0) return [];
  return db
    .insert(deliveries)
    .values(
      destinations.map((target) => ({
        alertId: alert.id,
        serverId: alert.serverId,
        channel: target.channel,
        destination: target.destination,
        key: randomUUID(),
      })),
    )
    .returning();
}

/** Deliveries by channel and status, for /metrics. */
export async function countDeliveries(
  db: Database,
): Promise<{ channel: ChannelName; status: DeliveryRow['status']; count: number }[]> {
  return db
    .select({
      channel: deliveries.channel,
      status: deliveries.status,
      count: sql<number>`count(*)::int`,
    })
    .from(deliveries)
    .groupBy(deliveries.channel, deliveries.status);
}

/**
 * A value that moves whenever a delivery is queued, tried, delivered or failed (the console's live updates poll it; see
 * src/console/live-feed.ts).
 */
export const deliveriesVersion = sql<string>`(select concat_ws(':', count(*),
  sum(hashtext(concat_ws(':', ${deliveries.id}, ${deliveries.status}, ${deliveries.attempts}))))
  from ${deliveries})`;
