import { backoffDelay } from '../backoff.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import { Loop } from '../loop.js';
import type { ServiceEvents } from '../service-events.js';
import type { Channel } from './channel.js';
import { shownDestination } from '../config/alert-url.js';
import { claimDueDeliveries, markFailed, markRetry } from '../alerts/deliveries-repo.js';
import { DeliveredBatcher } from './delivered-batcher.js';
import { asDeliveryFailure } from './delivery-failure.js';
import { loadDeliveryMessages, type DeliveryMessage } from './load-delivery-messages.js';

export interface DispatcherOptions {
  /** Tries per delivery before it is marked failed. */
  maxAttempts: number;
  /** The first retry's wait; doubled per attempt up to retryMaxMs, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How often the outbox is looked at when it is empty. */
  pollMs: number;
  /** Deliveries in flight at once, per channel. */
  batchSize: number;
  /**
   * A claimed delivery is not claimed again for this long: another worker resends it only
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

/**
 * Sends one channel's deliveries (docs/design.md §9). Every `serve` runs one per channel, so a
 * channel that is down or slow holds up only its own deliveries; on a shared PostgreSQL
 * the dispatchers split the work through row locks and claims (claimDueDeliveries). A
 * delivery leaves the outbox as delivered, or as failed after `maxAttempts` tries or a
 * permanent refusal, never silently.
 */
export class ChannelDispatcher {
  private readonly loop: Loop;
  private readonly delivered: DeliveredBatcher;
  /** Sends in progress: stopping waits for them within the stop grace (loop.ts). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      db: Database;
      channel: Channel;
      logger: Logger;
      options: DispatcherOptions;
      events?: ServiceEvents;
    },
  ) {
    this.delivered = new DeliveredBatcher(deps.db);
    this.loop = new Loop({
      pass: () => this.pass(),
      // The database is unreachable or a query failed: claimed deliveries stay claimed and
      // come back when their claim ends, so waiting loses nothing.
      onError: (error, failures) => {
        deps.logger.warn({ err: error, failures }, 'alert dispatch round failed');
        return backoffDelay(failures - 1, { initialMs: 1000, maxMs: 30_000 });
      },
      drain: () => Promise.allSettled(this.inFlight),
    });
  }

  get channel(): Channel {
    return this.deps.channel;
  }

  start(): void {
    this.loop.start();
  }

  /** Sends still in flight after the stop grace are abandoned; their claims bring them back. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.deps.channel.close();
  }

  /** One round: claims the due deliveries and sends them all. Returns how many it handled. */
  async dispatchDue(): Promise<number> {
    const messages = await this.claim(this.deps.options.batchSize);
    await Promise.all(messages.map((message) => this.deliver(message)));
    return messages.length;
  }

  private async claim(limit: number): Promise<DeliveryMessage[]> {
    const { db, options, channel } = this.deps;
    const heads = await claimDueDeliveries(db, {
      channel: channel.name,
      limit,
      leaseSeconds: options.leaseSeconds,
    });
    return loadDeliveryMessages(db, heads);
  }

  /**
   * Keeps up to `batchSize` deliveries in flight, refilled while others are still sending:
   * a slow destination does not hold back the deliveries claimed with it, and the SMTP
   * pool stays busy while a backlog drains. Resolves with the wait before the next pass.
   */
  private async pass(): Promise<number> {
    const { options, logger } = this.deps;
    const inFlight = this.inFlight;
    const room = options.batchSize - inFlight.size;
    if (room > 0) {
      const messages = await this.claim(room);
      for (const message of messages) {
        const sending: Promise<void> = this.deliver(message)
          .catch((error: unknown) => {
            // Recording the outcome failed (the database went away): the claim
            // brings the delivery back, so this is worth a warning, not a crash.
            logger.warn({ err: error, delivery: message.head.id }, 'delivery outcome not recorded');
          })
          .finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
      if (messages.length < room) return options.pollMs;
    }
    // A backlog: more may be due. Claim again once half the slots are free, so that
    // claims (and the queries loading their messages) come in batches, not one by one.
    while (inFlight.size > options.batchSize / 2) await Promise.race(inFlight);
    return 0;
  }

  private async deliver(message: DeliveryMessage): Promise<void> {
    const { db, channel, logger, options } = this.deps;
    const { head } = message;
    const log = logger.child({
      server: message.server.name,
      channel: channel.name,
      to: shownDestination(channel.name, head.destination),
      delivery: head.id,
      alerts: message.alerts.map((alert) => alert.id),
    });
    let failure;
    try {
      await channel.send(message);
    } catch (error) {
      failure = asDeliveryFailure(error);
    }
    // Recording the outcome is outside the try: a database error here is not a failed
    // send. If it is lost, the claim runs out and the message goes out again with the
    // same key (Message-ID, X-Mcp-Drift-Delivery), which receivers can recognise.
    if (!failure) {
      await this.delivered.submit(head.id);
      log.info({ severity: message.severity, attempt: head.attempts }, 'alert delivered');
      this.deps.events?.emit('alert-delivered', {
        deliveryId: head.id,
        channel: channel.name,
        server: message.server.name,
        alertIds: message.alerts.map((alert) => alert.id),
        severity: message.severity,
      });
      return;
    }
    if (failure.permanent || head.attempts >= options.maxAttempts) {
      await markFailed(db, head.id, failure.message);
      log.error(
        { attempts: head.attempts, reason: failure.message },
        'alert delivery failed for good',
      );
      return;
    }
    const backoff = backoffDelay(head.attempts - 1, {
      initialMs: options.retryBaseMs,
      maxMs: options.retryMaxMs,
    });
    // The destination's own word on when to come back wins over our guess, within reason.
    const delayMs =
      failure.retryAfterMs === null ? backoff : Math.min(failure.retryAfterMs, options.retryMaxMs);
    await markRetry(db, head.id, failure.message, delayMs);
    log.warn(
      { attempts: head.attempts, retryInMs: delayMs, reason: failure.message },
      'alert not delivered; will retry',
    );
  }
}

/** The service's dispatchers, one per channel: started and stopped together. */
export class AlertDispatcher {
  constructor(readonly dispatchers: ChannelDispatcher[]) {}

  /** For the start-up log line: how each channel sends. */
  get destination(): Record<string, string> {
    return Object.fromEntries(
      this.dispatchers.map((dispatcher) => [
        dispatcher.channel.name,
        dispatcher.channel.description,
      ]),
    );
  }

  start(): void {
    for (const dispatcher of this.dispatchers) dispatcher.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.dispatchers.map((dispatcher) => dispatcher.stop()));
  }

  /** One round on every channel. */
  async dispatchDue(): Promise<number> {
    const counts = await Promise.all(
      this.dispatchers.map((dispatcher) => dispatcher.dispatchDue()),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }
}
