import type { Channel } from './channel.js';
import { DELIVERY_HEADER } from './channel.js';
import { postJson } from './http-post.js';
import { renderSlack, renderSlackTest } from '../alerts/render-slack.js';

/** Slack: a Block Kit message POSTed to an incoming-webhook URL. */
export function createSlackChannel(options: { timeoutMs: number }): Channel {
  return {
    name: 'slack',
    description: 'Slack incoming webhooks',
    async send(message) {
      const body = renderSlack({
        server: { name: message.server.name, trust: message.server.trust },
        alertId: message.head.alertId,
        changes: message.changes,
      });
      // Slack ignores the header; a relay in between may use it to drop a resend.
      await postJson(
        message.head.destination,
        JSON.stringify(body),
        { [DELIVERY_HEADER]: message.head.key },
        options.timeoutMs,
      );
    },
    async sendTest(destination, key) {
      await postJson(
        destination,
        JSON.stringify(renderSlackTest()),
        { [DELIVERY_HEADER]: key },
        options.timeoutMs,
      );
    },
    async close() {},
  };
}
