import { eq } from 'drizzle-orm';
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
