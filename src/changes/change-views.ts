import type { Database } from '../db/client.js';
import { findingJson } from '../diff/finding-json.js';
import type { ChangeSeverity, Finding } from '../diff/index.js';
import type { InterpretationRecord } from '../diff/types.js';
import { getServer } from '../registry/servers-repo.js';
import { getChange, listChanges, type FindingRow } from './changes-repo.js';

export interface ChangeView {
  id: number;
  server: string;
  detectedAt: string;
  severity: ChangeSeverity;
  /** null: the server's first listing, recorded for its content findings. */
  fromHash: string | null;
  toHash: string;
  /** null: no held session could have received a notification. */
  notificationSeen: boolean | null;
}

/** Recorded changes, newest first, of every server or of the one named. */
export async function listChangeViews(
  db: Database,
  options: { server?: string; limit: number },
): Promise<{ changes: ChangeView[] }> {
  const serverId =
    options.server === undefined ? undefined : (await getServer(db, options.server)).id;
  const rows = await listChanges(db, { serverId, limit: options.limit });
  return {
    changes: rows.map((row) => ({
      id: row.id,
      server: row.server,
      detectedAt: row.detectedAt.toISOString(),
      severity: row.severity,
      fromHash: row.fromHash,
      toHash: row.toHash,
      notificationSeen: row.notificationSeen,
    })),
  };
}

export interface ChangeDetail {
  change: ChangeView & { observationId: number; exposure: unknown };
  findings: Finding[];
}

/** One change with the full interpretation record of each of its findings. */
export async function showChange(db: Database, id: number): Promise<ChangeDetail> {
  const { change, findings } = await getChange(db, id);
  return {
    change: {
      id: change.id,
      server: change.server,
      detectedAt: change.detectedAt.toISOString(),
      severity: change.severity,
      fromHash: change.fromHash,
      toHash: change.toHash,
      observationId: change.observationId,
      notificationSeen: change.notificationSeen,
      exposure: change.exposure,
    },
    findings: findings.map((row) => findingJson(findingOf(row))),
  };
}

/** A stored finding as the diff produced it (absent before/after are stored as null). */
export function findingOf(row: FindingRow): Finding {
  return {
    tool: row.tool,
    kind: row.kind as Finding['kind'],
    severity: row.severity,
    ...(row.field === null ? {} : { field: row.field }),
    ...(row.before === null ? {} : { before: row.before }),
    ...(row.after === null ? {} : { after: row.after }),
    explanation: row.explanation,
    record: row.record as unknown as InterpretationRecord,
  };
}
