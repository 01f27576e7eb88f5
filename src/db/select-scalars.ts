import { sql, type SQL } from 'drizzle-orm';
import type { Database } from './client.js';
import { rowsOf } from './result-rows.js';

/**
 * Reads several scalar subqueries in one statement, so their values come from one snapshot:
 * the console's live feed reads every table's version this way in one round trip. The
 * fragments come from the repositories of their tables.
 */
export async function selectScalars<K extends string>(
  db: Database,
  fragments: Readonly<Record<K, SQL>>,
): Promise<Record<K, unknown>> {
  const names = Object.keys(fragments) as K[];
  const columns = names.map((name) => sql`${fragments[name]} as ${sql.identifier(name)}`);
  const result = await db.execute(sql`select ${sql.join(columns, sql`, `)}`);
  const row = rowsOf<Record<string, unknown>>(result)[0] ?? {};
  return Object.fromEntries(names.map((name) => [name, row[name]])) as Record<K, unknown>;
}
