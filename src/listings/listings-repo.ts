import { and, desc, eq, inArray, max, min } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { baselines, listings, observations } from '../db/schema.js';
import { DriftError } from '../errors.js';
import type { CanonicalListing, RawTool } from './canonical.js';

/**
 * Stores a listing body once per canonical hash; storing it again is a no-op. The lookup
 * comes first because most observations repeat a known listing, and the canonical text of
 * a large listing is built only when it is read (see canonicalListing).
 */
export async function storeListing(db: Database, listing: CanonicalListing): Promise<void> {
  const [known] = await db
    .select({ hash: listings.hash })
    .from(listings)
    .where(eq(listings.hash, listing.hash));
  if (known) return;
  await db
    .insert(listings)
    .values({
      hash: listing.hash,
      body: listing.canonical,
      toolHashes: listing.toolHashes,
      toolCount: listing.tools.length,
      byteSize: Buffer.byteLength(listing.canonical),
    })
    .onConflictDoNothing();
}

export async function loadListingTools(db: Database, hash: string): Promise<RawTool[]> {
  const [row] = await db
    .select({ body: listings.body })
    .from(listings)
    .where(eq(listings.hash, hash));
  if (!row) throw new DriftError('NOT_FOUND', `no listing with hash ${hash}`);
  return JSON.parse(row.body) as RawTool[];
}

/** Resolves a full hash from a prefix of at least 8 characters, among one server's listings. */
export async function resolveListingHash(
  db: Database,
  serverId: number,
  prefix: string,
): Promise<string> {
  if (!/^[0-9a-f]{8,64}$/.test(prefix)) {
    throw new DriftError(
      'INVALID_INPUT',
      `invalid --listing "${prefix}": give 8 to 64 hex digits of a listing hash`,
    );
  }
  const rows = await db
    .selectDistinct({ hash: observations.listingHash })
    .from(observations)
    .where(eq(observations.serverId, serverId));
  const matches = rows.map((row) => row.hash!).filter((hash) => hash?.startsWith(prefix));
  if (matches.length === 1) return matches[0]!;
  throw new DriftError(
    'NOT_FOUND',
    matches.length === 0
      ? `no listing of this server has a hash starting ${prefix}; \`mcp-drift history\` lists them`
      : `${matches.length} listings have a hash starting ${prefix}; give more digits`,
  );
}

export type ObservationRow = typeof observations.$inferSelect;
export type NewObservationRow = typeof observations.$inferInsert;

export async function insertObservation(
  db: Database,
  row: NewObservationRow,
): Promise<ObservationRow> {
  const [inserted] = await db.insert(observations).values(row).returning();
  return inserted!;
}

/** The server's latest successful observation. */
export async function latestOkObservation(
  db: Database,
  serverId: number,
): Promise<ObservationRow | undefined> {
  const [row] = await db
    .select()
    .from(observations)
    .where(and(eq(observations.serverId, serverId), eq(observations.outcome, 'ok')))
    .orderBy(desc(observations.id))
    .limit(1);
  return row;
}

/**
 * When a server's listing was first and last observed: hosts that listed between those
 * times hold its values (design §5, stale-session exposure).
 */
export async function listingSpan(
  db: Database,
  serverId: number,
  hash: string,
): Promise<{ firstObserved: string | null; lastObserved: string | null }> {
  const [row] = await db
    .select({ first: min(observations.startedAt), last: max(observations.startedAt) })
    .from(observations)
    .where(and(eq(observations.serverId, serverId), eq(observations.listingHash, hash)));
  return {
    firstObserved: row?.first ? new Date(row.first).toISOString() : null,
    lastObserved: row?.last ? new Date(row.last).toISOString() : null,
  };
}

export async function recentObservations(
  db: Database,
  serverId: number,
  limit: number,
): Promise<ObservationRow[]> {
  return db
    .select()
    .from(observations)
    .where(eq(observations.serverId, serverId))
    .orderBy(desc(observations.id))
    .limit(limit);
}

export type BaselineRow = typeof baselines.$inferSelect;

export async function getBaseline(
  db: Database,
  serverId: number,
): Promise<BaselineRow | undefined> {
  const [row] = await db.select().from(baselines).where(eq(baselines.serverId, serverId));
  return row;
}

/** Sets the baseline; with `onlyIfMissing`, the first listing becomes it and later ones do not. */
export async function setBaseline(
  db: Database,
  serverId: number,
  listingHash: string,
  approvedBy: BaselineRow['approvedBy'],
  options: { onlyIfMissing?: boolean } = {},
): Promise<BaselineRow | undefined> {
  const insert = db.insert(baselines).values({ serverId, listingHash, approvedBy });
  const [row] = options.onlyIfMissing
    ? await insert.onConflictDoNothing().returning()
    : await insert
        .onConflictDoUpdate({
          target: baselines.serverId,
          set: { listingHash, approvedBy, approvedAt: new Date() },
        })
        .returning();
  return row;
}

export async function listingsByHash(
  db: Database,
  hashes: string[],
): Promise<Map<string, RawTool[]>> {
  if (hashes.length === 0) return new Map();
  const rows = await db
    .select({ hash: listings.hash, body: listings.body })
    .from(listings)
    .where(inArray(listings.hash, [...new Set(hashes)]));
  return new Map(rows.map((row) => [row.hash, JSON.parse(row.body) as RawTool[]]));
}

/** `serverInfo.version` of the server's latest successful observation of a listing, if any. */
export async function serverVersionOf(
  db: Database,
  serverId: number,
  hash: string,
): Promise<string | null> {
  const [row] = await db
    .select({ serverInfo: observations.serverInfo })
    .from(observations)
    .where(and(eq(observations.serverId, serverId), eq(observations.listingHash, hash)))
    .orderBy(desc(observations.id))
    .limit(1);
  const version = row?.serverInfo?.['version'];
  return typeof version === 'string' ? version : null;
}
