import { recentActions } from '../audit/operator-actions-repo.js';
import { baselineApprover, type Approver } from '../changes/baseline.js';
import { diffServerListings, type ListingDiff } from '../changes/baseline-drift.js';
import { changeFeed, type FeedItem } from '../changes/change-views.js';
import { serverHistory, type HistoryRun } from '../changes/history.js';
import { serverTimeline, type Timeline } from './timeline.js';
import type { Database } from '../db/client.js';
import { HINTS, readPosture, type DeclaredHint, type HintName } from '../diff/index.js';
import { DriftError } from '../errors.js';
import { latestRefusals } from '../gateway/gateway-refusals-repo.js';
import { getBaseline, loadListingTools } from '../listings/listings-repo.js';
import { findHeldSession } from '../watch/held-sessions-repo.js';
import { fleetView, type FleetServer } from './fleet.js';
import { serverView, type ServerView, type ViewDefaults } from '../registry/server-view.js';
import { getServer } from '../registry/servers-repo.js';

/**
 * Everything the console shows of one server (its page, `GET /api/v1/servers/NAME`): the
 * registration with secrets masked, its state as the fleet shows it, the held session, the
 * baseline's tools, the timeline, a page of its changes and one of its observations, and
 * what operators did to it. JSON-ready.
 */
export interface ServerDetail {
  registration: ServerView;
  state: FleetServer;
  heldSession: {
    worker: string;
    connectedAt: string;
    listingHash: string | null;
    listedAt: string | null;
    lastNotificationAt: string | null;
    listChangedAdvertised: boolean | null;
    /** It holds another listing than the latest one seen: its hosts gate on stale values. */
    stale: boolean;
  } | null;
  baseline: {
    hash: string;
    approvedBy: string;
    approvedAt: string;
    approver: Approver | null;
    tools: { name: string; description: string | null; hints: Record<HintName, DeclaredHint> }[];
  } | null;
  /**
   * The drift from the baseline to the latest listing, graded as one change (docs/console.md);
   * null while the latest listing is the baseline.
   */
  driftSinceApproval: (Omit<ListingDiff, 'tools'> & { latest: string }) | null;
  timeline: Timeline;
  changes: { items: FeedItem[]; next: number | null };
  observations: { items: HistoryRun[]; next: number | null };
  actions: { at: string; actor: string; via: string; action: string; subject: string }[];
  /** Calls serve's gateway refused, newest first (docs/gateway.md). */
  gatewayRefusals: { at: string; tool: string; reason: string; changeId: number | null }[];
}

export interface ServerDetailOptions {
  window: { since: Date; until: Date };
  changesBefore?: number;
  observationsBefore?: number;
  pageSize: number;
}

export async function serverDetail(
  db: Database,
  name: string,
  defaults: ViewDefaults,
  options: ServerDetailOptions,
): Promise<ServerDetail> {
  const row = await getServer(db, name);
  const [state] = (await fleetView(db, { name: row.name })).servers;
  if (!state) throw new DriftError('SERVER_NOT_FOUND', `no server named "${name}"`);
  const held = await findHeldSession(db, row.id);
  const baseline = await getBaseline(db, row.id);
  const tools = baseline ? await loadListingTools(db, baseline.listingHash) : [];
  const history = await serverHistory(db, row.name, {
    limit: options.pageSize + 1,
    before: options.observationsBefore,
  });
  const observations = history.runs.slice(0, options.pageSize);
  const changes = await changeFeed(db, {
    server: row.name,
    before: options.changesBefore,
    limit: options.pageSize,
  });
  const actions = await recentActions(db, { server: row.name, limit: 20 });
  const refusals = await latestRefusals(db, row.id, 20);
  const latest = state.lastListing?.hash ?? null;
  const drift =
    baseline && latest !== null && latest !== baseline.listingHash
      ? await diffServerListings(db, row, baseline.listingHash, latest)
      : null;
  return {
    registration: serverView(row, defaults),
    state,
    // The fleet's state decides: a session row of a down or disabled server is not a session
    // anyone holds, and saying it "still holds" a listing would contradict the state above.
    heldSession:
      held && state.watch === 'held'
        ? {
            worker: held.workerId,
            connectedAt: held.connectedAt.toISOString(),
            listingHash: held.listingHash,
            listedAt: held.listedAt?.toISOString() ?? null,
            lastNotificationAt: held.lastNotificationAt?.toISOString() ?? null,
            listChangedAdvertised: held.listChangedAdvertised,
            stale:
              held.listingHash !== null &&
              state.lastListing !== null &&
              held.listingHash !== state.lastListing.hash,
          }
        : null,
    baseline: baseline
      ? {
          hash: baseline.listingHash,
          approvedBy: baseline.approvedBy,
          approvedAt: baseline.approvedAt.toISOString(),
          approver: await baselineApprover(db, row.name, baseline),
          tools: tools.map((tool) => {
            const posture = readPosture(tool);
            return {
              name: tool.name,
              description: typeof tool['description'] === 'string' ? tool['description'] : null,
              hints: Object.fromEntries(
                HINTS.map((hint) => [hint, posture[hint].declared]),
              ) as Record<HintName, DeclaredHint>,
            };
          }),
        }
      : null,
    driftSinceApproval:
      drift && latest !== null
        ? { severity: drift.severity, findings: drift.findings, latest }
        : null,
    // A server registered within the window is drawn from its registration on.
    timeline: await serverTimeline(db, row.id, {
      since: new Date(Math.max(options.window.since.getTime(), row.createdAt.getTime())),
      until: options.window.until,
    }),
    changes: { items: changes.changes, next: changes.next },
    observations: {
      items: observations,
      next: history.runs.length > options.pageSize ? observations.at(-1)!.id : null,
    },
    actions: actions.map((action) => ({
      at: action.at.toISOString(),
      actor: action.actor,
      via: action.via,
      action: action.action,
      subject: action.subject,
    })),
    gatewayRefusals: refusals.map((refusal) => ({
      at: refusal.at.toISOString(),
      tool: refusal.tool,
      reason: refusal.reason,
      changeId: refusal.changeId,
    })),
  };
}
