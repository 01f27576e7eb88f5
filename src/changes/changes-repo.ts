import {
  and,
  asc,
  desc,
  eq,
  exists,
  getTableColumns,
  gte,
  inArray,
  lt,
  sql,
  type SQL,
} from 'drizzle-orm';
import { findingRowOf } from '../alerts/finding-row.js';
import type { Database } from '../db/client.js';
import {
  changes,
  findings,
  listings,
  observations,
  servers,
  type ChangeRow,
  type FindingRow,
  type NewChangeRow,
} from '../db/schema.js';
import { uniqueViolation } from '../db/sql-errors.js';
import { toStorableJson, toStorableText } from '../db/storable.js';
import type { Finding } from '../diff/index.js';
import { DriftError } from '../errors.js';
import type { NewObservationRow, ObservationRow } from '../listings/listings-repo.js';

/** Where a server's listing history ends: its last change, or else its first listing. */
export interface ChainEnd {
  /** The last change's id; null before the first change. */
  lastChangeId: number | null;
  /** The last change's new listing, else the first successful observation's; null if none. */
  hash: string | null;
}

/** The last change's column, for the server whose id `serverId` gives (an SQL expression). */
function lastChangeColumn(column: typeof changes.id | typeof changes.toHash, serverId: SQL): SQL {
  return sql`(select ${column} from ${changes} where ${changes.serverId} = ${serverId}
    order by ${changes.id} desc limit 1)`;
}

/** ChainEnd's hash as an SQL expression. */
function chainEndHash(serverId: SQL): SQL {
  const firstListing = sql`(select ${observations.listingHash} from ${observations}
    where ${observations.serverId} = ${serverId} and ${observations.outcome} = 'ok'
    order by ${observations.id} limit 1)`;
  return sql`coalesce(${lastChangeColumn(changes.toHash, serverId)}, ${firstListing})`;
}

/**
 * Reads the end of a server's chain in one statement: recording runs it for every
 * observation that may be a change, and each round trip inside the recording transaction
 * holds that transaction (and, on PGlite, everyone else) longer.
 */
export async function chainEnd(db: Database, serverId: number): Promise<ChainEnd> {
  const id = sql`${servers.id}`;
  const [row] = await db
    .select({
      lastChangeId: sql<number | null>`${lastChangeColumn(changes.id, id)}`.mapWith((value) =>
        value === null ? null : Number(value),
      ),
      hash: sql<string | null>`${chainEndHash(id)}`,
    })
    .from(servers)
    .where(eq(servers.id, serverId));
  return { lastChangeId: row?.lastChangeId ?? null, hash: row?.hash ?? null };
}

/** An attempt to fold into its server's latest run: an ok one with its listing, or an error. */
export type RunAttempt = NewObservationRow;

/**
 * Folds attempts into their servers' latest runs, in one statement: each attempt whose
 * server's latest run has its outcome (the same listing, or the same error code and
 * reason) bumps that run's count, last time and its trigger's last time, and takes the
 * attempt's descriptive fields. An ok attempt also needs its server's chain to end at its
 * listing. The result holds the runs extended; an attempt not among them wrote nothing
 * (another outcome: it starts a run, perhaps a change). The servers must be distinct: a
 * row is told apart by its server. Most attempts see no change: this is their whole cost.
 * A change another observer appends meanwhile does not make a sighting of the listing
 * before it untrue; the next attempt compares against that change.
 */
