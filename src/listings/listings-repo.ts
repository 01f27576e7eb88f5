import { and, desc, eq, gte, inArray, isNotNull, lt, max, min, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { rowsOf } from '../db/result-rows.js';
import { baselines, changes, heldSessions, listings, observations, outages } from '../db/schema.js';
import { DriftError } from '../errors.js';
import { canonicalListing, type CanonicalListing, type RawTool } from './canonical.js';
import {
  presentationFromBody,
  surfaceSummary,
  toolsOnlySurfaces,
  type Presentation,
  type SurfaceSummaries,
} from './presentation.js';

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
      surfaces: surfaceSummary(listing),
      byteSize: Buffer.byteLength(listing.canonical),
    })
    .onConflictDoNothing();
}

export async function loadListingTools(db: Database, hash: string): Promise<RawTool[]> {
  return (await loadListing(db, hash)).tools;
}

/** The whole presentation of a stored listing; one stored before surfaces has only tools. */
export async function loadListing(db: Database, hash: string): Promise<Presentation> {
  const [row] = await db
    .select({ body: listings.body })
    .from(listings)
    .where(eq(listings.hash, hash));
  if (!row) throw new DriftError('NOT_FOUND', `no listing with hash ${hash}`);
  return presentationFromBody(row.body);
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
 * times hold its values (docs/design.md §5, stale-session exposure).
 */
export async function listingSpan(
  db: Database,
  serverId: number,
  hash: string,
): Promise<{ firstObserved: string | null; lastObserved: string | null }> {
  const [row] = await db
    .select({ first: min(observations.startedAt), last: max(observations.lastSeenAt) })
    .from(observations)
    .where(and(eq(observations.serverId, serverId), eq(observations.listingHash, hash)));
  return {
    firstObserved: row?.first ? new Date(row.first).toISOString() : null,
    lastObserved: row?.last ? new Date(row.last).toISOString() : null,
  };
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
  const presentations = await presentationsByHash(db, hashes);
  return new Map([...presentations].map(([hash, presentation]) => [hash, presentation.tools]));
}

/** Whole presentations (every surface) by listing hash; hashes not stored are absent. */
export async function presentationsByHash(
  db: Database,
  hashes: string[],
): Promise<Map<string, Presentation>> {
  if (hashes.length === 0) return new Map();
  const rows = await db
    .select({ hash: listings.hash, body: listings.body })
    .from(listings)
    .where(inArray(listings.hash, [...new Set(hashes)]));
  return new Map(rows.map((row) => [row.hash, presentationFromBody(row.body)]));
}

/**
 * Each surface's hash and count of stored listings, by hash (docs/design.md §2). A listing
 * stored before they were kept is read from its body: a tools-only one (a JSON array) from
 * its hash and tool count, any other by canonicalizing it again.
 */
export async function surfacesByHash(
  db: Database,
  hashes: readonly string[],
): Promise<Map<string, SurfaceSummaries>> {
  if (hashes.length === 0) return new Map();
  const rows = await db
    .select({
      hash: listings.hash,
      surfaces: listings.surfaces,
      toolCount: listings.toolCount,
      array: sql<boolean>`left(${listings.body}, 1) = '['`,
    })
    .from(listings)
    .where(inArray(listings.hash, [...new Set(hashes)]));
  const found = new Map<string, SurfaceSummaries>();
  const unknown: string[] = [];
  for (const row of rows) {
    if (row.surfaces !== null) found.set(row.hash, row.surfaces);
    else if (row.array) found.set(row.hash, toolsOnlySurfaces(row.hash, row.toolCount));
    else unknown.push(row.hash);
  }
  for (const [hash, presentation] of await presentationsByHash(db, unknown)) {
    const { tools, ...extras } = presentation;
    found.set(hash, surfaceSummary(canonicalListing(tools, extras)));
  }
  return found;
}

/*
 * Correlated subqueries for set-wide reads (the console's fleet): each reads one server's
 * row with one index probe, the server named by `serverId`, an SQL expression of the outer
 * query (pass sql`${servers.id}`, which drizzle writes qualified). Each yields a JSON object,
 * or null when there is none.
 */

/** `{at, hash}` of the server's latest successful observation (the end of its latest ok run; observations_server_ok). */
export function latestListingJson(serverId: SQL): SQL<unknown> {
  return sql`(select json_build_object('at', ${observations.lastSeenAt}, 'hash', ${observations.listingHash})
    from ${observations} where ${observations.serverId} = ${serverId} and ${observations.outcome} = 'ok'
    order by ${observations.id} desc limit 1)`;
}

/** `{hash, approvedBy, approvedAt}` of the server's baseline. */
export function baselineJson(serverId: SQL): SQL<unknown> {
  return sql`(select json_build_object('hash', ${baselines.listingHash}, 'approvedBy', ${baselines.approvedBy},
      'approvedAt', ${baselines.approvedAt})
    from ${baselines} where ${baselines.serverId} = ${serverId})`;
}

/** One page of a server's observation runs, newest first: those with ids below `before`. */
export async function observationsBefore(
  db: Database,
  serverId: number,
  options: { before?: number; limit: number },
): Promise<ObservationRow[]> {
  return db
    .select()
    .from(observations)
    .where(
      and(
        eq(observations.serverId, serverId),
        options.before === undefined ? undefined : lt(observations.id, options.before),
      ),
    )
    .orderBy(desc(observations.id))
    .limit(options.limit);
}

/** A run of consecutive successful observations of one listing: a span of the timeline. */
export interface ListingSpan {
  hash: string;
  from: Date;
  to: Date;
  observations: number;
}

/**
 * The server's successful observations since `since`, as spans of one listing: its ok runs
 * of one hash, merged when only error runs lie between them (gaps and islands over the
 * runs), oldest first; at most `limit` spans, the latest ones. A span starts at `since` at
 * the earliest (its count is its runs' whole count). Error runs do not break a span:
 * outages are drawn from the outages table.
 */
export async function listingSpans(
  db: Database,
  serverId: number,
  options: { since: Date; limit: number },
): Promise<ListingSpan[]> {
  type Run = { hash: string; from: string | Date; to: string | Date; observations: number };
  const rows = await db.execute(
    sql`select hash, "from", "to", observations from (
      select ${observations.listingHash} as hash,
        greatest(min(${observations.startedAt}), ${options.since.toISOString()}::timestamptz) as "from",
        max(${observations.lastSeenAt}) as "to", sum(${observations.count})::int as observations
      from (
        select ${observations.listingHash}, ${observations.startedAt}, ${observations.lastSeenAt},
          ${observations.count},
          row_number() over (order by ${observations.id})
            - row_number() over (partition by ${observations.listingHash} order by ${observations.id}) as run
        from ${observations}
        where ${observations.serverId} = ${serverId} and ${observations.outcome} = 'ok'
          and ${observations.lastSeenAt} >= ${options.since.toISOString()}::timestamptz
      ) as ${observations}
      group by ${observations.listingHash}, run
      order by "from" desc limit ${options.limit}
    ) as runs order by "from"`,
  );
  return rowsOf<Run>(rows).map((row) => ({
    hash: row.hash,
    from: new Date(row.from),
    to: new Date(row.to),
    observations: Number(row.observations),
  }));
}

/**
 * When the server's re-lists after a change notification started, since `since`: newest
 * `limit`. A run keeps the first and the latest attempt of each trigger, not every one:
 * these are the starts of runs a notification opened and each run's latest notification.
 */
export async function notificationTimes(
  db: Database,
  serverId: number,
  options: { since: Date; limit: number },
): Promise<Date[]> {
  const rows = await db
    .select({
      first: sql<string | Date | null>`case when ${observations.trigger} = 'notification'
        then ${observations.startedAt} end`,
      last: observations.lastNotificationAt,
    })
    .from(observations)
    .where(
      and(
        eq(observations.serverId, serverId),
        isNotNull(observations.lastNotificationAt),
        gte(observations.lastSeenAt, options.since),
      ),
    )
    .orderBy(desc(observations.id))
    .limit(options.limit);
  const times = new Set<number>();
  for (const row of rows) {
    for (const at of [row.first, row.last]) {
      if (at === null) continue;
      const time = new Date(at).getTime();
      if (time >= options.since.getTime()) times.add(time);
    }
  }
  return [...times]
    .sort((a, b) => a - b)
    .slice(-options.limit)
    .map((time) => new Date(time));
}

/** These observations' triggers, by id; unknown ids are skipped. */
export async function triggersOf(
  db: Database,
  ids: readonly number[],
): Promise<Map<number, ObservationRow['trigger']>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: observations.id, trigger: observations.trigger })
    .from(observations)
    .where(inArray(observations.id, [...new Set(ids)]));
  return new Map(rows.map((row) => [row.id, row.trigger]));
}

