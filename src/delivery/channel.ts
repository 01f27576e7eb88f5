import type { ChannelName } from '../vocabulary/channels.js';
import type { DeliveryMessage } from './load-delivery-messages.js';

/**
 * One way of telling someone: renders a message for its medium from the channel-neutral
 * parts and sends it to one destination. Throws a DeliveryFailure when it was not
 * delivered; the dispatcher decides from it whether and when to try again.
 */
export interface Channel {
  readonly name: ChannelName;
  /** For logs: how messages go (the SMTP server, the outbox directory), without secrets. */
  readonly description: string;
  send(message: DeliveryMessage): Promise<void>;
  /** A short message saying that this channel works, for `alerts test`. */
  sendTest(destination: string, key: string): Promise<void>;
  close(): Promise<void>;
}

/** The Message-ID of an email delivery: its key, which stays the same across retries. */
export function messageIdOf(key: string): string {
  return `<${key}@mcp-drift>`;
}

/** The header carrying a delivery's key on every channel, stable across retries. */
export const DELIVERY_HEADER = 'X-Mcp-Drift-Delivery';
