import { headline } from '../alerts/alert-view.js';
import type { Database } from '../db/client.js';
import type { ServerRow } from '../db/schema.js';
import { findingJson } from '../diff/finding-json.js';
import { groupFindingsByTool } from '../diff/group-findings.js';
import { diffListings, type ChangeSeverity, type Finding } from '../diff/index.js';
import type { RawTool } from '../listings/canonical.js';
import { NO_EXTRAS, type Presentation } from '../listings/presentation.js';
import { listingSpan, presentationsByHash } from '../listings/listings-repo.js';
import { baselineApprover, candidateListing, requireBaseline, type Approver } from './baseline.js';

/** A finding between the baseline and a listing, with the one line that names it. */
export type AcceptedFinding = Finding & { headline: string };

export interface ListingDiff {
  severity: ChangeSeverity;
  /** Worst tool first, then worst finding first. */
  findings: AcceptedFinding[];
  /** Tools in each listing. */
  tools: { from: number; to: number };
}

/**
 * The diff of two listings of a server graded as one change: every finding between them,
 * however many changes lie between, by the same rules as a recorded change
 * (docs/design.md §4). A relaxation made in two steps (a description edit, a later flip)
 * is one relaxation with a changed description here, and escalates as such.
 */
export async function diffServerListings(
  db: Database,
  server: Pick<ServerRow, 'name' | 'trust'>,
  fromHash: string,
  toHash: string,
): Promise<ListingDiff> {
  // Whole presentations, so drift in prompts, resources or instructions counts too.
  const bodies = await presentationsByHash(db, [fromHash, toHash]);
  const presentationOf = (hash: string): Presentation =>
    bodies.get(hash) ?? { tools: [], ...NO_EXTRAS };
  const toolsOf = (hash: string): RawTool[] => presentationOf(hash).tools;
  const diff =
    fromHash === toHash
      ? { severity: 'none' as const, findings: [] }
      : diffListings(presentationOf(fromHash), presentationOf(toHash), {
          trust: server.trust,
          server: server.name,
        });
  return {
    severity: diff.severity,
    findings: withHeadlines(diff.findings),
    tools: { from: toolsOf(fromHash).length, to: toolsOf(toHash).length },
  };
}

export function withHeadlines(findings: readonly Finding[]): AcceptedFinding[] {
  return groupFindingsByTool(findings).flatMap((group) =>
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
  );
}

/** `baseline diff NAME --json` and the server page's "drift since approval". JSON-ready. */
export interface BaselineDrift {
  server: string;
  baseline: {
    hash: string;
    approvedBy: string;
    approvedAt: string;
    approver: Approver | null;
    tools: number;
  };
  latest: {
    hash: string;
    tools: number;
    firstObserved: string | null;
    lastObserved: string | null;
  };
  /** The latest listing is the baseline: nothing has drifted. */
  atBaseline: boolean;
  severity: ChangeSeverity;
  findings: AcceptedFinding[];
}

/** The drift from the approved baseline to the server's latest listing, as one change. */
export async function driftSinceBaseline(db: Database, name: string): Promise<BaselineDrift> {
  const { server, baseline } = await requireBaseline(db, name);
  const latest = await candidateListing(db, server, {});
  const diff = await diffServerListings(db, server, baseline.listingHash, latest);
  const span = await listingSpan(db, server.id, latest);
  return {
    server: server.name,
    baseline: {
      hash: baseline.listingHash,
      approvedBy: baseline.approvedBy,
      approvedAt: baseline.approvedAt.toISOString(),
      approver: await baselineApprover(db, server.name, baseline),
      tools: diff.tools.from,
    },
    latest: {
      hash: latest,
      tools: diff.tools.to,
      firstObserved: span.firstObserved,
      lastObserved: span.lastObserved,
    },
    atBaseline: latest === baseline.listingHash,
    severity: diff.severity,
    findings: diff.findings,
  };
}
