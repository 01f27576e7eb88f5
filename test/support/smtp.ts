import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** RCPT TO addresses: who the message was really delivered to. */
  envelopeTo: string[];
  mail: ParsedMail;
  raw: string;
}

export interface TestSmtpServer {
  port: number;
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps every message it
 * accepts, parsed by mailparser. `port` may name a port to listen on: the tests that
 * start mail service late reuse the port they first found closed.
 * `rejectRecipients` answers RCPT TO with a permanent 550; `refuse` answers RCPT TO for
 * the addresses it names with the code given (550 for good, 451 "try later"), and may be
 * changed while the server runs.
 */
export async function startSmtpServer(
  options: { port?: number; rejectRecipients?: boolean; refuse?: Map<string, number> } = {},
): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = options.rejectRecipients ? 550 : options.refuse?.get(address.address);
      if (code !== undefined) {
        const error = new Error(
          code >= 500
            ? `mailbox ${address.address} unavailable`
            : `mailbox ${address.address} busy, try later`,
        ) as Error & { responseCode: number };
        error.responseCode = code;
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((mail) => {
            received.push({
              envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              mail,
              raw,
            });
            callback();
          })
          .catch(callback);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
