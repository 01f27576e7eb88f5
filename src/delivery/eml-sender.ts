import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '../log.js';
import { ensurePrivateDirectory, PRIVATE_FILE_MODE, warnMadePrivate } from '../private-files.js';
import { mailOptionsOf, type MailSender } from './mail-sender.js';

/**
 * The embedded default when no SMTP_URL is set: each email delivery becomes an RFC 5322
 * file in `MCP_DRIFT_HOME/outbox/`, named by its queue time, alert and delivery id, so a
 * retry rewrites the same file and a directory listing reads oldest first. Written to a temporary name and
 * renamed, so whoever watches the directory never reads half a message.
 */
export function createEmlSender(directory: string, logger: Logger): MailSender {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true });
  return {
    destination: directory,
    async send(message) {
      const info = await composer.sendMail({
        ...mailOptionsOf(message),
      });
      // Alerts quote tool descriptions and server names: for the operator's eyes only.
      const madePrivate = ensurePrivateDirectory(directory);
      if (madePrivate > 0) warnMadePrivate(logger, directory, madePrivate);
      const stamp = message.date
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z');
      const file = path.join(
        directory,
        // `alerts test` messages belong to no alert (id 0).
        message.alertId === 0
          ? `${stamp}-test-${message.messageId.replace(/[^A-Za-z0-9-]/g, '')}.eml`
          : `${stamp}-alert-${message.alertId}-${message.deliveryId}.eml`,
      );
      const partial = `${file}.partial`;
      await writeFile(partial, info.message as Buffer, { mode: PRIVATE_FILE_MODE });
      await rename(partial, file);
      logger.info({ file, subject: message.subject, to: message.to }, 'alert written');
    },
    async close() {},
  };
}
