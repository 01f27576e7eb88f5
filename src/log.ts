import { pino, type Logger } from 'pino';
import { writeSync } from 'node:fs';
import { finishLogLine, MASK, redactFromLogs, urlPasswords } from './log-lines.js';
import { prettyLogLine } from './log-pretty.js';

export type { Logger };

/**
 * Readable lines for a terminal, written at once as pino's own sync destination would: a
 * failed write to stderr (closed, full) is dropped, never thrown into the caller.
 */
const prettyStderr = {
  write(line: string): void {
    try {
      writeSync(2, prettyLogLine(line));
    } catch {
      // Nowhere left to say it.
    }
  },
};

/**
 * Logs on stderr, JSON lines or (`pretty`) one readable line per event for a person at a
 * terminal: stdout carries command output only. Header and env values are
 * redacted by field wherever a server registration is logged whole, and by value (see
 * redactFromLogs) everywhere else; `secretUrls` are DATABASE_URL and SMTP_URL, whose
 * passwords are masked even where they appear outside a URL.
 */
export function createLogger(
  level: string,
  format: 'json' | 'pretty' = 'json',
  secretUrls: (string | undefined)[] = [],
  /** Where the lines go instead of file descriptor 2 (a test's in-process command). */
  stream?: { write(text: string): unknown },
): Logger {
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
      hooks: { streamWrite: finishLogLine },
    },
    stream
      ? { write: (line: string) => stream.write(format === 'pretty' ? prettyLogLine(line) : line) }
      : format === 'pretty'
        ? prettyStderr
        : pino.destination({ dest: 2, sync: true }),
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