/**
 * A value that moves whenever a baseline is set or approved (the console's live updates poll it; see
 * src/console/live-feed.ts).
 */
export const baselinesVersion = sql<string>`(select concat_ws(':', count(*),
  sum(hashtext(concat_ws(':', ${baselines.serverId}, ${baselines.listingHash}, ${baselines.approvedAt}))))
  from ${baselines})`;

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

/** Rows per statement: each statement is short, so recording never waits long behind one. */
export const PRUNE_BATCH = 500;

/**
 * Deletes one batch of observation runs last seen before `cutoff` that nothing refers to:
 * a run stays when a change points at it, when it is its server's latest run or first
 * successful one (where the server's history starts, see chainEnd), when it saw its
 * server's baseline listing, or when it is an error run of an open outage. Returns how
 * many went.
 */
export async function pruneRunsBatch(
  db: Database,
  cutoff: Date,
  limit = PRUNE_BATCH,
): Promise<number> {
  const rows = await db.execute(sql`delete from ${observations} where ${observations.id} in (
    select o.id from ${observations} as o
    where o.last_seen_at < ${cutoff.toISOString()}::timestamptz
      and not exists (select 1 from ${changes} where ${changes.observationId} = o.id)
      and o.id <> (select max(latest.id) from ${observations} as latest
        where latest.server_id = o.server_id)
      and o.id <> coalesce((select min(first.id) from ${observations} as first
        where first.server_id = o.server_id and first.outcome = 'ok'), 0)
      and not exists (select 1 from ${baselines} where ${baselines.serverId} = o.server_id
        and ${baselines.listingHash} = o.listing_hash)
      and not (o.outcome = 'error' and exists (select 1 from ${outages}
        where ${outages.serverId} = o.server_id and ${outages.upAt} is null
          and o.last_seen_at >= ${outages.downAt}))
    order by o.id limit ${limit}
  ) returning ${observations.id}`);
  return rowsOf<unknown>(rows).length;
}

/**
 * Deletes one batch of listing bodies stored before `cutoff` that no run, change, baseline
 * or held session refers to any more.
 */
export async function pruneListingsBatch(
  db: Database,
  cutoff: Date,
  limit = PRUNE_BATCH,
): Promise<number> {
  const rows = await db.execute(sql`delete from ${listings} where ${listings.hash} in (
    select l.hash from ${listings} as l
    where l.created_at < ${cutoff.toISOString()}::timestamptz
      and not exists (select 1 from ${observations} where ${observations.listingHash} = l.hash)
      and not exists (select 1 from ${changes}
        where ${changes.toHash} = l.hash or ${changes.fromHash} = l.hash)
      and not exists (select 1 from ${baselines} where ${baselines.listingHash} = l.hash)
      and not exists (select 1 from ${heldSessions} where ${heldSessions.listingHash} = l.hash)
    limit ${limit}
  ) returning ${listings.hash}`);
  return rowsOf<unknown>(rows).length;
}

/** How many observations the server's history holds. */
export async function countObservations(db: Database, serverId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(observations)
    .where(eq(observations.serverId, serverId));
  return Number(row?.n ?? 0);
}
