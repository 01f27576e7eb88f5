import { changesWithIds, findingsOfChanges } from '../changes/changes-repo.js';
import type { Database } from '../db/client.js';
import type { AlertRow, ChangeRow, DeliveryRow, FindingRow, ServerRow } from '../db/schema.js';
import { compareSeverity, type Severity } from '../diff/index.js';
import { serversWithIds } from '../registry/servers-repo.js';
import { alertsWithIds } from '../alerts/alerts-repo.js';
import { digestMembers } from '../alerts/deliveries-repo.js';

/** Everything one message is rendered from: its first delivery, the digest's others, their changes. */
export interface DeliveryMessage {
  head: DeliveryRow;
  /** The head first, then the deliveries that joined its digest, oldest first. */
  deliveries: DeliveryRow[];
  /** The head's alert first, then the members' alerts, in the same order. */
  alerts: AlertRow[];
  server: ServerRow;
  changes: { change: ChangeRow; findings: FindingRow[] }[];
  severity: Severity;
}

function groupBy<T, K>(rows: readonly T[], keyOf: (row: T) => K): Map<K, T[]> {
  // Map.groupBy needs Node 21.
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/**
 * Loads the messages of claimed deliveries with one query per table, not per delivery:
 * the dispatcher's throughput depends on it when a backlog drains.
 */
export async function loadDeliveryMessages(
  db: Database,
  heads: DeliveryRow[],
): Promise<DeliveryMessage[]> {
  if (heads.length === 0) return [];
  const members = await digestMembers(
    db,
    heads.map((head) => head.id),
  );
  const alertIds = [...new Set([...heads, ...members].map((delivery) => delivery.alertId))];
  const alertRows = await alertsWithIds(db, alertIds);
  const changeIds = alertRows.map((alert) => alert.changeId);
  const [changeRows, findingRows, serverRows] = await Promise.all([
    changesWithIds(db, changeIds),
    findingsOfChanges(db, changeIds),
    serversWithIds(
      db,
      heads.map((head) => head.serverId),
    ),
  ]);
  const alertById = new Map(alertRows.map((row) => [row.id, row]));
  const changeById = new Map(changeRows.map((row) => [row.id, row]));
  const serverById = new Map(serverRows.map((row) => [row.id, row]));
  const findingsByChange = groupBy(findingRows, (row) => row.changeId);
  const membersByHead = groupBy(members, (row) => row.digestOf);
  return heads.map((head) => {
    const rows = [head, ...(membersByHead.get(head.id) ?? [])];
    const messageAlerts = rows.map((delivery) => alertById.get(delivery.alertId)!);
    return {
      head,
      deliveries: rows,
      alerts: messageAlerts,
      server: serverById.get(head.serverId)!,
      changes: messageAlerts
        .map((alert) => changeById.get(alert.changeId)!)
        .sort((a, b) => a.id - b.id)
        .map((change) => ({ change, findings: findingsByChange.get(change.id) ?? [] })),
      severity: messageAlerts
        .map((alert) => alert.severity)
        .reduce((worst, severity) => (compareSeverity(severity, worst) > 0 ? severity : worst)),
    };
  });
}
