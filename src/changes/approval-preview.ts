import type { Database } from '../db/client.js';
import type { ChangeSeverity } from '../diff/index.js';
import { getBaseline, latestOkObservation, listingSpan } from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';
import {
  alertsUpToListing,
  baselineApprover,
  candidateListing,
  type Approver,
} from './baseline.js';
import { diffServerListings, type AcceptedFinding } from './baseline-drift.js';

export type { AcceptedFinding } from './baseline-drift.js';

/**
 * What approving a listing accepts, shown before anything is written (the CLI's prompt, the
 * console's confirmation page): the baseline it replaces and who set it, the listing, and
 * every finding between the two (the diff baseline → listing, which is the whole drift
 * however many changes lie between them). JSON-ready.
 */
export interface ApprovalPreview {
  server: string;
  previous: {
    hash: string;
    approvedBy: string;
    approvedAt: string;
    /** Who approved it; null for the first listing, or an approval recorded before actors were. */
    approver: Approver | null;
    tools: number;
  } | null;
  candidate: {
    hash: string;
    tools: number;
    /** When this listing was first and last seen from the server. */
    firstObserved: string | null;
    lastObserved: string | null;
  };
  /**
   * The server's latest listing when the preview was made. A form built from the preview
   * carries it, and the approval is refused if the listing moved since (docs/console.md).
   */
  latest: string | null;
  /** The listing is the baseline already: approving changes nothing but its time. */
  alreadyBaseline: boolean;
  severity: ChangeSeverity;
  /** Worst tool first, then worst finding first. */
  findings: AcceptedFinding[];
  /** The unacknowledged alerts of changes up to this listing (what "and acknowledge" takes). */
  openAlerts: number[];
}

export async function previewApproval(
  db: Database,
  name: string,
  options: { listing?: string; exact?: boolean } = {},
): Promise<ApprovalPreview> {
  const server = await getServer(db, name);
  const hash = await candidateListing(db, server, options);
  const baseline = await getBaseline(db, server.id);
  const diff = await diffServerListings(db, server, baseline?.listingHash ?? hash, hash);
  const span = await listingSpan(db, server.id, hash);
  const latest = (await latestOkObservation(db, server.id))?.listingHash ?? null;
  return {
    server: server.name,
    previous: baseline
      ? {
          hash: baseline.listingHash,
          approvedBy: baseline.approvedBy,
          approvedAt: baseline.approvedAt.toISOString(),
          approver: await baselineApprover(db, server.name, baseline),
          tools: diff.tools.from,
        }
      : null,
    candidate: {
      hash,
      tools: diff.tools.to,
      firstObserved: span.firstObserved,
      lastObserved: span.lastObserved,
    },
    latest,
    alreadyBaseline: baseline?.listingHash === hash,
    severity: diff.severity,
    findings: diff.findings,
    openAlerts: await alertsUpToListing(db, server.id, hash),
  };
}
