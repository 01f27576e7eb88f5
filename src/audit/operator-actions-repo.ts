import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { operatorActions } from '../db/schema.js';

export type OperatorActionRow = typeof operatorActions.$inferSelect;
export type ActionName = OperatorActionRow['action'];

/** Who acts: the name given at console login, `api` for a bearer token, the CLI's user. */
export interface Actor {
  name: string;
  via: OperatorActionRow['via'];
}

/** Written in the transaction of the action itself, so that no action goes unrecorded. */
export async function recordAction(
  db: Database,
  actor: Actor,
  action: { action: ActionName; server: string | null; subject: string; detail?: object },
): Promise<OperatorActionRow> {
  const [row] = await db
    .insert(operatorActions)
    .values({
      actor: actor.name,
      via: actor.via,
      action: action.action,
      server: action.server,
      subject: action.subject,
      detail: (action.detail ?? {}) as Record<string, unknown>,
    })
    .returning();
  return row!;
}

/** Newest first; of one server when `server` is given. */
export async function recentActions(
  db: Database,
  options: { server?: string; before?: number; limit: number },
): Promise<OperatorActionRow[]> {
  return db
    .select()
    .from(operatorActions)
    .where(
      and(
        options.server === undefined ? undefined : eq(operatorActions.server, options.server),
        options.before === undefined ? undefined : lt(operatorActions.id, options.before),
      ),
    )
    .orderBy(desc(operatorActions.id))
    .limit(options.limit);
}

export interface Acknowledgement {
  actor: string;
  via: Actor['via'];
  at: Date;
}

/**
 * Who acknowledged each of these alerts, by alert id: the `alert.ack` actions whose
 * `detail.acknowledged` names it (acknowledging a digest's first alert acknowledges the
 * alerts that joined it, under that one action). An alert acknowledged with no actor given
 * is absent.
 */
export async function acknowledgementsOf(
  db: Database,
  alertIds: readonly number[],
): Promise<Map<number, Acknowledgement>> {
  const found = new Map<number, Acknowledgement>();
  if (alertIds.length === 0) return found;
  const wanted = new Set(alertIds);
  const rows = await db
    .select()
    .from(operatorActions)
    .where(
      and(
        eq(operatorActions.action, 'alert.ack'),
        sql`exists (select 1 from jsonb_array_elements(${operatorActions.detail}->'acknowledged') as acked(id)
          where jsonb_typeof(acked.id) = 'number' and (acked.id)::text in (${sql.join(
            [...wanted].map((id) => sql`${String(id)}`),
            sql`, `,
          )}))`,
      ),
    )
    .orderBy(operatorActions.id);
  for (const row of rows) {
    const acknowledged = row.detail['acknowledged'];
    if (!Array.isArray(acknowledged)) continue;
    for (const id of acknowledged) {
      // The first action wins: a later one acknowledged nothing new for this alert.
      if (typeof id === 'number' && wanted.has(id) && !found.has(id)) {
        found.set(id, { actor: row.actor, via: row.via, at: row.at });
      }
    }
  }
  return found;
}

/** The latest recording of this action on this subject (who approved a listing, say). */
export async function latestActionOn(
  db: Database,
  action: { action: ActionName; server: string; subject: string },
): Promise<OperatorActionRow | undefined> {
  const [row] = await db
    .select()
    .from(operatorActions)
    .where(
      and(
        eq(operatorActions.server, action.server),
        eq(operatorActions.action, action.action),
        eq(operatorActions.subject, action.subject),
      ),
    )
    .orderBy(desc(operatorActions.id))
    .limit(1);
  return row;
}

/**
 * A value that moves whenever an operator action is recorded (the console's live updates poll it; see
 * src/console/live-feed.ts).
 */
export const actionsVersion = sql<string>`(select coalesce(max(${operatorActions.id}), 0)::text from ${operatorActions})`;
