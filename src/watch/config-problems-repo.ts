import { eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { serverConfigProblems } from '../db/schema.js';

/** The worker will not watch the server as registered: why (a newer note replaces an older). */
export async function noteConfigProblem(
  db: Database,
  row: { serverId: number; problem: string; workerId: string; at: Date },
): Promise<void> {
  const values = { problem: row.problem, workerId: row.workerId, notedAt: row.at };
  await db
    .insert(serverConfigProblems)
    .values({ serverId: row.serverId, ...values })
    .onConflictDoUpdate({ target: serverConfigProblems.serverId, set: values });
}

export async function clearConfigProblem(db: Database, serverId: number): Promise<void> {
  await db.delete(serverConfigProblems).where(eq(serverConfigProblems.serverId, serverId));
}

/** Before watchers of these servers start, each to find its own problem, if any. */
export async function clearConfigProblems(
  db: Database,
  serverIds: readonly number[],
): Promise<void> {
  if (serverIds.length === 0) return;
  await db.delete(serverConfigProblems).where(inArray(serverConfigProblems.serverId, serverIds));
}

/**
 * `{notedAt, problem}` of the server's configuration problem, or null (a correlated subquery;
 * see listings-repo).
 */
export function configProblemJson(serverId: SQL): SQL<unknown> {
  return sql`(select json_build_object('notedAt', ${serverConfigProblems.notedAt},
      'problem', ${serverConfigProblems.problem})
    from ${serverConfigProblems} where ${serverConfigProblems.serverId} = ${serverId})`;
}

/**
 * A value that moves whenever a configuration problem is noted, changes or goes (the
 * console's live updates poll it; see src/console/live-feed.ts).
 */
export const configProblemsVersion = sql<string>`(select concat_ws(':', count(*),
  sum(hashtext(concat_ws(':', ${serverConfigProblems.serverId}, ${serverConfigProblems.notedAt}))))
  from ${serverConfigProblems})`;
