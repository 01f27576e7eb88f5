import { and, asc, desc, eq, gte } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { changes, findings, servers } from '../db/schema.js';
import { uniqueViolation } from '../db/sql-errors.js';
import type { Finding } from '../diff/index.js';
import { DriftError } from '../errors.js';

export type ChangeRow = typeof changes.$inferSelect;
export type NewChangeRow = typeof changes.$inferInsert;
export type FindingRow = typeof findings.$inferSelect;

export async function latestChange(db: Database, serverId: number): Promise<ChangeRow | undefined> {
  const [row] = await db
    .select()
    .from(changes)
    .where(eq(changes.serverId, serverId))
    .orderBy(desc(changes.id))
    .limit(1);
  return row;
}

/**
 * Appends a change to the server's chain after `change.previousChangeId`, which the caller
 * read in the same transaction as the listing it compared against. The unique (server,
 * previous change) pair makes a concurrent append after the same change fail instead of
 * recording the transition twice.
 */
export async function appendChange(
  db: Database,
  change: NewChangeRow,
  found: readonly Finding[],
): Promise<ChangeRow> {
  const [row] = await db.insert(changes).values(change).returning();
  if (found.length > 0) {
    await db.insert(findings).values(
      found.map((finding) => ({
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
