import { sql } from 'drizzle-orm';
import type { Database } from './client.js';

/**
 * When the newest applied migration was created (drizzle's journal `when`, in ms), read from
 * drizzle's own bookkeeping table; -Infinity when none is applied. Readiness compares it
 * with the journal shipped in this build.
 */
export async function latestAppliedMigration(db: Database): Promise<number> {
  const [row] = await db
    .select({ latest: sql<number | null>`max(created_at)::float8` })
    .from(sql`drizzle.__drizzle_migrations`);
  return row?.latest ?? -Infinity;
}
