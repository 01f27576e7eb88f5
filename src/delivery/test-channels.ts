import { randomUUID } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { DriftError } from '../errors.js';
import type { Logger } from '../log.js';
import { alertPolicyOf } from '../alerts/alert-policy.js';
import { CHANNELS, type ChannelName } from '../vocabulary/channels.js';
import { createChannels } from './create-dispatcher.js';
import { asDeliveryFailure } from './delivery-failure.js';
import { shownDestination } from '../config/alert-url.js';

export interface ChannelTestResult {
  channel: ChannelName;
  destination: string;
  ok: boolean;
  /** Why it failed (the destination's own answer when it gave one). */
  error: string | null;
}

/**
 * `alerts test [--channel NAME]`: sends a short test message through each configured
 * channel to each of its global destinations, now and from this process (not through the
 * outbox), and reports each result. The command people run right after configuring.
 */
export async function testChannels(
  config: Config,
  logger: Logger,
  options: { channel?: ChannelName } = {},
): Promise<ChannelTestResult[]> {
  const policy = alertPolicyOf(config);
  const wanted = options.channel === undefined ? CHANNELS : [options.channel];
  const targets = wanted.flatMap((channel) =>
    policy.channels[channel].destinations.map((destination) => ({ channel, destination })),
  );
  if (targets.length === 0) {
    throw new DriftError(
      'CONFIG_INVALID',
      options.channel === undefined
        ? 'no channel is configured: set ALERT_TO, SLACK_WEBHOOK_URL or WEBHOOK_URL'
        : `channel ${options.channel} has no destination: set ${{ email: 'ALERT_TO', slack: 'SLACK_WEBHOOK_URL', webhook: 'WEBHOOK_URL' }[options.channel]}`,
    );
  }
  const channels = createChannels(config, logger);
  try {
    return await Promise.all(
      targets.map(async ({ channel, destination }) => {
        const shown = shownDestination(channel, destination);
        try {
          await channels[channel].sendTest(destination, randomUUID());
          return { channel, destination: shown, ok: true, error: null };
        } catch (error) {
          return {
            channel,
            destination: shown,
            ok: false,
            error: asDeliveryFailure(error).message,
          };
        }
      }),
    );
  } finally {
    await Promise.all(Object.values(channels).map((channel) => channel.close()));
  }
}
