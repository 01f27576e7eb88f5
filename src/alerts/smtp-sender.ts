import nodemailer from 'nodemailer';
import { mailOptionsOf, SendFailure, type MailSender } from './mail-sender.js';

/** Connections the pool keeps open to the SMTP server; messages queue for them. */
const MAX_CONNECTIONS = 5;

/**
 * Sends over SMTP_URL (`smtp://` or `smtps://`, optional `user:password@`) through a
 * nodemailer connection pool. The timeouts are far below nodemailer's defaults (two
 * minutes to connect) so that an unreachable server costs a retry, not a stalled outbox.
 */
export function createSmtpSender(smtpUrl: string): MailSender {
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
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
  });
  return {
    destination: `smtp${secure ? 's' : ''}://${url.host}`,
    async send(message) {
      if (message.to.length === 0) {
        throw new SendFailure(
          'no recipients: set ALERT_TO, or give the server --notify addresses',
          true,
        );
      }
      try {
        await transport.sendMail(mailOptionsOf(message));
      } catch (error) {
        throw smtpFailure(error);
      }
    },
    async close() {
      transport.close();
    },
  };
}

/** SMTP 5xx replies are final (RFC 5321 §4.2.1); the rest may pass on a later try. */
function smtpFailure(error: unknown): SendFailure {
  const details = error as { code?: string; responseCode?: number; message?: string };
  const permanent =
    typeof details.responseCode === 'number' &&
    details.responseCode >= 500 &&
    details.responseCode < 600;
  // Stored as last_error and shown in one table cell of `alerts list`.
  const reason = [details.code, details.message ?? String(error)]
    .filter((part) => part)
    .join(': ')
    .replace(/\s+/g, ' ')
    .trim();
  return new SendFailure(reason, permanent, { cause: error });
}
