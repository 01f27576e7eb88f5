import type { Database } from '../db/client.js';
import { findingJson } from '../diff/finding-json.js';
import { groupFindingsByTool } from '../diff/group-findings.js';
import {
  SEVERITIES,
  severityAtLeast,
  type ChangeSeverity,
  type Finding,
  type Severity,
} from '../diff/index.js';
import type { InterpretationRecord } from '../diff/types.js';
import { surfacesByHash } from '../listings/listings-repo.js';
import { movedSurfaces, type SurfaceSummaries } from '../listings/presentation.js';
import { getServer } from '../registry/servers-repo.js';
import type { Surface } from '../vocabulary/surfaces.js';
import type { FindingRow, SinceBaseline } from '../db/schema.js';
import { findingsOfChanges, getChange, listChanges } from './changes-repo.js';

export interface ChangeView {
  id: number;
  server: string;
  detectedAt: string;
  severity: ChangeSeverity;
  /** null: the server's first listing, recorded for its content findings. */
  fromHash: string | null;
  toHash: string;
  /** The surfaces whose hash moved ("tools", "instructions"…); empty for a first listing. */
  surfaces: Surface[];
  /** null: no held session could have received a notification. */
  notificationSeen: boolean | null;
}

export interface FeedFilter {
  server?: string;
  /** Only changes at least this severe. */
  minSeverity?: Severity;
  /** Only changes with a finding of this kind. */
  kind?: string;
  since?: Date;
  until?: Date;
  /** The next page: changes with ids below this one. */
  before?: number;
  limit: number;
}

export interface FeedItem extends ChangeView {
  /** The worst finding, as the change's one-line summary. */
  headline: { tool: string | null; kind: string; severity: Severity; explanation: string } | null;
  findings: number;
}

/**
 * The changes feed across servers (the console's, its API's), newest first, filtered; `next`
 * is the `before` of the following page, null on the last one. Two statements: the page of
 * changes, and their findings.
 */
export async function changeFeed(
  db: Database,
  filter: FeedFilter,
): Promise<{ changes: FeedItem[]; next: number | null }> {
  const serverId =
    filter.server === undefined ? undefined : (await getServer(db, filter.server)).id;
  const severities =
    filter.minSeverity === undefined
      ? undefined
      : SEVERITIES.filter((severity) => severityAtLeast(severity, filter.minSeverity!));
  const rows = await listChanges(db, {
    serverId,
    severities,
    kind: filter.kind,
    since: filter.since,
    until: filter.until,
    before: filter.before,
    limit: filter.limit + 1,
  });
  const page = rows.slice(0, filter.limit);
  const findings = await findingsOfChanges(
    db,
    page.map((row) => row.id),
  );
  const surfaces = await surfacesByHash(
    db,
    page.flatMap((row) => (row.fromHash === null ? [row.toHash] : [row.fromHash, row.toHash])),
  );
  return {
    changes: page.map((row) => {
      const own = findings.filter((finding) => finding.changeId === row.id).map(findingOf);
      const worst = groupFindingsByTool(own)[0]?.findings[0];
      return {
        id: row.id,
        server: row.server,
        detectedAt: row.detectedAt.toISOString(),
        severity: row.severity,
        fromHash: row.fromHash,
        toHash: row.toHash,
        surfaces: movedSurfaces(
          row.fromHash === null ? null : (surfaces.get(row.fromHash) ?? null),
          surfaces.get(row.toHash) ?? null,
        ),
        notificationSeen: row.notificationSeen,
        headline: worst
          ? {
              tool: worst.tool,
              kind: worst.kind,
              severity: worst.severity,
              explanation: worst.explanation,
            }
          : null,
        findings: own.length,
      };
    }),
    next: rows.length > filter.limit ? page.at(-1)!.id : null,
  };
}

export interface ChangeDetail {
  change: ChangeView & {
    observationId: number;
    exposure: unknown;
    /** The drift since the approved baseline when recorded, if that baseline was older. */
    sinceBaseline: SinceBaseline | null;
    /** Each surface of the listings before (null: none) and after, with hash and count. */
    listings: { before: SurfaceSummaries | null; after: SurfaceSummaries | null };
  };
  findings: Finding[];
}

/** One change with the full interpretation record of each of its findings. */
export async function showChange(db: Database, id: number): Promise<ChangeDetail> {
  const { change, findings } = await getChange(db, id);
  const surfaces = await surfacesByHash(
    db,
    change.fromHash === null ? [change.toHash] : [change.fromHash, change.toHash],
  );
  const before = change.fromHash === null ? null : (surfaces.get(change.fromHash) ?? null);
  const after = surfaces.get(change.toHash) ?? null;
  return {
    change: {
      id: change.id,
      server: change.server,
      detectedAt: change.detectedAt.toISOString(),
      severity: change.severity,
      fromHash: change.fromHash,
      toHash: change.toHash,
      surfaces: movedSurfaces(before, after),
      observationId: change.observationId,
      notificationSeen: change.notificationSeen,
      exposure: change.exposure,
      sinceBaseline: change.sinceBaseline,
      listings: { before, after },
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
