import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import { findingJson } from '../diff/finding-json.js';
import { diffListings, type ChangeSeverity, type DiffResult, type Finding } from '../diff/index.js';
import { DriftError } from '../errors.js';
import { getBaseline, loadListing, serverVersionOf } from '../listings/listings-repo.js';
import { surfaceSummary, type SurfaceSummary } from '../listings/presentation.js';
import type { Surface } from '../vocabulary/surfaces.js';
import type { Logger } from '../log.js';
import { getServer } from '../registry/servers-repo.js';
import { otherServersTools } from './changes-repo.js';
import { observeServer } from './observe-server.js';

/** What `check` saw: the observation, the baseline it was compared with, the findings. */
export interface CheckReport {
  server: string;
  observation: {
    id: number;
    startedAt: string;
    durationMs: number;
    protocolVersion: string | null;
    serverInfo: unknown;
    pages: number | null;
    listingHash: string | null;
    toolCount: number;
    /** Each surface's hash and count; null when the server does not advertise it. */
    surfaces: Record<Surface, SurfaceSummary>;
  };
  baseline: {
    hash: string;
    approvedBy: string;
    approvedAt: string;
    /** This listing was the server's first, and became the baseline. */
    created: boolean;
  };
  /**
   * The change this observation recorded against the previous listing, if any; `fromHash`
   * null for a first listing recorded for its content findings.
   */
  change: { id: number; severity: ChangeSeverity; fromHash: string | null } | null;
  /** Against the baseline, not the previous listing. */
  severity: ChangeSeverity;
  findings: Finding[];
}

/**
 * Lists the server now, stores the observation (and any change since its previous
 * listing), and diffs against the approved baseline. The first successful listing becomes
 * the baseline. A failed listing is recorded and then thrown, with its own error code.
 */
export async function checkServer(
  db: Database,
  name: string,
  options: { config: Config; env: Environment; signal: AbortSignal; logger: Logger },
): Promise<CheckReport> {
  const server = await getServer(db, name);
  const recorded = await observeServer(db, server, {
    config: options.config,
    env: options.env,
    trigger: 'manual',
    signal: options.signal,
  });
  if (options.signal.aborted) {
    throw new DriftError('INTERRUPTED', `check ${server.name} interrupted; the server was closed`);
  }
  const observation = recorded.observation;
  options.logger.info(
    { server: server.name, outcome: observation.outcome, durationMs: observation.durationMs },
    'checked',
  );
  if (!recorded.listing) {
    throw new DriftError(
      (observation.errorCode as DriftError['code'] | null) ?? 'REMOTE_PROTOCOL',
      `check ${server.name}: ${observation.errorMessage} (recorded as observation ${observation.id})`,
    );
  }
  // recordObservation sets a baseline with the first listing, so there always is one here.
  const baseline = (await getBaseline(db, server.id))!;
  const version = observation.serverInfo?.['version'];
  // A first listing is its own baseline: what it says is what its content checks found.
  const diff: DiffResult =
    recorded.change?.row.fromHash === null
      ? recorded.change.diff
      : diffListings(await loadListing(db, baseline.listingHash), recorded.listing, {
          trust: server.trust,
          server: server.name,
          otherServerTools: await otherServersTools(db, server.id),
          before: { serverVersion: await serverVersionOf(db, server.id, baseline.listingHash) },
          after: { serverVersion: typeof version === 'string' ? version : null },
        });
  return {
    server: server.name,
    observation: {
      id: observation.id,
      // This attempt's start: the run it extended may have started long before.
      startedAt: observation.lastSeenAt.toISOString(),
      durationMs: observation.durationMs,
      protocolVersion: observation.protocolVersion,
      serverInfo: observation.serverInfo,
      pages: observation.pages,
      listingHash: observation.listingHash,
      toolCount: recorded.listing.tools.length,
      surfaces: surfaceSummary(recorded.listing),
    },
    baseline: {
      hash: baseline.listingHash,
      approvedBy: baseline.approvedBy,
      approvedAt: baseline.approvedAt.toISOString(),
      created: recorded.previousHash === null && baseline.listingHash === recorded.listing.hash,
    },
    change: recorded.change
      ? {
          id: recorded.change.row.id,
          severity: recorded.change.row.severity,
          fromHash: recorded.change.row.fromHash,
        }
      : null,
    severity: diff.severity,
    findings: diff.findings.map(findingJson),
  };
}
