import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import {
  ALERT_STATUSES,
  acknowledgeAlert,
  listAlerts,
  type AlertRow,
  type AlertStatus,
} from './alerts-repo.js';

export interface AlertView {
  id: number;
  server: string;
  changeId: number;
  severity: AlertRow['severity'];
  status: AlertStatus;
  recipients: string[];
  /** The first alert of the digest this one went out with. */
  digestOf: number | null;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  /** Set while the alert is pending. */
  nextAttemptAt: string | null;
  sentAt: string | null;
  acknowledgedAt: string | null;
  messageId: string;
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

/** The outbox, newest first, optionally only the alerts in one status. */
export async function listAlertViews(
  db: Database,
  options: { status?: AlertStatus; limit: number },
): Promise<{ alerts: AlertView[] }> {
  const rows = await listAlerts(db, options);
  return {
    alerts: rows.map((row) => ({
      id: row.id,
      server: row.server,
      changeId: row.changeId,
      severity: row.severity,
      status: row.status,
      recipients: row.recipients,
      digestOf: row.digestOf,
      attempts: row.attempts,
      lastError: row.lastError,
      createdAt: row.createdAt.toISOString(),
      nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
      sentAt: row.sentAt?.toISOString() ?? null,
      acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null,
      messageId: row.messageId,
    })),
  };
}

/**
 * An operator has seen an alert (with a digest's first alert, the whole message).
 * Answers with the ids acknowledged now: none when they already were.
 */
export async function acknowledge(db: Database, id: number): Promise<{ acknowledged: number[] }> {
  return { acknowledged: (await acknowledgeAlert(db, id)).map((row) => row.id) };
}
