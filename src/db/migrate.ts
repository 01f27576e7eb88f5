import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migrateWithPostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

/** drizzle/ sits next to src/ and dist/, so this resolves from both. */
export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Any fixed number: the advisory lock that serializes migrations across processes. */
const MIGRATION_LOCK = 7_274_311;

/** SQLSTATEs of a database where drizzle's migrations table does not exist yet. */
const NOT_MIGRATED = new Set(['42P01', '3F000']);

/** The journal time of the newest migration this build ships. */
function newestShipped(): number {
  const journal = JSON.parse(
    readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: { when: number }[] };
  return Math.max(...journal.entries.map((entry) => entry.when));
}

/**
 * Whether the database lacks a migration this build ships, by drizzle's own rule: a
 * migration is pending when its journal time is later than the latest `created_at`
 * recorded. One query on a connection that is open anyway; the migrator itself takes a
 * connection of its own, an advisory lock and a read of every migration file, which
 * each CLI command paid before doing anything.
 */
export async function migrationsPending(sql: postgres.Sql): Promise<boolean> {
  try {
    const [row] = await sql<{ latest: number | null }[]>`
      select max(created_at)::float8 as latest from drizzle.__drizzle_migrations`;
    return !(row?.latest != null && row.latest >= newestShipped());
  } catch (error) {
    if (NOT_MIGRATED.has((error as { code?: string }).code ?? '')) return true;
    throw error;
  }
}

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
 * is for tests that build a database as an earlier release left it. Its driver loads
 * PGlite, which commands on PostgreSQL never need: it is imported here only.
 */
export async function migratePglite(pglite: PGlite, folder = migrationsFolder): Promise<void> {
  const [{ drizzle: drizzlePglite }, { migrate: migrateWithPglite }] = await Promise.all([
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ]);
  await migrateWithPglite(drizzlePglite(pglite), { migrationsFolder: folder });
}
