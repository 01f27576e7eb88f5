import { and, asc, desc, eq, gte, inArray, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { changes, findings, listings, observations, servers } from '../db/schema.js';
import { uniqueViolation } from '../db/sql-errors.js';
import { toStorableJson, toStorableText } from '../db/storable.js';
import type { Finding } from '../diff/index.js';
import { DriftError } from '../errors.js';
import type { NewObservationRow, ObservationRow } from '../listings/listings-repo.js';

export type ChangeRow = typeof changes.$inferSelect;
export type NewChangeRow = typeof changes.$inferInsert;
export type FindingRow = typeof findings.$inferSelect;

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

export type UnchangedObservation = NewObservationRow & { listingHash: string };

/**
 * Records successful observations in one statement, each on the condition that its
 * server's chain ends at the listing it saw; the result holds the rows written, and an
 * observation whose server's chain ends elsewhere (a change, or a first listing) is not
 * among them and writes nothing. The servers must be distinct: a row is told apart by its
 * server. Most observations see no change: this is their whole cost. A change another
 * observer appends meanwhile does not make a sighting of the listing before it untrue;
 * the next observation compares against that change.
 */
export async function insertUnchangedObservations(
  db: Database,
  rows: readonly UnchangedObservation[],
): Promise<ObservationRow[]> {
  // Raw values bypass the columns' own mapping: server text is made storable here.
  const json = (value: unknown) => (value == null ? null : JSON.stringify(toStorableJson(value)));
  const text = (value: string | null | undefined) => (value == null ? null : toStorableText(value));
  const tuples = rows.map(
    (row) => sql`(${row.serverId}::integer, ${row.startedAt.toISOString()}::timestamptz,
      ${row.durationMs}::integer, ${row.trigger}::text, ${row.listingHash}::text,
      ${text(row.protocolVersion)}::text, ${json(row.serverInfo)}::jsonb,
      ${json(row.capabilities)}::jsonb, ${row.ttlMs ?? null}::bigint,
      ${text(row.cacheScope)}::text, ${row.pages ?? null}::integer,
      ${row.workerId ?? null}::text)`,
  );
  const serverId = sql`v.server_id`;
  // drizzle's insert-select names every column in the table's order (schema.ts): the
  // values follow that order. A column added there without a value here fails loudly.
  const values = sql`select nextval(pg_get_serial_sequence('observations', 'id')),
    v.server_id, v.started_at, v.duration_ms, v.trigger, 'ok', v.listing_hash, null, null,
    v.protocol_version, v.server_info, v.capabilities, v.ttl_ms, v.cache_scope, v.pages,
    v.worker_id
    from (values ${sql.join(tuples, sql`, `)}) as v(server_id, started_at, duration_ms,
      trigger, listing_hash, protocol_version, server_info, capabilities, ttl_ms,
      cache_scope, pages, worker_id)
    where ${chainEndHash(serverId)} = v.listing_hash`;
  return db.insert(observations).select(values).returning();
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
        tool: finding.tool,
        kind: finding.kind,
        severity: finding.severity,
        field: finding.field ?? null,
        before: finding.before ?? null,
        after: finding.after ?? null,
        explanation: finding.explanation,
        record: finding.record as unknown as Record<string, unknown>,
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
  return db
    .select()
    .from(findings)
    .where(inArray(findings.changeId, [...new Set(changeIds)]))
    .orderBy(asc(findings.id));
}

export interface ChangeSummary extends ChangeRow {
  server: string;
}

export async function listChanges(
  db: Database,
  options: { serverId?: number; limit: number },
): Promise<ChangeSummary[]> {
  const rows = await db
    .select({ change: changes, server: servers.name })
    .from(changes)
    .innerJoin(servers, eq(servers.id, changes.serverId))
    .where(options.serverId === undefined ? undefined : eq(changes.serverId, options.serverId))
    .orderBy(desc(changes.id))
    .limit(options.limit);
  return rows.map((row) => ({ ...row.change, server: row.server }));
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
