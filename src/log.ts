import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stderr: stdout carries command output only. Header and env values are
 * redacted wherever a server registration is logged whole.
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { service: 'mcp-drift' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['headers.*', 'env.*', '*.headers.*', '*.env.*', 'databaseUrl', 'smtpUrl'],
        censor: '****',
      },
    },
    pino.destination({ dest: 2, sync: true }),
  );
}
