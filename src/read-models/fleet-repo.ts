import { asc, eq, sql } from 'drizzle-orm';
import { unacknowledgedAlertCount } from '../alerts/alerts-repo.js';
import { latestChangeJson } from '../changes/changes-repo.js';
import type { Database } from '../db/client.js';
import { servers } from '../db/schema.js';
import { baselineJson, latestListingJson } from '../listings/listings-repo.js';
import { configProblemJson } from '../watch/config-problems-repo.js';
import { heldSessionJson } from '../watch/held-sessions-repo.js';
import { openOutageJson } from '../watch/outages-repo.js';

/*
 * The fleet's one statement: a row per server with its latest listing, change, outage,
 * configuration problem, held session, baseline and open alerts, each a correlated subquery (an index probe) built by the
 * repository of its table. fleet.ts shapes the rows.
 */

/** The statement behind the fleet's rows, for a caller that runs it bare (the bench). */
export function fleetQuery(db: Database, options: { name?: string } = {}) {
  const id = sql`${servers.id}`;
  return db
    .select({
      server: servers,
      lastListing: latestListingJson(id),
      latestChange: latestChangeJson(id),
      outage: openOutageJson(id),
      configProblem: configProblemJson(id),
      held: heldSessionJson(id),
      baseline: baselineJson(id),
      unacknowledged: unacknowledgedAlertCount(id),
    })
    .from(servers)
    .where(options.name === undefined ? undefined : eq(servers.name, options.name))
    .orderBy(asc(servers.name));
}
