import { acknowledge } from '../alerts/alert-list.js';
import { openAlertsUpTo } from '../alerts/alerts-repo.js';
import { latestActionOn, recordAction, type Actor } from '../audit/operator-actions-repo.js';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import type { RawTool } from '../listings/canonical.js';
import {
  getBaseline,
  latestOkObservation,
  loadListingTools,
  resolveListingHash,
  setBaseline,
  type BaselineRow,
} from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';
import { latestChangeTo } from './changes-repo.js';

/** Who approved a baseline, and through what (console, api, cli). */
export interface Approver {
  name: string;
  via: string;
}

export interface BaselineView {
  server: string;
  hash: string;
  approvedBy: string;
  approvedAt: string;
  approver: Approver | null;
  tools: RawTool[];
}

/**
 * Who made this listing the baseline: the operator action recorded with the approval. Null
 * for a first listing (nobody approved it) and for an approval made without an actor.
 */
export async function baselineApprover(
  db: Database,
  server: string,
  baseline: Pick<BaselineRow, 'listingHash' | 'approvedBy'>,
): Promise<Approver | null> {
  if (baseline.approvedBy !== 'operator') return null;
  const action = await latestActionOn(db, {
    action: 'baseline.approve',
    server,
    subject: baseline.listingHash,
  });
  return action ? { name: action.actor, via: action.via } : null;
}

/** Server `name` and its approved baseline; NOT_FOUND when it has none yet. */
export async function requireBaseline(db: Database, name: string) {
  const server = await getServer(db, name);
  const baseline = await getBaseline(db, server.id);
  if (!baseline) {
    throw new DriftError(
      'NOT_FOUND',
      `${server.name} has no baseline yet; \`mcp-drift check ${server.name}\` sets one`,
    );
  }
  return { server, baseline };
}

/** The listing a server's changes are judged against, with its tools. */
export async function showBaseline(db: Database, name: string): Promise<BaselineView> {
  const { server, baseline } = await requireBaseline(db, name);
  return {
    server: server.name,
    hash: baseline.listingHash,
    approvedBy: baseline.approvedBy,
    approvedAt: baseline.approvedAt.toISOString(),
    approver: await baselineApprover(db, server.name, baseline),
    tools: await loadListingTools(db, baseline.listingHash),
  };
}

/**
 * The listing an approval of the server takes: the one whose hash starts with `listing` (at
 * least 8 hex digits, among this server's listings), else the latest one seen. Naming the
 * hash makes an approval accept exactly what was reviewed; with `exact` (the console), only
 * the whole hash is taken.
 */
export async function candidateListing(
  db: Database,
  server: { id: number; name: string },
  options: { listing?: string; exact?: boolean },
): Promise<string> {
  if (options.exact && !/^[0-9a-f]{64}$/.test(options.listing ?? '')) {
    throw new DriftError(
      'INVALID_INPUT',
      'an approval names the whole hash of the listing reviewed (64 hex digits)',
    );
  }
  if (options.listing !== undefined) return resolveListingHash(db, server.id, options.listing);
  const latest = await latestOkObservation(db, server.id);
  if (!latest) {
    throw new DriftError(
      'NOT_FOUND',
      `${server.name} has no successful listing yet; run \`mcp-drift check ${server.name}\``,
    );
  }
  return latest.listingHash!;
}

/**
 * The server's latest listing, which must be `expected` (8 to 64 hex digits of its hash): an
 * approval accepts what was reviewed, and a listing seen after the review is not that
 * (docs/design.md §2, Baseline). Refused with CONFLICT, naming the latest hash, otherwise.
 */
export async function requireLatestListing(
  db: Database,
  server: { id: number; name: string },
  expected: string,
): Promise<string> {
  if (!/^[0-9a-f]{8,64}$/.test(expected)) {
    throw new DriftError(
      'INVALID_INPUT',
      `invalid listing hash "${expected}": give 8 to 64 hex digits of the hash reviewed`,
    );
  }
  const latest = await candidateListing(db, server, {});
  if (!latest.startsWith(expected)) {
    throw new DriftError(
      'CONFLICT',
      `the latest listing of ${server.name} is ${latest}, not ${expected}: it changed after it was reviewed; nothing was approved. Review it (\`mcp-drift baseline diff ${server.name}\`) and approve that hash`,
    );
  }
  return latest;
}

/**
 * The alerts an approval of `hash` may acknowledge with it: the unacknowledged ones of the
 * changes up to the latest that arrived at this listing. A later change's alert is about
 * something the approval did not see, and stays open.
 */
export async function alertsUpToListing(
  db: Database,
  serverId: number,
  hash: string,
): Promise<number[]> {
  const change = await latestChangeTo(db, serverId, hash);
  return change === undefined ? [] : openAlertsUpTo(db, serverId, change);
}

export interface ApprovalResult {
  server: string;
  hash: string;
  approvedAt: string;
  previous: string | null;
  approver: Approver | null;
  /** The alerts acknowledged with the approval (with `acknowledgeAlerts`). */
  acknowledged: number[];
}

/**
 * An operator accepts a listing as the server's baseline (see candidateListing for which).
 * With an `actor`, the approval is recorded (operator_actions) in the same transaction;
 * with `acknowledgeAlerts`, so is the acknowledgement of the alerts up to that listing.
 */
export async function approveBaseline(
  db: Database,
  name: string,
  options: {
    listing?: string;
    exact?: boolean;
    /** The latest listing when the approval was reviewed; refused (CONFLICT) if it moved. */
    latest?: string;
    actor?: Actor;
    acknowledgeAlerts?: boolean;
  } = {},
): Promise<ApprovalResult> {
  return db.transaction(async (tx) => {
    const server = await getServer(tx, name);
    if (options.latest !== undefined) await requireLatestListing(tx, server, options.latest);
    const hash = await candidateListing(tx, server, options);
    const previous = (await getBaseline(tx, server.id))?.listingHash ?? null;
    const row = (await setBaseline(tx, server.id, hash, 'operator'))!;
    if (options.actor) {
      await recordAction(tx, options.actor, {
        action: 'baseline.approve',
        server: server.name,
        subject: hash,
        detail: { previous },
      });
    }
    const acknowledged: number[] = [];
    if (options.acknowledgeAlerts) {
      for (const id of await alertsUpToListing(tx, server.id, hash)) {
        acknowledged.push(...(await acknowledge(tx, id, { actor: options.actor })).acknowledged);
      }
    }
    return {
      server: server.name,
      hash: row.listingHash,
      approvedAt: row.approvedAt.toISOString(),
      previous,
      approver: options.actor ? { name: options.actor.name, via: options.actor.via } : null,
      acknowledged: [...new Set(acknowledged)].sort((a, b) => a - b),
    };
  });
}
