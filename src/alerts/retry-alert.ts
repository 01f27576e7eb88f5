import { recordAction, type Actor } from '../audit/operator-actions-repo.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import { findServerById } from '../registry/servers-repo.js';
import { alertPolicyOf, decideAlert } from './alert-policy.js';
import { getAlert, type DeliveryRow } from './alerts-repo.js';
import { addDeliveries, requeueFailed } from './deliveries-repo.js';

export interface RetryResult {
  alertId: number;
  /** The deliveries now pending again (or new, for an alert that was undeliverable). */
  queued: DeliveryRow[];
}

/**
 * `alerts retry ID`: sends a failed or undeliverable alert again once the cause is fixed.
 * Failed deliveries go back in the outbox, due now, with a fresh count of attempts; an
 * undeliverable alert gets the destinations that the configuration (of the process
 * calling this) and the server's registration name now. A running `serve` sends them.
 */
export async function retryAlert(
  db: Database,
  config: Config,
  id: number,
  options: { actor?: Actor } = {},
): Promise<RetryResult> {
  return db.transaction(async (tx) => {
    const result = await queueAgain(tx, config, id);
    if (options.actor && result.queued.length > 0) {
      await recordAction(tx, options.actor, {
        action: 'alert.retry',
        server: result.server,
        subject: String(id),
        detail: { queued: result.queued.map((row) => row.id) },
      });
    }
    return { alertId: result.alertId, queued: result.queued };
  });
}

async function queueAgain(
  tx: Database,
  config: Config,
  id: number,
): Promise<RetryResult & { server: string }> {
  const alert = await getAlert(tx, id);
  if (alert.status === 'acknowledged') {
    throw new DriftError('INVALID_INPUT', `alert ${id} was acknowledged; it is not sent again`);
  }
  if (alert.status === 'undeliverable') {
    const server = await findServerById(tx, alert.serverId);
    const decision = decideAlert(alertPolicyOf(config), server!, alert.severity);
    if (!decision || decision.destinations.length === 0) {
      throw new DriftError(
        'CONFIG_INVALID',
        `alert ${id} still has nobody to go to: set ALERT_TO, SLACK_WEBHOOK_URL or WEBHOOK_URL, or give server ${alert.server} --notify, --slack or --webhook`,
      );
    }
    return {
      alertId: id,
      server: alert.server,
      queued: await addDeliveries(tx, alert, decision.destinations),
    };
  }
  return { alertId: id, server: alert.server, queued: await requeueFailed(tx, id) };
}