export async function extendLatestRuns(
  db: Database,
  rows: readonly RunAttempt[],
): Promise<ObservationRow[]> {
  // Raw values bypass the columns' own mapping: server text is made storable here.
  const json = (value: unknown) => (value == null ? null : JSON.stringify(toStorableJson(value)));
  const text = (value: string | null | undefined) => (value == null ? null : toStorableText(value));
  const tuples = rows.map(
    (row) => sql`(${row.serverId}::integer, ${row.startedAt.toISOString()}::timestamptz,
      ${row.durationMs}::integer, ${row.trigger}::text, ${row.outcome}::text,
      ${row.listingHash ?? null}::text, ${row.errorCode ?? null}::text,
      ${text(row.errorMessage)}::text, ${text(row.protocolVersion)}::text,
      ${json(row.serverInfo)}::jsonb, ${json(row.capabilities)}::jsonb,
      ${row.ttlMs ?? null}::bigint, ${text(row.cacheScope)}::text, ${row.pages ?? null}::integer,
      ${row.workerId ?? null}::text)`,
  );
  // Each attempt's server's latest run, found by a lateral probe of observations_server_id
  // and then joined on the primary key: a condition on the run itself would be checked
  // against every row of the table.
  const v = sql`(values ${sql.join(tuples, sql`, `)}) as v(server_id, started_at, duration_ms,
    trigger, outcome, listing_hash, error_code, error_message, protocol_version, server_info,
    capabilities, ttl_ms, cache_scope, pages, worker_id)
    cross join lateral (select max(latest.id) as id from ${observations} as latest
      where latest.server_id = v.server_id) as latest`;
  const lastOf = (trigger: ObservationRow['trigger'], column: SQL) =>
    sql`case when v.trigger = ${trigger} then greatest(${column}, v.started_at) else ${column} end`;
  return db
    .update(observations)
    .set({
      count: sql`${observations.count} + 1`,
      lastSeenAt: sql`greatest(${observations.lastSeenAt}, v.started_at)`,
      lastPollAt: lastOf('poll', sql`${observations.lastPollAt}`),
      lastNotificationAt: lastOf('notification', sql`${observations.lastNotificationAt}`),
      lastStartupAt: lastOf('startup', sql`${observations.lastStartupAt}`),
      lastManualAt: lastOf('manual', sql`${observations.lastManualAt}`),
      durationMs: sql`v.duration_ms`,
      protocolVersion: sql`v.protocol_version`,
      serverInfo: sql`v.server_info`,
      capabilities: sql`v.capabilities`,
      ttlMs: sql`v.ttl_ms`,
      cacheScope: sql`v.cache_scope`,
      pages: sql`v.pages`,
      workerId: sql`v.worker_id`,
    })
    .from(v)
    .where(
      sql`${observations.id} = latest.id
        and ${observations.outcome} = v.outcome
        and ${observations.listingHash} is not distinct from v.listing_hash
        and ${observations.errorCode} is not distinct from v.error_code
        and ${observations.errorMessage} is not distinct from v.error_message
        and (v.outcome = 'error' or ${chainEndHash(sql`v.server_id`)} = v.listing_hash)`,
    )
    .returning(getTableColumns(observations));
}

/**
 * Findings per statement. A finding is 9 parameters, and a statement may have 65,534 at
 * most: 3,700 tools turned read-only at once used to fail the whole change with
 * MAX_PARAMETERS_EXCEEDED. A bound also keeps each statement short, which matters on the
 * embedded database, where one statement holds serve's event loop while it runs.
 */
const FINDINGS_PER_STATEMENT = 500;

/**
 * Appends a change to the server's chain after `change.previousChangeId`, which the caller
 * read in the same transaction as the listing it compared against. The unique (server,
 * previous change) pair makes a concurrent append after the same change fail instead of
 * recording the transition twice. The findings go in bounded batches, in the caller's
 * transaction.
 */
export async function appendChange(
  db: Database,
  change: NewChangeRow,
  found: readonly Finding[],
): Promise<ChangeRow> {
  const [row] = await db.insert(changes).values(change).returning();
  for (let from = 0; from < found.length; from += FINDINGS_PER_STATEMENT) {
    await db.insert(findings).values(
      found.slice(from, from + FINDINGS_PER_STATEMENT).map((finding) => ({
        changeId: row!.id,
        ...findingRowOf(finding),
        explanation: finding.explanation,
      })),
    );
  }
  return row!;
}

/** Another observer appended to this server's chain first (see appendChange). */
export function isDuplicateAppend(error: unknown): boolean {
  return uniqueViolation(error)?.constraint === 'changes_server_previous';
}

