import type { Database } from '../db/client.js';
import type { ChangeSeverity } from '../diff/index.js';
import { recentObservations, type ObservationRow } from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';
import { changesOfObservations } from './changes-repo.js';

export interface HistoryEntry {
  id: number;
  startedAt: string;
  trigger: ObservationRow['trigger'];
  outcome: ObservationRow['outcome'];
  durationMs: number;
  listingHash: string | null;
  protocolVersion: string | null;
  error: { code: string | null; message: string | null } | null;
  /** The change this observation revealed, if it revealed one (fromHash null: a first listing). */
  change: { id: number; severity: ChangeSeverity; fromHash: string | null } | null;
}

/** A server's observations, newest first, each with the change it revealed. */
export async function serverHistory(
  db: Database,
  name: string,
  options: { limit: number },
): Promise<{ server: string; observations: HistoryEntry[] }> {
  const server = await getServer(db, name);
  const observations = await recentObservations(db, server.id, options.limit);
  const changes = await changesOfObservations(
    db,
    observations.map((observation) => observation.id),
  );
  const changeByObservation = new Map(changes.map((change) => [change.observationId, change]));
  return {
    server: server.name,
    observations: observations.map((observation) => {
      const change = changeByObservation.get(observation.id);
      return {
        id: observation.id,
        startedAt: observation.startedAt.toISOString(),
        trigger: observation.trigger,
        outcome: observation.outcome,
        durationMs: observation.durationMs,
        listingHash: observation.listingHash,
        protocolVersion: observation.protocolVersion,
        error:
          observation.outcome === 'error'
            ? { code: observation.errorCode, message: observation.errorMessage }
            : null,
        change: change
          ? { id: change.id, severity: change.severity, fromHash: change.fromHash }
          : null,
      };
    }),
  };
}
