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

/**
 * The database refused the data itself (SQLSTATE class 22, "data exception": a value out of
 * range, a character it cannot store...), as opposed to being unreachable or the statement
 * being wrong: retrying the same rows apart can then save the others.
 */
export function dataException(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)) return true;
  }
  return false;
}
