/** One rendered alert email to one recipient, ready for a mail transport. */
export interface MailMessage {
  /** The alert and the delivery the message is sent as (0 for a test); they name its .eml file. */
  alertId: number;
  deliveryId: number;
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

/** The message as nodemailer takes it: every field but the outbox rows' ids. */
export function mailOptionsOf(message: MailMessage): Omit<MailMessage, 'alertId' | 'deliveryId'> {
  const { alertId: _alertId, deliveryId: _deliveryId, ...options } = message;
  return options;
}

/**
 * Where alert emails go: an SMTP server, or .eml files in the outbox directory. `send`
 * throws a DeliveryFailure when the message was not accepted for its recipient.
 */
export interface MailSender {
  /** For logs: where messages go, without credentials. */
  readonly destination: string;
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
