/*
 * What every log line goes through before it is written: the secrets this process handled
 * masked, then its size capped. Apart from the logger itself (log.ts), so that what masks
 * a server's stored error reason, or a command's error message, does not load pino: most
 * commands never write a log line.
 */

import { terminalSafeJson } from './text/terminal-text.js';

export const MASK = '****';

/**
 * Literals shorter than this are too likely to be ordinary words ("true", "prod") to be
 * scrubbed from free text without garbling every line; they are still never logged as
 * fields, since registrations are never logged whole.
 */
const MIN_SCRUBBED_LENGTH = 6;

/** Words that are conventionally not secret in a header value, as in src/registry/redact.ts. */
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'token', 'digest']);

/**
 * `scheme://user:password@`: the password part, wherever a URL shows up in a line. The
 * lookbehind lets a scheme start only where a run of scheme characters starts: without it,
 * a long run of letters was scanned again from each of its characters, and a 5 MB line
 * took minutes.
 */
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s:@/?#"\\]*):([^\s@/?#"\\]+)@/gi;

/**
 * Every secret value this process has handled (header and env values of the servers it
 * connected to, database and mail passwords). One process holds one set: the values are
 * the same whichever logger writes the line.
 */
const secrets = new Set<string>();

/**
 * Makes every later log line of this process mask these values wherever they appear:
 * in an error message, a server's stderr quoted in a reason, a failed query's parameters.
 * Field-based redaction cannot reach those, and a server may echo its credentials back.
 * Reasons are masked with the same values before they are stored (scrubSecrets).
 */
export function redactFromLogs(values: Iterable<string | undefined>): void {
  for (const value of values) {
    if (value === undefined) continue;
    for (const part of [value, ...value.split(/\s+/)]) {
      if (part.length < MIN_SCRUBBED_LENGTH || AUTH_SCHEMES.has(part.toLowerCase())) continue;
      secrets.add(part);
      // A value with quotes, backslashes or control characters appears escaped in JSON.
      secrets.add(JSON.stringify(part).slice(1, -1));
    }
  }
}

/** The password of a `scheme://user:password@host` URL, as written and decoded. */
export function urlPasswords(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const { password } = new URL(url);
    if (password === '') return [];
    return [password, decodeURIComponent(password)];
  } catch {
    return [];
  }
}

/**
 * `?api_key=…`, `&X-Amz-Signature=…`: a query parameter whose name has a word that says
 * its value is secret (split at `-`, `_`, `.` and lower-to-upper case changes, so `monkey`
 * and `author` are not, `apiKey` and `x-api-key` are).
 */
const QUERY_PARAMETER = /([?&;])([A-Za-z0-9_.~-]{1,100})=([^&#\s"'\\<>]+)/g;
const SECRET_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'pass',
  'pwd',
  'auth',
  'authorization',
  'sig',
  'signature',
  'credential',
  'credentials',
  'session',
  'sessionid',
  'jwt',
  'code',
]);

function secretParameterName(name: string): boolean {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.~-]+/)
    .some((word) => SECRET_WORDS.has(word.toLowerCase()));
}

/** A text with the values of secret-named query parameters masked; the URL stays usable to read. */
export function maskQuerySecrets(text: string): string {
  if (!/[?&;]/.test(text)) return text;
  return text.replace(QUERY_PARAMETER, (whole, start: string, name: string) =>
    secretParameterName(name) ? `${start}${name}=${MASK}` : whole,
  );
}

/** Exported for tests of the masking itself; the logger applies it to every line. */
export function scrubSecrets(line: string): string {
  let scrubbed = maskQuerySecrets(line.replace(URL_PASSWORD, `$1:${MASK}@`));
  for (const secret of secrets) {
    if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(MASK);
  }
  return scrubbed;
}

/**
 * A log line longer than this is rewritten with its long strings cut. A failed statement's
 * error quotes every parameter: one change of 3,700 findings once logged a 43 MB line,
 * which log shippers drop or choke on, and which held the event loop while it was written.
 */
export const MAX_LOG_LINE_CHARS = 16 * 1024;
/** What a cut string keeps. */
const MAX_LOG_STRING_CHARS = 2_000;

/**
 * The line as it is when short enough, else the same JSON with every long string cut
 * (saying how much was left out), and as a last resort its short top-level fields only.
 * Applied after scrubSecrets, so that a cut cannot leave half a secret unmasked.
 */
export function capLogLine(line: string): string {
  if (line.length <= MAX_LOG_LINE_CHARS) return line;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return `${line.slice(0, MAX_LOG_LINE_CHARS - 1)}\n`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `${JSON.stringify({ msg: 'log line cut', truncatedChars: line.length })}\n`;
  }
  const cut = { ...(capStrings(value) as Record<string, unknown>), truncatedChars: line.length };
  let text = JSON.stringify(cut);
  if (text.length > MAX_LOG_LINE_CHARS) {
    const short = Object.entries(cut).filter(
      ([, field]) => typeof field !== 'object' || field === null,
    );
    text = JSON.stringify(Object.fromEntries(short));
  }
  return `${text}\n`;
}

/** What the logger does to every line it writes: secrets masked, then the size capped. */
export function finishLogLine(line: string): string {
  // A log line read on a terminal (`serve` in the foreground) must not act on it either.
  return terminalSafeJson(capLogLine(scrubSecrets(line)));
}

function capStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length <= MAX_LOG_STRING_CHARS
      ? value
      : `${value.slice(0, MAX_LOG_STRING_CHARS)}… (${value.length - MAX_LOG_STRING_CHARS} more characters)`;
  }
  if (Array.isArray(value)) {
    const items = value.slice(0, 20).map(capStrings);
    return value.length > 20 ? [...items, `… (${value.length - 20} more items)`] : items;
  }
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, field]) => [
      key,
      capStrings(field),
    ]),
  );
}
