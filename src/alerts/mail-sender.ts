/** One rendered alert message, ready for a mail transport. */
export interface MailMessage {
  /** The outbox row the message is sent as; names its .eml file. */
  alertId: number;
  messageId: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** When the alert was queued: the Date header, so a resent message is the same message. */
  date: Date;
  headers: Record<string, string>;
}

/** The message as nodemailer takes it: every field but the outbox row's id. */
export function mailOptionsOf(message: MailMessage): Omit<MailMessage, 'alertId'> {
  const { alertId: _alertId, ...options } = message;
  return options;
}

/** Where alerts go: an SMTP server, or .eml files in the outbox directory. */
export interface MailSender {
  /** For logs: where messages go, without credentials. */
  readonly destination: string;
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/**
 * A send that failed. `permanent` failures (the server refused the message or its
 * recipients for good, SMTP 5xx) are not retried; everything else (connection refused,
 * timeouts, 4xx) is retried with backoff.
 */
export class SendFailure extends Error {
  readonly permanent: boolean;

  constructor(message: string, permanent: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SendFailure';
    this.permanent = permanent;
  }
}
