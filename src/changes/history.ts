import type { Database } from '../db/client.js';
import type { ChangeSeverity } from '../diff/index.js';
import {
  observationsBefore,
  surfacesByHash,
  type ObservationRow,
} from '../listings/listings-repo.js';
import { movedSurfaces, type SurfaceSummaries } from '../listings/presentation.js';
import type { Surface } from '../vocabulary/surfaces.js';
import { getServer } from '../registry/servers-repo.js';
import { changesOfObservations } from './changes-repo.js';

type Trigger = ObservationRow['trigger'];

/** A run of a server's observations with one outcome (docs/history.md). */
export interface HistoryRun {
  /** The run's first observation's id (a change's observation is a run's first). */
  id: number;
  outcome: ObservationRow['outcome'];
  listingHash: string | null;
  /** Each surface of the run's listing, its hash and count (null when absent); null for an error run. */
  surfaces: SurfaceSummaries | null;
  error: { code: string | null; message: string | null } | null;
  /** Observations in the run. */
  count: number;
  firstSeenAt: string;
  lastSeenAt: string;
  /** How the run's first observation was triggered. */
  trigger: Trigger;
  /** Per trigger seen in the run, when its latest observation started. */
  triggers: Partial<Record<Trigger, string>>;
  /** The latest observation's. */
  durationMs: number;
  protocolVersion: string | null;
  /**
   * The change the run's first observation revealed (fromHash null: a first listing), with
   * the surfaces it moved ("tools", "instructions"…; empty for a first listing).
   */
  change: {
    id: number;
    severity: ChangeSeverity;
    fromHash: string | null;
    surfaces: Surface[];
  } | null;
}

/**
 * A server's observation runs, newest first, each with the change its first observation
 * revealed; with `before`, the page of those with smaller ids.
 */
export async function serverHistory(
  db: Database,
  name: string,
  options: { limit: number; before?: number },
): Promise<{ server: string; runs: HistoryRun[] }> {
  const server = await getServer(db, name);
  const rows = await observationsBefore(db, server.id, options);
  const changes = await changesOfObservations(
    db,
    rows.map((row) => row.id),
  );
  const changeByObservation = new Map(changes.map((change) => [change.observationId, change]));
  const surfaces = await surfacesByHash(db, [
    ...rows.flatMap((row) => (row.listingHash === null ? [] : [row.listingHash])),
    ...changes.flatMap((change) =>
      change.fromHash === null ? [change.toHash] : [change.fromHash, change.toHash],
    ),
  ]);
  const surfacesOf = (hash: string | null) => (hash === null ? null : (surfaces.get(hash) ?? null));
  return {
    server: server.name,
    runs: rows.map((row) => {
      const change = changeByObservation.get(row.id);
      return {
        id: row.id,
        outcome: row.outcome,
        listingHash: row.listingHash,
        surfaces: surfacesOf(row.listingHash),
        error: row.outcome === 'error' ? { code: row.errorCode, message: row.errorMessage } : null,
        count: row.count,
        firstSeenAt: row.startedAt.toISOString(),
        lastSeenAt: row.lastSeenAt.toISOString(),
        trigger: row.trigger,
        triggers: triggersOfRun(row),
        durationMs: row.durationMs,
        protocolVersion: row.protocolVersion,
        change: change
          ? {
              id: change.id,
              severity: change.severity,
              fromHash: change.fromHash,
              surfaces: movedSurfaces(surfacesOf(change.fromHash), surfacesOf(change.toHash)),
            }
          : null,
      };
    }),
  };
}

function triggersOfRun(row: ObservationRow): HistoryRun['triggers'] {
  const triggers: HistoryRun['triggers'] = {};
  const last: [Trigger, Date | null][] = [
    ['poll', row.lastPollAt],
    ['notification', row.lastNotificationAt],
    ['startup', row.lastStartupAt],
    ['manual', row.lastManualAt],
  ];
  for (const [trigger, at] of last) if (at) triggers[trigger] = at.toISOString();
  return triggers;
}
