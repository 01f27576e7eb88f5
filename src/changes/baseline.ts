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
 * seen. Naming the hash makes an approval accept exactly what was reviewed.
 */
export async function approveBaseline(
  db: Database,
  name: string,
  options: { listing?: string } = {},
): Promise<{ server: string; hash: string; approvedAt: string }> {
  const server = await getServer(db, name);
  let hash: string;
  if (options.listing !== undefined) {
    hash = await resolveListingHash(db, server.id, options.listing);
  } else {
    const latest = await latestOkObservation(db, server.id);
    if (!latest) {
      throw new DriftError(
        'NOT_FOUND',
        `${server.name} has no successful listing yet; run \`mcp-drift check ${server.name}\``,
      );
    }
    hash = latest.listingHash!;
  }
  const row = (await setBaseline(db, server.id, hash, 'operator'))!;
  return { server: server.name, hash: row.listingHash, approvedAt: row.approvedAt.toISOString() };
}
