import { eq, ne, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { heldSessions } from '../db/schema.js';

export type HeldSessionRow = typeof heldSessions.$inferSelect;

/** What a worker's held session of one server listed last; one row per server. */
export async function noteHeldSession(
  db: Database,
  row: Omit<HeldSessionRow, 'connectedAt' | 'listedAt'> & { listedAt: Date },
): Promise<void> {
  const { serverId, ...latest } = row;
  await db
    .insert(heldSessions)
    // The first note of a session is when it connected; later ones keep that time.
    .values({ serverId, connectedAt: row.listedAt, ...latest })
    .onConflictDoUpdate({ target: heldSessions.serverId, set: latest });
}

/** The worker no longer holds a session of this server. */
export async function forgetHeldSession(db: Database, serverId: number): Promise<void> {
  await db.delete(heldSessions).where(eq(heldSessions.serverId, serverId));
}

/** Held sessions noted by any worker but this one (see forgetOtherWorkers). */
export async function forgetOtherWorkersSessions(db: Database, workerId: string): Promise<void> {
  await db.delete(heldSessions).where(ne(heldSessions.workerId, workerId));
}

/** The server's held session as JSON (its row's columns), or null (a correlated subquery; see listings-repo). */
export function heldSessionJson(serverId: SQL): SQL<unknown> {
  return sql`(select json_build_object('workerId', ${heldSessions.workerId},
      'connectedAt', ${heldSessions.connectedAt}, 'listingHash', ${heldSessions.listingHash},
      'listedAt', ${heldSessions.listedAt}, 'lastNotificationAt', ${heldSessions.lastNotificationAt},
      'listChangedAdvertised', ${heldSessions.listChangedAdvertised})
    from ${heldSessions} where ${heldSessions.serverId} = ${serverId})`;
}

export async function findHeldSession(
  db: Database,
  serverId: number,
): Promise<HeldSessionRow | undefined> {
  const [row] = await db.select().from(heldSessions).where(eq(heldSessions.serverId, serverId));
  return row;
}

/**
 * A value that moves whenever a held session connects, lists, hears a notification or goes (the console's live updates poll it; see
 * src/console/live-feed.ts).
 */
export const heldSessionsVersion = sql<string>`(select concat_ws(':', count(*), sum(hashtext(concat_ws(':',
  ${heldSessions.serverId}, ${heldSessions.listingHash}, ${heldSessions.listedAt}, ${heldSessions.lastNotificationAt}))))
  from ${heldSessions})`;