export async function changesSince(
  db: Database,
  serverId: number,
  since: Date,
): Promise<ChangeRow[]> {
  return db
    .select()
    .from(changes)
    .where(and(eq(changes.serverId, serverId), gte(changes.detectedAt, since)))
    .orderBy(asc(changes.id));
}

/** The changes these observations revealed (at most one each), in no particular order. */
export async function changesOfObservations(
  db: Database,
  observationIds: readonly number[],
): Promise<ChangeRow[]> {
  if (observationIds.length === 0) return [];
  return db
    .select()
    .from(changes)
    .where(inArray(changes.observationId, [...observationIds]));
}

/** These changes, in no particular order; unknown ids are skipped. */
export async function changesWithIds(db: Database, ids: readonly number[]): Promise<ChangeRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(changes)
    .where(inArray(changes.id, [...new Set(ids)]));
}

/** The findings of these changes, in the order each change's diff produced them. */
export async function findingsOfChanges(
  db: Database,
  changeIds: readonly number[],
): Promise<FindingRow[]> {
  if (changeIds.length === 0) return [];
  return findingsOfChangesQuery(db, changeIds);
}

/** The statement of findingsOfChanges (non-empty ids), for a caller that runs it bare (the bench). */
export function findingsOfChangesQuery(db: Database, changeIds: readonly number[]) {
  return db
    .select()
    .from(findings)
    .where(inArray(findings.changeId, [...new Set(changeIds)]))
    .orderBy(asc(findings.id));
}

export interface ChangeSummary extends ChangeRow {
  server: string;
}

/** Which changes a listing of them shows; every field narrows it. */
export interface ChangeFilter {
  serverId?: number;
  /** Only these severities (a minimum severity is the list of those at or above it). */
  severities?: readonly ChangeRow['severity'][];
  /** Only changes with a finding of this kind. */
  kind?: string;
  /** Detected at or after. */
  since?: Date;
  /** Detected before. */
  until?: Date;
  /** Ids below this one: the next page of a listing newest first. */
  before?: number;
  limit: number;
}

/** Newest first. */
export async function listChanges(db: Database, filter: ChangeFilter): Promise<ChangeSummary[]> {
  const rows = await listChangesQuery(db, filter);
  return rows.map((row) => ({ ...row.change, server: row.server }));
}

/** The statement of listChanges, for a caller that runs it bare (the bench). */
export function listChangesQuery(db: Database, filter: ChangeFilter) {
  return db
    .select({ change: changes, server: servers.name })
    .from(changes)
    .innerJoin(servers, eq(servers.id, changes.serverId))
    .where(
      and(
        filter.serverId === undefined ? undefined : eq(changes.serverId, filter.serverId),
        filter.severities === undefined
          ? undefined
          : inArray(changes.severity, [...filter.severities]),
        filter.kind === undefined
          ? undefined
          : exists(
              db
                .select({ one: sql`1` })
                .from(findings)
                .where(and(eq(findings.changeId, changes.id), eq(findings.kind, filter.kind))),
            ),
        filter.since === undefined ? undefined : gte(changes.detectedAt, filter.since),
        filter.until === undefined ? undefined : lt(changes.detectedAt, filter.until),
        filter.before === undefined ? undefined : lt(changes.id, filter.before),
      ),
    )
    .orderBy(desc(changes.id))
    .limit(filter.limit);
}

/** `{id, severity, detectedAt}` of the server's latest change, or null (a correlated subquery; see listings-repo). */
export function latestChangeJson(serverId: SQL): SQL<unknown> {
  return sql`(select json_build_object('id', ${changes.id}, 'severity', ${changes.severity},
      'detectedAt', ${changes.detectedAt})
    from ${changes} where ${changes.serverId} = ${serverId}
    order by ${changes.detectedAt} desc, ${changes.id} desc limit 1)`;
}

