import { CHANNELS, type ChannelName } from '../vocabulary/channels.js';
import type { Config } from '../config/schema.js';
import type { ServerRow } from '../db/schema.js';
import { severityAtLeast, type ChangeSeverity, type Severity } from '../diff/index.js';

/** One channel's global settings: who hears everything, and from which severity on. */
export interface ChannelPolicy {
  minSeverity: Severity;
  /** Email addresses, or the one Slack / webhook URL; empty when the channel is not set. */
  destinations: readonly string[];
}

/** Who hears about which changes (docs/design.md §8): the global settings a change is judged by. */
export interface AlertPolicy {
  channels: Record<ChannelName, ChannelPolicy>;
  /** Changes of one server within this window go out as one digest; 0 sends each at once. */
  digestSeconds: number;
}

export function alertPolicyOf(config: Config): AlertPolicy {
  const url = (value: string | undefined) => (value === undefined ? [] : [value]);
  return {
    channels: {
      email: { minSeverity: config.ALERT_MIN_SEVERITY, destinations: config.ALERT_TO },
      slack: {
        minSeverity: config.SLACK_MIN_SEVERITY,
        destinations: url(config.SLACK_WEBHOOK_URL),
      },
      webhook: { minSeverity: config.WEBHOOK_MIN_SEVERITY, destinations: url(config.WEBHOOK_URL) },
    },
    digestSeconds: config.DIGEST_SECONDS,
  };
}

/** The policy of the tests and benches that only mail: email to these, no other channel. */
export function emailOnlyPolicy(
  recipients: readonly string[],
  options: { minSeverity?: Severity; digestSeconds?: number } = {},
): AlertPolicy {
  const minSeverity = options.minSeverity ?? 'medium';
  return {
    channels: {
      email: { minSeverity, destinations: recipients },
      slack: { minSeverity, destinations: [] },
      webhook: { minSeverity, destinations: [] },
    },
    digestSeconds: options.digestSeconds ?? 0,
  };
}

export type ServerAlertFields = Pick<
  ServerRow,
  'notify' | 'slackUrl' | 'webhookUrl' | 'alertMinSeverity'
>;

export interface Destination {
  channel: ChannelName;
  destination: string;
}

export interface AlertDecision {
  severity: Severity;
  /** Empty: nobody to tell. The alert is still recorded, as `undeliverable`. */
  destinations: Destination[];
}

/** The destinations of one channel for one server: the global ones plus the server's own. */
export function channelDestinations(
  policy: AlertPolicy,
  server: ServerAlertFields,
  channel: ChannelName,
): string[] {
  const own =
    channel === 'email'
      ? server.notify
      : channel === 'slack'
        ? server.slackUrl === null
          ? []
          : [server.slackUrl]
        : server.webhookUrl === null
          ? []
          : [server.webhookUrl];
  return [...new Set([...policy.channels[channel].destinations, ...own])];
}

/**
 * A channel's minimum for this server: the server's `--alert-min-severity` when it has one
 * (the most specific setting wins on every channel), else the channel's own.
 */
export function channelMinimum(
  policy: AlertPolicy,
  server: ServerAlertFields,
  channel: ChannelName,
): Severity {
  return server.alertMinSeverity ?? policy.channels[channel].minSeverity;
}

/**
 * Whether a change of `server` with this severity is alerted, and to whom: every channel
 * destination whose minimum it reaches. A change is alerted when it reaches the minimum of
 * some channel that has a destination; when no channel has one, when it reaches the email
 * minimum, with no destinations: then the alert is recorded as `undeliverable`, visible in
 * `alerts list` and to `alerts retry`, instead of being dropped unseen.
 */
export function decideAlert(
  policy: AlertPolicy,
  server: ServerAlertFields,
  severity: ChangeSeverity,
): AlertDecision | null {
  if (severity === 'none') return null;
  const configured = CHANNELS.map((channel) => ({
    channel,
    destinations: channelDestinations(policy, server, channel),
    minimum: channelMinimum(policy, server, channel),
  })).filter((entry) => entry.destinations.length > 0);
  if (configured.length === 0) {
    const minimum = channelMinimum(policy, server, 'email');
    return severityAtLeast(severity, minimum) ? { severity, destinations: [] } : null;
  }
  const destinations = configured
    .filter((entry) => severityAtLeast(severity, entry.minimum))
    .flatMap((entry) =>
      entry.destinations.map((destination) => ({ channel: entry.channel, destination })),
    );
  return destinations.length === 0 ? null : { severity, destinations };
}
