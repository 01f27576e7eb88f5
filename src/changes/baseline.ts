import { recordAction, type Actor } from '../audit/operator-actions-repo.js';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import type { RawTool } from '../listings/canonical.js';
import {
  getBaseline,
  latestOkObservation,
  loadListingTools,
  resolveListingHash,
  setBaseline,
} from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';

export interface BaselineView {
  server: string;
  hash: string;
  approvedBy: string;
  approvedAt: string;
  tools: RawTool[];
}

/** The listing a server's changes are judged against, with its tools. */
export async function showBaseline(db: Database, name: string): Promise<BaselineView> {
  const server = await getServer(db, name);
  const baseline = await getBaseline(db, server.id);
  if (!baseline) {
    throw new DriftError(
      'NOT_FOUND',
      `${server.name} has no baseline yet; \`mcp-drift check ${server.name}\` sets one`,
    );
  }
  return {
    server: server.name,
    hash: baseline.listingHash,
    approvedBy: baseline.approvedBy,
    approvedAt: baseline.approvedAt.toISOString(),
    tools: await loadListingTools(db, baseline.listingHash),
  };
}

/**
 * An operator accepts a listing as the server's baseline: the one whose hash starts with
 * `listing` (at least 8 hex digits, among this server's listings), else the latest one
 * seen. Naming the hash makes an approval accept exactly what was reviewed; with `exact`
 * (the console), only the whole hash is taken. With an `actor`, the approval is recorded
 * (operator_actions) in the same transaction.
 */
export async function approveBaseline(
  db: Database,
  name: string,
  options: { listing?: string; exact?: boolean; actor?: Actor } = {},
): Promise<{ server: string; hash: string; approvedAt: string; previous: string | null }> {
  if (options.exact && !/^[0-9a-f]{64}$/.test(options.listing ?? '')) {
    throw new DriftError(
      'INVALID_INPUT',
      'an approval names the whole hash of the listing reviewed (64 hex digits)',
    );
  }
  return db.transaction(async (tx) => {
    const server = await getServer(tx, name);
    let hash: string;
    if (options.listing !== undefined) {
      hash = await resolveListingHash(tx, server.id, options.listing);
    } else {
      const latest = await latestOkObservation(tx, server.id);
      if (!latest) {
        throw new DriftError(
          'NOT_FOUND',
          `${server.name} has no successful listing yet; run \`mcp-drift check ${server.name}\``,
        );
      }
      hash = latest.listingHash!;
    }
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
    return {
      server: server.name,
      hash: row.listingHash,
      approvedAt: row.approvedAt.toISOString(),
      previous,
    };
  });
}
