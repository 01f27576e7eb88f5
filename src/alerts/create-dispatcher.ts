import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import { AlertDispatcher, DEFAULT_DISPATCHER_OPTIONS } from './dispatcher.js';
import { createEmlSender } from './eml-sender.js';
import { createSmtpSender } from './smtp-sender.js';

/** The outbox directory of the embedded default (design §8). */
export function outboxDirectory(config: Config): string {
  return path.join(config.MCP_DRIFT_HOME, 'outbox');
}

/** The service's dispatcher: SMTP when SMTP_URL is set, otherwise .eml files. */
export function createDispatcher(db: Database, config: Config, logger: Logger): AlertDispatcher {
  const log = logger.child({ component: 'alerts' });
  return new AlertDispatcher({
    db,
    logger: log,
    sender: config.SMTP_URL
      ? createSmtpSender(config.SMTP_URL)
      : createEmlSender(outboxDirectory(config), log),
    options: {
      ...DEFAULT_DISPATCHER_OPTIONS,
      from: config.ALERT_FROM,
      maxAttempts: config.ALERT_MAX_ATTEMPTS,
      retryBaseMs: config.ALERT_RETRY_SECONDS * 1000,
    },
  });
}
