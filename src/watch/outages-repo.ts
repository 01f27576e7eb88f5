import { and, desc, eq, gte, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { outages } from '../db/schema.js';
import { scrubSecrets } from '../log-lines.js';

/**
 * Opens an outage unless one is open already (at most one per server, by a partial index).
 * The reason is masked before it is stored: it may quote credentials the server was sent.
 */
export async function markDown(
  db: Database,
  serverId: number,
  at: Date,
  reason: string,
): Promise<void> {
  await db
    .insert(outages)
    .values({ serverId, downAt: at, reason: scrubSecrets(reason) })
    .onConflictDoNothing();
}

/**
 * The server waits for a login (docs/oauth.md): its open outage, or a new one, is of kind
 * `auth`, whatever opened it.
 */
export async function markNeedsLogin(
  db: Database,
  serverId: number,
  at: Date,
  reason: string,
): Promise<void> {
  await markDown(db, serverId, at, reason);
  await db
    .update(outages)
    .set({ kind: 'auth', reason: scrubSecrets(reason) })
    .where(and(eq(outages.serverId, serverId), isNull(outages.upAt)));
}

export async function markUp(db: Database, serverId: number, at: Date): Promise<void> {
  await db
    .update(outages)
    .set({ upAt: at })
    .where(and(eq(outages.serverId, serverId), isNull(outages.upAt)));
}

/**
 * `{downAt, reason, kind}` of the server's open outage, or null (a correlated subquery; see
 * listings-repo). JSON built in SQL bypasses the column's decoding: read `reason` with
 * fromStorableText (src/db/storable.ts).
 */
export function openOutageJson(serverId: SQL): SQL<unknown> {
  return sql`(select json_build_object('downAt', ${outages.downAt}, 'reason', ${outages.reason},
      'kind', ${outages.kind})
    from ${outages} where ${outages.serverId} = ${serverId} and ${outages.upAt} is null)`;
}

export type OutageRow = typeof outages.$inferSelect;

/** The server's outages that overlap the time since `since`, oldest first (newest `limit`). */
export async function outagesSince(
  db: Database,
  serverId: number,
  options: { since: Date; limit: number },
): Promise<OutageRow[]> {
  const rows = await db
    .select()
    .from(outages)
    .where(
      and(
        eq(outages.serverId, serverId),
        or(isNull(outages.upAt), gte(outages.upAt, options.since)),
      ),
    )
    .orderBy(desc(outages.downAt))
    .limit(options.limit);
  return rows.reverse();
}

/**
 * A value that moves whenever an outage opens or closes (the console's live updates poll it; see
 * src/console/live-feed.ts).
 */
export const outagesVersion = sql<string>`(select concat_ws(':', max(${outages.id}), count(${outages.upAt})) from ${outages})`;
