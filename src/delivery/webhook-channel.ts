import type { Channel } from './channel.js';
import { DELIVERY_HEADER } from './channel.js';
import { DeliveryFailure } from './delivery-failure.js';
import { postJson } from './http-post.js';
import { renderWebhook, renderWebhookTest } from '../alerts/render-webhook.js';
import { SIGNATURE_HEADER, signWebhook } from './webhook-signature.js';

/** Webhooks: a signed JSON document, with a delivery key that stays across retries. */
export function createWebhookChannel(options: {
  secret: string | undefined;
  timeoutMs: number;
}): Channel {
  const post = async (url: string, key: string, document: object) => {
    if (options.secret === undefined) {
      throw new DeliveryFailure(
        'WEBHOOK_SECRET is not set: webhook deliveries are signed with it; set it, restart serve and run `mcp-drift alerts retry`',
        true,
      );
    }
    const body = JSON.stringify(document);
    await postJson(
      url,
      body,
      {
        [DELIVERY_HEADER]: key,
        [SIGNATURE_HEADER]: signWebhook(options.secret, body, Math.floor(Date.now() / 1000)),
      },
      options.timeoutMs,
    );
  };
  return {
    name: 'webhook',
    description: 'signed webhooks',
    async send(message) {
      const { head } = message;
      await post(
        head.destination,
        head.key,
        renderWebhook({
          server: { name: message.server.name, trust: message.server.trust },
          alertId: head.alertId,
          changes: message.changes,
          delivery: head.key,
        }),
      );
    },
    sendTest: (destination, key) => post(destination, key, renderWebhookTest(key)),
    async close() {},
  };
}
