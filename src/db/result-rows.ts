/**
 * The rows of a raw `db.execute(sql…)`: postgres.js answers with an array of rows, PGlite
 * with `{ rows }`. The one place that knows the two drivers' shapes differ.
 */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);
}
