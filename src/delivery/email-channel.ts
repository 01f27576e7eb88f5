import type { Channel } from './channel.js';
import { DELIVERY_HEADER, messageIdOf } from './channel.js';
import type { MailSender } from './mail-sender.js';
import { renderAlert } from '../alerts/render-alert.js';

/** Email: one message per recipient, over SMTP or into the .eml outbox. */
export function createEmailChannel(sender: MailSender, from: string): Channel {
  return {
    name: 'email',
    description: sender.destination,
    async send(message) {
      const { head } = message;
      const rendered = renderAlert({
        server: { name: message.server.name, trust: message.server.trust },
        alertId: head.alertId,
        changes: message.changes,
      });
      await sender.send({
        alertId: head.alertId,
        deliveryId: head.id,
        messageId: messageIdOf(head.key),
        from,
        to: [head.destination],
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        date: head.createdAt,
        headers: {
          'X-MCP-Drift-Server': message.server.name,
          'X-MCP-Drift-Severity': message.severity,
          'X-MCP-Drift-Alert': String(head.alertId),
          'X-MCP-Drift-Changes': message.changes.map((entry) => entry.change.id).join(','),
          [DELIVERY_HEADER]: head.key,
        },
      });
    },
    async sendTest(destination, key) {
      await sender.send({
        alertId: 0,
        deliveryId: 0,
        messageId: messageIdOf(key),
        from,
        to: [destination],
        subject: '[mcp-drift] test message',
        text: 'mcp-drift can reach you by email. Alerts about MCP servers will arrive like this.\n',
        html: '<p>mcp-drift can reach you by email. Alerts about MCP servers will arrive like this.</p>\n',
        date: new Date(),
        headers: { [DELIVERY_HEADER]: key },
      });
    },
    close: () => sender.close(),
  };
}
