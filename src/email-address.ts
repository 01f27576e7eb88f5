/**
 * An email address as the configuration (ALERT_TO, ALERT_FROM) and `--notify` take one:
 * zod 4's `z.email()` pattern, which these checks used before (zod is no longer loaded
 * for them, see config/schema.ts). It refuses what a mail server would: a dot at the
 * start or twice in a row, a domain without a dot.
 */
const EMAIL =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

export function isEmailAddress(text: string): boolean {
  return EMAIL.test(text);
}
