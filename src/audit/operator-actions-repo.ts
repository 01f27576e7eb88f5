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
