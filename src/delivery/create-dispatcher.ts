import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import { redactFromLogs } from '../log-lines.js';
import type { Logger } from '../log.js';
import type { ServiceEvents } from '../service-events.js';
import type { ChannelName } from '../vocabulary/channels.js';
import type { Channel } from './channel.js';
import {
  AlertDispatcher,
  ChannelDispatcher,
  DEFAULT_DISPATCHER_OPTIONS,
  type DispatcherOptions,
} from './dispatcher.js';
import { createEmailChannel } from './email-channel.js';
import { createEmlSender } from './eml-sender.js';
import { createSlackChannel } from './slack-channel.js';
import { createSmtpSender } from './smtp-sender.js';
import { createWebhookChannel } from './webhook-channel.js';

/** The outbox directory of the embedded default (docs/design.md §8). */
export function outboxDirectory(config: Config): string {
  return path.join(config.MCP_DRIFT_HOME, 'outbox');
}

/** An HTTP POST to Slack or a webhook gets this long, or less when claims are short. */
const HTTP_TIMEOUT_MS = 10_000;

/**
 * The channels as configured: email over SMTP_URL, or .eml files without it; Slack; signed
 * webhooks. Every send's timeouts stay under half a delivery's claim, so a slow destination
 * cannot make a second dispatcher send the same delivery while the first still waits.
 */
export function createChannels(config: Config, logger: Logger): Record<ChannelName, Channel> {
  // Slack incoming-webhook URLs are bearer secrets, and so is the signing key.
  redactFromLogs([config.SLACK_WEBHOOK_URL, config.WEBHOOK_URL, config.WEBHOOK_SECRET]);
  const claimMs = config.ALERT_CLAIM_SECONDS * 1000;
  const timeoutMs = Math.min(HTTP_TIMEOUT_MS, claimMs / 2);
  return {
    email: createEmailChannel(
      config.SMTP_URL
        ? createSmtpSender(config.SMTP_URL, { timeoutMs: claimMs / 2 })
        : createEmlSender(outboxDirectory(config), logger),
      config.ALERT_FROM,
    ),
    slack: createSlackChannel({ timeoutMs }),
    webhook: createWebhookChannel({ secret: config.WEBHOOK_SECRET, timeoutMs }),
  };
}

/**
 * The service's dispatchers, one per channel. Every channel runs, configured globally or
 * not: a server's own --slack or --webhook needs no global setting.
 */
export function createDispatcher(
  db: Database,
  config: Config,
  logger: Logger,
  overrides: Partial<DispatcherOptions> = {},
  events?: ServiceEvents,
): AlertDispatcher {
  const log = logger.child({ component: 'alerts' });
  const channels = createChannels(config, log);
  return new AlertDispatcher(
    Object.values(channels).map(
      (channel) =>
        new ChannelDispatcher({
          db,
          channel,
          logger: log,
          events,
          options: {
            ...DEFAULT_DISPATCHER_OPTIONS,
            maxAttempts: config.ALERT_MAX_ATTEMPTS,
            retryBaseMs: config.ALERT_RETRY_SECONDS * 1000,
            leaseSeconds: config.ALERT_CLAIM_SECONDS,
            ...overrides,
          },
        }),
    ),
  );
}
