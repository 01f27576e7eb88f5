import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migrateWithPglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migrateWithPostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

/** drizzle/ sits next to src/ and dist/, so this resolves from both. */
export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Any fixed number: the advisory lock that serializes migrations across processes. */
const MIGRATION_LOCK = 7_274_311;

/**
 * Several `serve` processes may start at once on one PostgreSQL; the advisory lock makes
 * the second wait for the first instead of failing on half-created tables. It runs on a
 * connection of its own because advisory locks belong to a session.
 */
export async function migratePostgres(url: string, folder = migrationsFolder): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrateWithPostgres(drizzlePostgres(sql), { migrationsFolder: folder });
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * PGlite has one session and one process (the home lock), so no lock is needed. `folder`
 * is for tests that build a database as an earlier release left it.
 */
export async function migratePglite(pglite: PGlite, folder = migrationsFolder): Promise<void> {
  await migrateWithPglite(drizzlePglite(pglite), { migrationsFolder: folder });
}
