import type { Database } from '../db/client.js';
import { groupFindingsByTool, type FindingGroup } from '../diff/group-findings.js';
import { diffListings, type ChangeSeverity, type Finding } from '../diff/index.js';
import { compareToolSides, type ToolComparison } from '../diff/tool-comparison.js';
import type { RawTool } from '../listings/canonical.js';
import { getBaseline, latestOkObservation, listingsByHash } from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';
import { baselineApprover, type Approver } from './baseline.js';
import { showChange, type ChangeDetail } from './change-views.js';

/**
 * What a reviewer needs to read one change and approve its listing: the findings grouped
 * by tool, worst first; each changed tool side by side; and what an approval would accept,
 * which is the diff from the current baseline to this listing (the same as the change's
 * own when the baseline is the listing before it). JSON-ready.
 */
export interface ChangeReview {
  change: ChangeDetail['change'];
  groups: FindingGroup[];
  tools: ToolComparison[];
  approval: {
    server: string;
    /** The listing an approval accepts: the one this change arrived at. */
    listing: string;
    baseline: {
      hash: string;
      approvedBy: string;
      approvedAt: string;
      approver: Approver | null;
    } | null;
    /** This listing is the baseline already. */
    approved: boolean;
    /**
     * From the current baseline to this listing, when the baseline is neither this listing
     * nor the one before the change (then the change's own findings are not what an
     * approval accepts).
     */
    againstBaseline: { severity: ChangeSeverity; findings: Finding[] } | null;
    /** The server's latest listing, when it is not this one (a later change came since). */
    newerListing: string | null;
  };
}

export async function reviewChange(db: Database, id: number): Promise<ChangeReview> {
  const detail = await showChange(db, id);
  const { change } = detail;
  const server = await getServer(db, change.server);
  const baseline = await getBaseline(db, server.id);
  const latest = await latestOkObservation(db, server.id);
  const hashes = [change.fromHash, change.toHash, baseline?.listingHash].filter(
    (hash): hash is string => typeof hash === 'string',
  );
  const bodies = await listingsByHash(db, hashes);
  const toolsOf = (hash: string | null | undefined): RawTool[] =>
    (hash ? bodies.get(hash) : undefined) ?? [];
  const before = toolsOf(change.fromHash);
  const after = toolsOf(change.toHash);

  const groups = groupFindingsByTool(detail.findings);
  const tools: ToolComparison[] = [];
  for (const group of groups) {
    if (group.tool === null) continue;
    const renamedFrom = group.findings.find((finding) => finding.record?.renamedFrom)?.record
      .renamedFrom;
    tools.push(
      compareToolSides(
        group.tool,
        before.find((tool) => tool.name === (renamedFrom ?? group.tool)),
        after.find((tool) => tool.name === group.tool),
        { renamedFrom },
      ),
    );
  }

  const baselineHash = baseline?.listingHash ?? null;
  const againstBaseline =
    baselineHash !== null && baselineHash !== change.toHash && baselineHash !== change.fromHash
      ? diffListings(toolsOf(baselineHash), after, { trust: server.trust, server: server.name })
      : null;
  return {
    change,
    groups,
    tools,
    approval: {
      server: server.name,
      listing: change.toHash,
      baseline: baseline
        ? {
            hash: baseline.listingHash,
            approvedBy: baseline.approvedBy,
            approvedAt: baseline.approvedAt.toISOString(),
            approver: await baselineApprover(db, server.name, baseline),
          }
        : null,
      approved: baselineHash === change.toHash,
      againstBaseline: againstBaseline
        ? { severity: againstBaseline.severity, findings: againstBaseline.findings }
        : null,
      newerListing:
        latest?.listingHash && latest.listingHash !== change.toHash ? latest.listingHash : null,
    },
  };
}
