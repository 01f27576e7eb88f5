import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { outages } from '../db/schema.js';
import { scrubSecrets } from '../log.js';

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

export async function markUp(db: Database, serverId: number, at: Date): Promise<void> {
  await db
    .update(outages)
    .set({ upAt: at })
    .where(and(eq(outages.serverId, serverId), isNull(outages.upAt)));
}
