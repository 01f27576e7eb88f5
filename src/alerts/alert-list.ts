import { acknowledgementsOf, recordAction, type Actor } from '../audit/operator-actions-repo.js';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import {
  ALERT_STATUSES,
  acknowledgeAlert,
  getAlert,
  listAlerts,
  openAlertsUpTo,
  type AlertRow,
  type AlertStatus,
  type DeliveryRow,
} from './alerts-repo.js';
import { getServer } from '../registry/servers-repo.js';
import { shownDestination } from '../config/alert-url.js';
import { SEVERITIES, severityAtLeast, type Severity } from '../diff/index.js';

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
  /** Who acknowledged it (the console login name, `api`, the CLI's user), when recorded. */
  acknowledgedBy: { actor: string; via: Actor['via'] } | null;
  deliveries: DeliveryView[];
}

/** What the outbox may be narrowed to; the console's pages, its API and the CLI share it. */
export interface AlertFilter {
  status?: AlertStatus;
  server?: string;
  /** Only alerts at least this severe. */
  minSeverity?: Severity;
  /** The next page: alerts with ids below this one. */
  before?: number;
  /** The alert of one change (a change has at most one). */
  changeId?: number;
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
  options: AlertFilter & { limit: number },
): Promise<{ alerts: AlertListItem[] }> {
  const serverId =
    options.server === undefined ? undefined : (await getServer(db, options.server)).id;
  const rows = await listAlerts(db, {
    status: options.status,
    limit: options.limit,
    before: options.before,
    serverId,
    severities:
      options.minSeverity === undefined
        ? undefined
        : SEVERITIES.filter((severity) => severityAtLeast(severity, options.minSeverity!)),
    changeId: options.changeId,
  });
  const acknowledgements = await acknowledgementsOf(
    db,
    rows.filter((row) => row.acknowledgedAt !== null).map((row) => row.id),
  );
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
      acknowledgedBy: byWhom(acknowledgements.get(row.id)),
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

const byWhom = (found: { actor: string; via: Actor['via'] } | undefined) =>
  found === undefined ? null : { actor: found.actor, via: found.via };

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

/**
 * Several alerts acknowledged at once (the console's outbox), each as `acknowledge` does it
 * and recorded as its own action, in one transaction: an unknown id acknowledges none.
 */
export async function acknowledgeAll(
  db: Database,
  ids: readonly number[],
  options: { actor?: Actor } = {},
): Promise<{ acknowledged: number[] }> {
  if (ids.length === 0) throw new DriftError('USAGE', 'choose at least one alert to acknowledge');
  return db.transaction(async (tx) => {
    const acknowledged = new Set<number>();
    for (const id of new Set(ids)) {
      for (const done of (await acknowledge(tx, id, options)).acknowledged) acknowledged.add(done);
    }
    return { acknowledged: [...acknowledged].sort((a, b) => a - b) };
  });
}

/**
 * Every alert of a server nobody has acknowledged yet (`alerts ack --server NAME`), as
 * acknowledgeAll does it. None open is not an error: the outbox is as asked.
 */
export async function acknowledgeOpen(
  db: Database,
  server: string,
  options: { actor?: Actor } = {},
): Promise<{ acknowledged: number[] }> {
  const ids = await openAlertsUpTo(db, (await getServer(db, server)).id);
  return ids.length === 0 ? { acknowledged: [] } : acknowledgeAll(db, ids, options);
}
