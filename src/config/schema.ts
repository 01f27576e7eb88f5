import { z } from 'zod';
import { validate as isValidCron } from 'node-cron';
import { SEVERITIES } from '../diff/severity.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const emailList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  )
  .pipe(z.array(z.email({ message: 'must be a comma-separated list of email addresses' })));

const urlWithScheme = (schemes: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { message: `must be a URL starting with ${schemes.map((s) => `${s}://`).join(' or ')}` },
  );

const port = z.coerce.number().int().min(0).max(65535);

/**
 * Design §8. Every variable is optional; an empty string counts as unset so that a
 * `.env` line like `SMTP_URL=` does not turn into an invalid value.
 */
export const configSchema = z.object({
  DATABASE_URL: urlWithScheme(['postgres', 'postgresql']).optional(),
  MCP_DRIFT_HOME: z.string().min(1).default('./.mcp-drift'),
  SMTP_URL: urlWithScheme(['smtp', 'smtps']).optional(),
  ALERT_FROM: z.email({ message: 'must be an email address' }).default('mcp-drift@localhost'),
  ALERT_TO: emailList.default([]),
  ALERT_MIN_SEVERITY: z.enum(SEVERITIES).default('medium'),
  DIGEST_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  /** Sending an alert is tried this many times (with growing waits) before it is marked failed. */
  ALERT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(10),
  /** The first retry's wait; each further one doubles, up to an hour. */
  ALERT_RETRY_SECONDS: z.coerce.number().min(0.1).max(3600).default(30),
  DEFAULT_SCHEDULE: z
    .string()
    .refine((value) => isValidCron(value), { message: 'must be a valid cron expression' })
    .default('*/5 * * * *'),
  HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * 8464: unassigned in IANA's registry, outside the Prometheus exporters' 9100-9999 and the
   * ephemeral range. 9464 was the OpenTelemetry Prometheus exporter's, and taken here.
   */
  HTTP_PORT: port.default(8464),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** Caps on one listing (design §6); hitting one makes the attempt an error observation. */
  LISTING_MAX_PAGES: z.coerce.number().int().min(1).default(100),
  LISTING_MAX_TOOLS: z.coerce.number().int().min(1).default(10_000),
  LISTING_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** Per MCP request (connect, each page). */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Fresh probes running at once, over all servers of one worker. */
  PROBE_CONCURRENCY: z.coerce.number().int().min(1).default(16),
  /** A worker that has not renewed its leases for this long loses its servers to others. */
  LEASE_SECONDS: z.coerce.number().int().min(5).default(30),
});

export type Config = z.infer<typeof configSchema>;
