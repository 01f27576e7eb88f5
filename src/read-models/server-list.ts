import type { Database } from '../db/client.js';
import { listServerViews } from '../registry/server-registry.js';
import type { ServerView, ViewDefaults } from '../registry/server-view.js';
import { serverStates, type FleetServer, type ServerState } from './fleet.js';

/*
 * `server list`: each registration with where it stands, from the same read model as the
 * console's fleet, so that the terminal and the console name the same state and the same
 * reason for a down or misconfigured server.
 */

export interface ServerStatus {
  state: ServerState;
  /** Set when down: since when, and the outage's reason. */
  down: { since: string; reason: string } | null;
  /** Set when serve will not watch it as registered: since when, and why. */
  configProblem: FleetServer['configProblem'];
  lastListingAt: string | null;
  latestChange: FleetServer['latestChange'];
}

export type ListedServer = ServerView & { status: ServerStatus };

export async function listServersWithState(
  db: Database,
  defaults: ViewDefaults,
): Promise<ListedServer[]> {
  const views = await listServerViews(db, defaults);
  const states = new Map((await serverStates(db)).map((server) => [server.name, server]));
  return views.map((view) => {
    const state = states.get(view.name);
    return {
      ...view,
      status: {
        // A server registered between the two reads has no state row yet: not listed.
        state: state?.state ?? 'unlisted',
        down: state?.down ?? null,
        configProblem: state?.configProblem ?? null,
        lastListingAt: state?.lastListing?.at ?? null,
        latestChange: state?.latestChange ?? null,
      },
    };
  });
}