/** Changes detected within each window (seconds back from now), by severity; one statement. */
export async function changeCountsBySeverity(
  db: Database,
  windowsSeconds: readonly number[],
): Promise<{ severity: ChangeRow['severity']; counts: number[] }[]> {
  const rows = await changeCountsQuery(db, windowsSeconds);
  return rows.map((row) => ({ severity: row.severity, counts: row.counts.map(Number) }));
}

/** The statement of changeCountsBySeverity, for a caller that runs it bare (the bench). */
export function changeCountsQuery(db: Database, windowsSeconds: readonly number[]) {
  const widest = Math.max(...windowsSeconds);
  const within = (seconds: number) =>
    sql<number>`(count(*) filter (where ${changes.detectedAt} >= now() - make_interval(secs => ${seconds})))::int`;
  return db
    .select({
      severity: changes.severity,
      counts: sql<number[]>`array[${sql.join(windowsSeconds.map(within), sql`, `)}]`,
    })
    .from(changes)
    .where(gte(changes.detectedAt, sql`now() - make_interval(secs => ${widest})`))
    .groupBy(changes.severity);
}

/** The server's changes detected since `since`, oldest first (the newest `limit`). */
export async function changesInWindow(
  db: Database,
  serverId: number,
  options: { since: Date; limit: number },
): Promise<ChangeRow[]> {
  const rows = await db
    .select()
    .from(changes)
    .where(and(eq(changes.serverId, serverId), gte(changes.detectedAt, options.since)))
    .orderBy(desc(changes.detectedAt), desc(changes.id))
    .limit(options.limit);
  return rows.reverse();
}

export async function getChange(
  db: Database,
  id: number,
): Promise<{ change: ChangeSummary; findings: FindingRow[] }> {
  const [row] = await db
    .select({ change: changes, server: servers.name })
    .from(changes)
    .innerJoin(servers, eq(servers.id, changes.serverId))
    .where(eq(changes.id, id));
  if (!row)
    throw new DriftError('NOT_FOUND', `no change with id ${id}; \`mcp-drift changes\` lists them`);
  const rows = await db
    .select()
    .from(findings)
    .where(eq(findings.changeId, id))
    .orderBy(asc(findings.id));
  return { change: { ...row.change, server: row.server }, findings: rows };
}

/**
 * A value that moves whenever a change is recorded (the console's live updates poll it; see
 * src/console/live-feed.ts).
 */
export const changesVersion = sql<string>`(select coalesce(max(${changes.id}), 0)::text from ${changes})`;

/**
 * The tool names of every other enabled server's current listing (where its chain ends),
 * name → server: what a tool_shadowing check compares a text against. Read from the
 * stored tool hashes, not the bodies: a change reads this, and bodies can be megabytes.
 */
export async function otherServersTools(
  db: Database,
  serverId: number,
): Promise<Map<string, string>> {
  const id = sql`${servers.id}`;
  const rows = await db
    .select({
      server: servers.name,
      tool: sql<string>`jsonb_object_keys(${listings.toolHashes})`,
    })
    .from(servers)
    .innerJoin(listings, sql`${listings.hash} = ${chainEndHash(id)}`)
    .where(and(sql`${servers.id} <> ${serverId}`, eq(servers.enabled, true)));
  const tools = new Map<string, string>();
  for (const row of rows) if (!tools.has(row.tool)) tools.set(row.tool, row.server);
  return tools;
}

/** The latest of the server's changes that arrived at this listing, if any did. */
export async function latestChangeTo(
  db: Database,
  serverId: number,
  listingHash: string,
): Promise<number | undefined> {
  const [row] = await db
    .select({ id: changes.id })
    .from(changes)
    .where(and(eq(changes.serverId, serverId), eq(changes.toHash, listingHash)))
    .orderBy(desc(changes.id))
    .limit(1);
  return row?.id;
}

/** How many changes the server's history holds. */
export async function countChanges(db: Database, serverId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(changes)
    .where(eq(changes.serverId, serverId));
  return Number(row?.n ?? 0);
}
