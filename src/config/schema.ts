import { z } from 'zod';
import { validate as isValidCron } from 'node-cron';
import { alertUrlProblem } from '../alerts/alert-url.js';
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

/** A Slack or webhook destination: https, or http to loopback only (alert-url.ts). */
const alertUrl = z.string().superRefine((value, context) => {
  const problem = alertUrlProblem(value);
  if (problem !== null) context.addIssue({ code: 'custom', message: problem });
});

const port = z.coerce.number().int().min(0).max(65535);

/**
 * Design §8. Every variable is optional; an empty string counts as unset so that a
 * `.env` line like `SMTP_URL=` does not turn into an invalid value.
 */
export const configFields = z.object({
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
  /**
   * A delivery being sent is not claimed again for this long; after a crash mid-send it is
   * retried when this runs out. Each send's own timeouts stay below half of it.
   */
  ALERT_CLAIM_SECONDS: z.coerce.number().int().min(10).max(3600).default(120),
  /** A Slack incoming-webhook URL that gets every alert (servers may add their own). */
  SLACK_WEBHOOK_URL: alertUrl.optional(),
  /** Unset: ALERT_MIN_SEVERITY. */
  SLACK_MIN_SEVERITY: z.enum(SEVERITIES).optional(),
  /** A URL that gets every alert as a signed JSON document (servers may add their own). */
  WEBHOOK_URL: alertUrl.optional(),
  /** The HMAC-SHA256 key of X-Mcp-Drift-Signature; required with any webhook. */
  WEBHOOK_SECRET: z
    .string()
    .min(16, { message: 'must be at least 16 characters (a random string: openssl rand -hex 32)' })
    .optional(),
  /** Unset: ALERT_MIN_SEVERITY. */
  WEBHOOK_MIN_SEVERITY: z.enum(SEVERITIES).optional(),
  DEFAULT_SCHEDULE: z
    .string()
    .refine((value) => isValidCron(value), { message: 'must be a valid cron expression' })
    .default('*/5 * * * *'),
  /**
   * The operator console's token (src/console/). Unset: one is generated on first start and
   * kept in MCP_DRIFT_HOME/console-token.
   */
  CONSOLE_TOKEN: z
    .string()
    .min(16, { message: 'must be at least 16 characters (a random string: openssl rand -hex 32)' })
    .optional(),
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

/** The channels' minimums default to ALERT_MIN_SEVERITY once every field is known. */
export const configSchema = configFields.transform((config) => ({
  ...config,
  SLACK_MIN_SEVERITY: config.SLACK_MIN_SEVERITY ?? config.ALERT_MIN_SEVERITY,
  WEBHOOK_MIN_SEVERITY: config.WEBHOOK_MIN_SEVERITY ?? config.ALERT_MIN_SEVERITY,
}));

/**
 * Problems between fields, judged on the raw values so that they are listed together with
 * every other problem rather than after the rest is fixed.
 */
export function crossFieldProblems(input: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  if (input['WEBHOOK_URL'] !== undefined && input['WEBHOOK_SECRET'] === undefined) {
    problems.push(
      'WEBHOOK_SECRET must be set when WEBHOOK_URL is: webhook deliveries are signed with it',
    );
  }
  return problems;
}

export type Config = z.output<typeof configSchema>;
