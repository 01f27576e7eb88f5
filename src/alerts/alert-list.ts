import { recordAction, type Actor } from '../audit/operator-actions-repo.js';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import {
  ALERT_STATUSES,
  acknowledgeAlert,
  getAlert,
  listAlerts,
  type AlertRow,
  type AlertStatus,
  type DeliveryRow,
} from './alerts-repo.js';
import { getServer } from '../registry/servers-repo.js';
import { shownDestination } from '../config/alert-url.js';

export interface DeliveryView {
  id: number;
  channel: DeliveryRow['channel'];
  /** An email address, or a Slack / webhook URL with its secret path masked. */
  destination: string;
  status: DeliveryRow['status'];
  attempts: number;
  lastError: string | null;
  /** When it is tried next; null once it is no longer pending. */
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  /** The alert whose message this delivery went out in, when it joined a digest. */
  digestOf: number | null;
  /** The Message-ID / X-Mcp-Drift-Delivery value, the same on every try. */
  key: string;
}

export interface AlertListItem {
  id: number;
  server: string;
  changeId: number;
  severity: AlertRow['severity'];
  status: AlertStatus;
  createdAt: string;
  acknowledgedAt: string | null;
  deliveries: DeliveryView[];
}

export function checkAlertStatus(status: string): AlertStatus {
  if (!(ALERT_STATUSES as readonly string[]).includes(status)) {
    throw new DriftError(
      'USAGE',
      `invalid --status "${status}": use one of ${ALERT_STATUSES.join(', ')}`,
    );
  }
  return status as AlertStatus;
}

/**
 * The outbox, newest first, optionally only the alerts in one status, of one server, or
 * older than `before` (the next page): each alert with the state of every delivery, so
 * that a recipient refused for good, or a Slack channel that keeps failing, is in plain
 * view beside the deliveries that went through.
 */
export async function listAlertViews(
  db: Database,
  options: { status?: AlertStatus; limit: number; before?: number; server?: string },
): Promise<{ alerts: AlertListItem[] }> {
  const serverId =
    options.server === undefined ? undefined : (await getServer(db, options.server)).id;
  const rows = await listAlerts(db, {
    status: options.status,
    limit: options.limit,
    before: options.before,
    serverId,
  });
  const alertOfDelivery = new Map(
    rows.flatMap((row) => row.deliveries.map((delivery) => [delivery.id, row.id] as const)),
  );
  return {
    alerts: rows.map((row) => ({
      id: row.id,
      server: row.server,
      changeId: row.changeId,
      severity: row.severity,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
      acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null,
      deliveries: row.deliveries.map((delivery) => ({
        id: delivery.id,
        channel: delivery.channel,
        destination: shownDestination(delivery.channel, delivery.destination),
        status: delivery.status,
        attempts: delivery.attempts,
        lastError: delivery.lastError,
        nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
        deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
        digestOf:
          delivery.digestOf === null ? null : (alertOfDelivery.get(delivery.digestOf) ?? null),
        key: delivery.key,
      })),
    })),
  };
}

/**
 * An operator has seen an alert (with a digest's first alert, the whole message).
 * Answers with the ids acknowledged now: none when they already were. With an `actor`, an
 * acknowledgement that changed anything is recorded (operator_actions) with it.
 */
export async function acknowledge(
  db: Database,
  id: number,
  options: { actor?: Actor } = {},
): Promise<{ acknowledged: number[] }> {
  return db.transaction(async (tx) => {
    const alert = await getAlert(tx, id);
    const acknowledged = (await acknowledgeAlert(tx, id)).map((row) => row.id);
    if (options.actor && acknowledged.length > 0) {
      await recordAction(tx, options.actor, {
        action: 'alert.ack',
        server: alert.server,
        subject: String(id),
        detail: { acknowledged },
      });
    }
    return { acknowledged };
  });
}
