/**
 * The alert channels, declared once: the config schema, the alert policy, the dispatcher, the
 * metrics and the CLI all take the list and its type from here.
 */
export const CHANNELS = ['email', 'slack', 'webhook'] as const;
export type ChannelName = (typeof CHANNELS)[number];

/** `cancelled`: the alert was acknowledged before this delivery went out. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
