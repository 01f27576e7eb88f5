import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import { enabledServerDestinations } from '../registry/servers-repo.js';
import { alertPolicyOf, channelDestinations } from './alert-policy.js';
import { CHANNELS, type ChannelName } from '../vocabulary/channels.js';

const SETTINGS =
  'set ALERT_TO (mail goes to the .eml outbox until SMTP_URL is set), SLACK_WEBHOOK_URL or WEBHOOK_URL (with WEBHOOK_SECRET), or give servers --notify, --slack or --webhook';

/**
 * What keeps alerts from reaching anyone, in words an operator can act on: no channel
 * with a destination (globally, or for some enabled servers), or webhooks without a
 * secret to sign them. Empty when every enabled server's alerts reach someone.
 */
export async function alertDestinationProblems(db: Database, config: Config): Promise<string[]> {
  const policy = alertPolicyOf(config);
  const enabled = await enabledServerDestinations(db);
  const problems: string[] = [];
  const global = CHANNELS.some((channel) => policy.channels[channel].destinations.length > 0);
  if (!global) {
    const unreached = enabled
      .filter((server) =>
        CHANNELS.every((channel) => channelDestinations(policy, server, channel).length === 0),
      )
      .map((server) => server.name);
    if (enabled.length === 0 || unreached.length === enabled.length) {
      problems.push(`no alert destination: nobody will be told of changes; ${SETTINGS}`);
    } else if (unreached.length > 0) {
      problems.push(
        `no alert destination for ${unreached.join(', ')}: their changes will be recorded as undeliverable; ${SETTINGS}`,
      );
    }
  }
  if (config.WEBHOOK_SECRET === undefined) {
    const unsigned = enabled.filter((server) => server.webhookUrl !== null).map((s) => s.name);
    if (unsigned.length > 0) {
      problems.push(
        `WEBHOOK_SECRET is not set, so webhook deliveries of ${unsigned.join(', ')} will fail: set it to sign them`,
      );
    }
  }
  return problems;
}

/**
 * The channels with somewhere to send: a global destination, or an enabled server's own
 * (--notify, --slack, --webhook). The start line names these only; every channel still
 * runs, so that a server given its own destination later is served without a restart.
 */
export async function channelsInUse(db: Database, config: Config): Promise<ChannelName[]> {
  const policy = alertPolicyOf(config);
  const enabled = await enabledServerDestinations(db);
  return CHANNELS.filter((channel) =>
    enabled.length === 0
      ? policy.channels[channel].destinations.length > 0
      : enabled.some((server) => channelDestinations(policy, server, channel).length > 0),
  );
}

/**
 * Called once as `serve` starts: nobody to tell is an error an operator must see, so it is
 * a warning naming the settings, not an info line. Never stops the service.
 */
export async function warnWhenAlertsReachNobody(
  db: Database,
  config: Config,
  logger: Logger,
): Promise<void> {
  try {
    for (const problem of await alertDestinationProblems(db, config)) {
      logger.warn({ component: 'alerts' }, problem);
    }
  } catch (error) {
    logger.warn({ err: error, component: 'alerts' }, 'could not check alert destinations');
  }
}
