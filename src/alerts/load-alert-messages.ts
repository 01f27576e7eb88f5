import {
  changesWithIds,
  findingsOfChanges,
  type ChangeRow,
  type FindingRow,
} from '../changes/changes-repo.js';
import type { Database } from '../db/client.js';
import type { ServerRow } from '../db/schema.js';
import { compareSeverity, type Severity } from '../diff/index.js';
import { serversWithIds } from '../registry/servers-repo.js';
import { digestMembers, type AlertRow } from './alerts-repo.js';

/** Everything one message is rendered from: its first alert, the digest's others, their changes. */
export interface AlertMessageParts {
  head: AlertRow;
  /** The head first, then the alerts that joined its digest, oldest first. */
  alerts: AlertRow[];
  server: ServerRow;
  changes: { change: ChangeRow; findings: FindingRow[] }[];
  severity: Severity;
  recipients: string[];
}

/**
 * Loads the messages of claimed alerts with one query per table, not per alert: the
 * dispatcher's throughput depends on it when a backlog drains.
 */
export async function loadAlertMessages(
  db: Database,
  heads: AlertRow[],
): Promise<AlertMessageParts[]> {
  if (heads.length === 0) return [];
  const members = await digestMembers(
    db,
    heads.map((head) => head.id),
  );
  const all = [...heads, ...members];
  const changeIds = all.map((alert) => alert.changeId);
  const [changeRows, findingRows, serverRows] = await Promise.all([
    changesWithIds(db, changeIds),
    findingsOfChanges(db, changeIds),
    serversWithIds(
      db,
      heads.map((head) => head.serverId),
    ),
  ]);
  const changeById = new Map(changeRows.map((row) => [row.id, row]));
  const serverById = new Map(serverRows.map((row) => [row.id, row]));
  // Map.groupBy needs Node 21.
  const findingsByChange = new Map<number, FindingRow[]>();
  for (const row of findingRows) {
    const list = findingsByChange.get(row.changeId);
    if (list) list.push(row);
    else findingsByChange.set(row.changeId, [row]);
  }
  return heads.map((head) => {
    const alerts = [head, ...members.filter((member) => member.digestOf === head.id)];
    return {
      head,
      alerts,
      server: serverById.get(head.serverId)!,
      changes: alerts
        .map((alert) => changeById.get(alert.changeId)!)
        .sort((a, b) => a.id - b.id)
        .map((change) => ({ change, findings: findingsByChange.get(change.id) ?? [] })),
      severity: alerts
        .map((alert) => alert.severity)
        .reduce((worst, severity) => (compareSeverity(severity, worst) > 0 ? severity : worst)),
      recipients: [...new Set(alerts.flatMap((alert) => alert.recipients))],
    };
  });
}
