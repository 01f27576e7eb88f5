import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { servers, type ServerRow } from '../db/schema.js';
import { uniqueViolation } from '../db/sql-errors.js';
import { DriftError } from '../errors.js';
import type { ServerSpec } from './server-spec.js';

/** Repositories take the database or a transaction as their first argument (house style). */

function notFound(name: string): DriftError {
  return new DriftError(
    'SERVER_NOT_FOUND',
    `no server named "${name}"; \`mcp-drift server list\` shows the registered ones`,
  );
}

export async function insertServer(db: Database, spec: ServerSpec): Promise<ServerRow> {
  try {
    const [row] = await db.insert(servers).values(spec).returning();
    return row!;
  } catch (error) {
    if (uniqueViolation(error)) {
      throw new DriftError(
        'SERVER_EXISTS',
        `a server named "${spec.name}" already exists; choose another name or \`mcp-drift server edit ${spec.name}\``,
      );
    }
    throw error;
  }
}

export async function listServers(db: Database): Promise<ServerRow[]> {
  return listServersQuery(db);
}

/** The statement of listServers, for a caller that runs it bare (the bench). */
export function listServersQuery(db: Database) {
  return db.select().from(servers).orderBy(asc(servers.name));
}

/** Whole registrations of these servers, in no particular order; unknown ids are skipped. */
export async function serversWithIds(db: Database, ids: readonly number[]): Promise<ServerRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(servers)
    .where(inArray(servers.id, [...new Set(ids)]));
}

export async function findServer(db: Database, name: string): Promise<ServerRow | undefined> {
  const [row] = await db.select().from(servers).where(eq(servers.name, name));
  return row;
}

export async function getServer(db: Database, name: string): Promise<ServerRow> {
  const row = await findServer(db, name);
  if (!row) throw notFound(name);
  return row;
}

/** Replaces every field of the registration; the edit command merges before calling it. */
export async function updateServer(
  db: Database,
  name: string,
  spec: ServerSpec,
): Promise<ServerRow> {
  try {
    const [row] = await db
      .update(servers)
      // A new command or URL may be another server: learn its protocol era afresh.
      .set({ ...spec, protocolEra: null, updatedAt: sql`now()` })
      .where(eq(servers.name, name))
      .returning();
    if (!row) throw notFound(name);
    return row;
  } catch (error) {
    if (uniqueViolation(error)) {
      throw new DriftError('SERVER_EXISTS', `a server named "${spec.name}" already exists`);
    }
    throw error;
  }
}

/**
 * Moves the registration's version without changing it: its watcher starts again (a login
 * gave the server new tokens, and a watcher waiting in `needs_login` should use them now).
 */
export async function touchServer(db: Database, id: number): Promise<void> {
  await db
    .update(servers)
    .set({ updatedAt: sql`now()` })
    .where(eq(servers.id, id));
}

export async function setServerEnabled(
  db: Database,
  name: string,
  enabled: boolean,
): Promise<ServerRow> {
  const [row] = await db
    .update(servers)
    .set({ enabled, updatedAt: sql`now()` })
    .where(eq(servers.name, name))
    .returning();
  if (!row) throw notFound(name);
  return row;
}

/**
 * Keeps the protocol era a server answered in. Not an edit of the registration, so
 * updated_at stays: the supervisor need not re-read it.
 */
export async function setProtocolEra(
  db: Database,
  serverId: number,
  era: NonNullable<ServerRow['protocolEra']>,
): Promise<void> {
  await db.update(servers).set({ protocolEra: era }).where(eq(servers.id, serverId));
}

/** Removes the server and, through ON DELETE CASCADE, its history. */
export async function removeServer(db: Database, name: string): Promise<ServerRow> {
  const [row] = await db.delete(servers).where(eq(servers.name, name)).returning();
  if (!row) throw notFound(name);
  return row;
}

export function specOf(row: ServerRow): ServerSpec {
  return {
    name: row.name,
    transport: row.transport,
    command: row.command,
    args: row.args,
    env: row.env,
    cwd: row.cwd,
    url: row.url,
    headers: row.headers,
    trust: row.trust,
    schedule: row.schedule,
    notify: row.notify,
    slackUrl: row.slackUrl,
    webhookUrl: row.webhookUrl,
    hold: row.hold,
    alertMinSeverity: row.alertMinSeverity,
    oauth: row.oauth,
    alsoAs: row.alsoAs,
  };
}

/**
 * A value that moves whenever a server is added, edited, enabled, disabled or removed (the console's live updates poll it; see
 * src/console/live-feed.ts).
 */
export const serversVersion = sql<string>`(select concat_ws(':', count(*),
  sum(hashtext(concat_ws(':', ${servers.id}, ${servers.updatedAt}, ${servers.enabled})))) from ${servers})`;

/** Enabled servers with their alert destinations: who hears of changes (destination-check.ts). */
export async function enabledServerDestinations(db: Database) {
  return db
    .select({
      name: servers.name,
      notify: servers.notify,
      slackUrl: servers.slackUrl,
      webhookUrl: servers.webhookUrl,
      alertMinSeverity: servers.alertMinSeverity,
    })
    .from(servers)
    .where(eq(servers.enabled, true));
}

/** The server with this id; undefined when it was removed. */
export async function findServerById(db: Database, id: number): Promise<ServerRow | undefined> {
  const [server] = await db.select().from(servers).where(eq(servers.id, id));
  return server;
}
