import { backoffDelay, sleep } from '../watch/backoff.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import { claimDueAlerts, markFailed, markRetry, markSent } from './alerts-repo.js';
import { loadAlertMessages, type AlertMessageParts } from './load-alert-messages.js';
import { SendFailure, type MailSender } from './mail-sender.js';
import { renderAlert } from './render-alert.js';

export interface DispatcherOptions {
  from: string;
  /** Tries per message before it is marked failed. */
  maxAttempts: number;
  /** The first retry's wait; doubled per attempt up to retryMaxMs, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How often the outbox is looked at when it is empty. */
  pollMs: number;
  /** Messages claimed (and sent concurrently) per round. */
  batchSize: number;
  /**
   * A claimed message is not claimed again for this long: another worker resends it only
   * when this one died between claiming and recording the outcome.
   */
  leaseSeconds: number;
}

export const DEFAULT_DISPATCHER_OPTIONS = {
  retryMaxMs: 60 * 60 * 1000,
  pollMs: 1000,
  batchSize: 20,
  leaseSeconds: 120,
} satisfies Partial<DispatcherOptions>;

/** Stopping waits this long for messages in flight; the lease covers any it abandons. */
const STOP_GRACE_MS = 3000;

/**
 * Sends the outbox (design §9). Every `serve` runs one; on a shared PostgreSQL they split
 * the work through row locks and leases (claimDueAlerts). An alert leaves the outbox as
 * sent, or as failed after `maxAttempts` tries or a permanent refusal, never silently.
 */
export class AlertDispatcher {
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      db: Database;
      sender: MailSender;
      logger: Logger;
      options: DispatcherOptions;
    },
  ) {}

  /** Where messages go (the SMTP server or the outbox directory), for the start-up log line. */
  get destination(): string {
    return this.deps.sender.destination;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.loop) {
      await Promise.race([this.loop, sleep(STOP_GRACE_MS, new AbortController().signal)]);
    }
    await this.deps.sender.close();
  }

  /** One round: claims the due messages and sends them all. Returns how many it handled. */
  async dispatchDue(): Promise<number> {
    const messages = await this.claim(this.deps.options.batchSize);
    await Promise.all(messages.map((parts) => this.deliver(parts)));
    return messages.length;
  }

  private async claim(limit: number): Promise<AlertMessageParts[]> {
    const { db, options } = this.deps;
    const heads = await claimDueAlerts(db, { limit, leaseSeconds: options.leaseSeconds });
    return loadAlertMessages(db, heads);
  }

  /**
   * Keeps up to `batchSize` messages in flight, refilled while others are still sending:
   * a slow message does not hold back the ones claimed with it, and the SMTP pool stays
   * busy while a backlog drains.
   */
  private async run(): Promise<void> {
    const { options, logger } = this.deps;
    const inFlight = new Set<Promise<void>>();
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      const room = options.batchSize - inFlight.size;
      let claimed = 0;
      if (room > 0) {
        try {
          const messages = await this.claim(room);
          claimed = messages.length;
          failures = 0;
          for (const parts of messages) {
            const sending: Promise<void> = this.deliver(parts)
              .catch((error: unknown) => {
                // Recording the outcome failed (the database went away): the lease
                // brings the alert back, so this is worth a warning, not a crash.
                logger.warn({ err: error, alert: parts.head.id }, 'alert outcome not recorded');
              })
              .finally(() => inFlight.delete(sending));
            inFlight.add(sending);
          }
        } catch (error) {
          // The database is unreachable or a query failed: claimed alerts stay leased and
          // are retried when their lease ends, so waiting and trying again loses nothing.
          failures++;
          logger.warn({ err: error, failures }, 'alert dispatch round failed');
        }
      }
      if (failures > 0) {
        await sleep(
          backoffDelay(failures - 1, { initialMs: 1000, maxMs: 30_000 }),
          this.stopping.signal,
        );
      } else if (claimed === room) {
        // A backlog: more may be due. Claim again once half the slots are free, so that
        // claims (and the queries loading their messages) come in batches, not one by one.
        while (inFlight.size > options.batchSize / 2) await Promise.race(inFlight);
      } else {
        await sleep(options.pollMs, this.stopping.signal);
      }
    }
    await Promise.allSettled(inFlight);
  }

  private async deliver(parts: AlertMessageParts): Promise<void> {
    const { db, sender, logger, options } = this.deps;
    const { head } = parts;
    const log = logger.child({
      server: parts.server.name,
      alert: head.id,
      changes: parts.changes.map((entry) => entry.change.id),
    });
    let failure: SendFailure | undefined;
    try {
      const message = renderAlert({
        server: { name: parts.server.name, trust: parts.server.trust },
        alertId: head.id,
        changes: parts.changes,
      });
      await sender.send({
        alertId: head.id,
        messageId: head.messageId,
        from: options.from,
        to: parts.recipients,
        subject: message.subject,
        text: message.text,
        html: message.html,
        date: head.createdAt,
        headers: {
          'X-MCP-Drift-Server': parts.server.name,
          'X-MCP-Drift-Severity': parts.severity,
          'X-MCP-Drift-Alert': String(head.id),
          'X-MCP-Drift-Changes': parts.changes.map((entry) => entry.change.id).join(','),
        },
      });
    } catch (error) {
      failure =
        error instanceof SendFailure
          ? error
          : new SendFailure(error instanceof Error ? error.message : String(error), false, {
              cause: error,
            });
    }
    // Recording the outcome is outside the try: a database error here is not a failed
    // send. If it is lost, the lease expires and the message goes out again under the
    // same Message-ID, which mail clients show once.
    if (!failure) {
      await markSent(db, head.id);
      log.info(
        { severity: parts.severity, to: parts.recipients, attempt: head.attempts },
        'alert sent',
      );
      return;
    }
    if (failure.permanent || head.attempts >= options.maxAttempts) {
      await markFailed(db, head.id, failure.message);
      log.error({ attempts: head.attempts, reason: failure.message }, 'alert failed for good');
      return;
    }
    const delayMs = backoffDelay(head.attempts - 1, {
      initialMs: options.retryBaseMs,
      maxMs: options.retryMaxMs,
    });
    await markRetry(db, head.id, failure.message, delayMs);
    log.warn(
      { attempts: head.attempts, retryInMs: delayMs, reason: failure.message },
      'alert not sent; will retry',
    );
  }
}
