/**
 * drizzle wraps driver errors in its own; postgres.js and PGlite both carry the SQLSTATE in
 * `code`, and name the constraint in `constraint_name` and `constraint` respectively.
 */
export function uniqueViolation(error: unknown): { constraint: string | undefined } | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const fields = e as { code?: unknown; constraint_name?: string; constraint?: string };
    if (fields.code === '23505') return { constraint: fields.constraint_name ?? fields.constraint };
  }
  return undefined;
}
