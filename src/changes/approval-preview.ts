import { headline } from '../alerts/alert-view.js';
import type { Database } from '../db/client.js';
import { findingJson } from '../diff/finding-json.js';
import { groupFindingsByTool } from '../diff/group-findings.js';
import { diffListings, type ChangeSeverity, type Finding } from '../diff/index.js';
import type { RawTool } from '../listings/canonical.js';
import {
  getBaseline,
  latestOkObservation,
  listingSpan,
  listingsByHash,
} from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';
import {
  alertsUpToListing,
  baselineApprover,
  candidateListing,
  type Approver,
} from './baseline.js';

/** A finding an approval accepts, with the one line that names it. */
export type AcceptedFinding = Finding & { headline: string };

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
  const bodies = await listingsByHash(
    db,
    [hash, baseline?.listingHash].filter((value): value is string => value !== undefined),
  );
  const toolsOf = (key: string | undefined): RawTool[] =>
    (key === undefined ? undefined : bodies.get(key)) ?? [];
  const alreadyBaseline = baseline?.listingHash === hash;
  const diff =
    baseline && !alreadyBaseline
      ? diffListings(toolsOf(baseline.listingHash), toolsOf(hash), {
          trust: server.trust,
          server: server.name,
        })
      : { severity: 'none' as const, findings: [] };
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
          tools: toolsOf(baseline.listingHash).length,
        }
      : null,
    candidate: {
      hash,
      tools: toolsOf(hash).length,
      firstObserved: span.firstObserved,
      lastObserved: span.lastObserved,
    },
    latest,
    alreadyBaseline,
    severity: diff.severity,
    findings: groupFindingsByTool(diff.findings).flatMap((group) =>
      group.findings.map((finding) => ({
        ...findingJson(finding),
        headline: headline({
          tool: finding.tool,
          field: finding.field ?? null,
          kind: finding.kind,
          before: finding.before ?? null,
          after: finding.after ?? null,
          record: finding.record as unknown as Record<string, unknown>,
        }),
      })),
    ),
    openAlerts: await alertsUpToListing(db, server.id, hash),
  };
}
