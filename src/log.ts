import { pino, type Logger } from 'pino';

export type { Logger };

const MASK = '****';

/**
 * Literals shorter than this are too likely to be ordinary words ("true", "prod") to be
 * scrubbed from free text without garbling every line; they are still never logged as
 * fields, since registrations are never logged whole.
 */
const MIN_SCRUBBED_LENGTH = 6;

/** Words that are conventionally not secret in a header value, as in src/registry/redact.ts. */
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'token', 'digest']);

/** `scheme://user:password@`: the password part, wherever a URL shows up in a line. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:@/?#"\\]*):([^\s@/?#"\\]+)@/gi;

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

/** Exported for tests of the masking itself; the logger applies it to every line. */
export function scrubSecrets(line: string): string {
  let scrubbed = line.replace(URL_PASSWORD, `$1:${MASK}@`);
  for (const secret of secrets) {
    if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(MASK);
  }
  return scrubbed;
}

/**
 * JSON logs on stderr: stdout carries command output only. Header and env values are
 * redacted by field wherever a server registration is logged whole, and by value (see
 * redactFromLogs) everywhere else; `secretUrls` are DATABASE_URL and SMTP_URL, whose
 * passwords are masked even where they appear outside a URL.
 */
export function createLogger(level: string, secretUrls: (string | undefined)[] = []): Logger {
  redactFromLogs(secretUrls.flatMap(urlPasswords));
  return pino(
    {
      level,
      base: { service: 'mcp-drift' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'headers.*',
          'env.*',
          '*.headers.*',
          '*.env.*',
          'databaseUrl',
          'smtpUrl',
          'DATABASE_URL',
          'SMTP_URL',
        ],
        censor: MASK,
      },
      hooks: { streamWrite: scrubSecrets },
    },
    pino.destination({ dest: 2, sync: true }),
  );
}

/**
 * node-cron's logger interface, routed into ours: by default it writes coloured text to
 * the console, and stderr carries JSON lines only. Its one routine message, a probe still
 * running when the next is due, names no task (so no server), hence debug, not warn.
 */
export function cronLogger(logger: Logger) {
  const log = logger.child({ component: 'cron' });
  const write = (level: 'debug' | 'error' | 'trace', message: string | Error, err?: Error) =>
    message instanceof Error
      ? log[level]({ err: message }, message.message)
      : log[level](err ? { err } : {}, message);
  return {
    info: (message: string) => write('debug', message),
    warn: (message: string) => write('debug', message),
    error: (message: string | Error, err?: Error) => write('error', message, err),
    debug: (message: string | Error, err?: Error) => write('trace', message, err),
  };
}
