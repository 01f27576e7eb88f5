import nodemailer from 'nodemailer';
import { DeliveryFailure, oneLine } from './delivery-failure.js';
import { mailOptionsOf, type MailSender } from './mail-sender.js';

/** Connections the pool keeps open to the SMTP server; messages queue for them. */
const MAX_CONNECTIONS = 5;

/**
 * Sends over SMTP_URL (`smtp://` or `smtps://`, optional `user:password@`) through a
 * nodemailer connection pool. The timeouts are far below nodemailer's defaults (two
 * minutes to connect) so that an unreachable server costs a retry, not a stalled outbox.
 */
export function createSmtpSender(
  smtpUrl: string,
  options: { timeoutMs?: number } = {},
): MailSender {
  // Every wait stays below the delivery's claim, so a slow server cannot make two
  // dispatchers send the same message.
  const wait = (ms: number) => Math.min(ms, options.timeoutMs ?? ms);
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: MAX_CONNECTIONS,
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth: url.username
      ? {
          user: decodeURIComponent(url.username),
          pass: decodeURIComponent(url.password),
        }
      : undefined,
    connectionTimeout: wait(10_000),
    greetingTimeout: wait(10_000),
    socketTimeout: wait(60_000),
  });
  return {
    destination: `smtp${secure ? 's' : ''}://${url.host}`,
    async send(message) {
      let info: { rejected?: unknown[]; rejectedErrors?: unknown[] };
      try {
        info = await transport.sendMail(mailOptionsOf(message));
      } catch (error) {
        throw smtpFailure(error);
      }
      // A message with several recipients succeeds when any of them is accepted; those
      // refused at RCPT are only listed. Deliveries have one recipient each, but a refused
      // one must never pass as delivered.
      if (info.rejected !== undefined && info.rejected.length > 0) {
        throw smtpFailure(info.rejectedErrors?.[0] ?? new Error('recipient refused'));
      }
    },
    async close() {
      transport.close();
    },
  };
}

/**
 * SMTP 5xx replies are final (RFC 5321 §4.2.1), at RCPT as anywhere; a 4xx (451, "try
 * later") and every connection problem may pass on a later try.
 */
function smtpFailure(error: unknown): DeliveryFailure {
  const details = error as { code?: string; responseCode?: number; message?: string };
  const permanent =
    typeof details.responseCode === 'number' &&
    details.responseCode >= 500 &&
    details.responseCode < 600;
  // Stored as last_error and shown in one table cell of `alerts list`.
  const reason = oneLine(
    [details.code, details.message ?? String(error)].filter((part) => part).join(': '),
  );
  return new DeliveryFailure(reason, permanent, { cause: error });
}
