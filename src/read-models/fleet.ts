import { changeCountsBySeverity } from '../changes/changes-repo.js';
import type { OutageKind } from '../vocabulary/outage-kinds.js';
import type { Database } from '../db/client.js';
import type { ServerRow } from '../db/schema.js';
import { fromStorableText } from '../db/storable.js';
import { CHANGE_SEVERITIES, type ChangeSeverity } from '../vocabulary/severities.js';
import { fleetQuery } from './fleet-repo.js';

export { fleetQuery };

/*
 * The fleet: every server with its state, in two statements whatever the number of
 * servers (one row per server, its latest listing, change, outage, held session, baseline
 * and open alerts read by correlated subqueries, each an index probe; and the change counts
 * by severity). The console's fleet page, its API and its bench read this.
 */

/**
 * up: listed, and no open outage; down: an open outage (a failed probe or a lost session
 * opens one); unknown: never listed yet.
 */
export type Health = 'up' | 'down' | 'unknown';
/**
 * held: a long-lived session is connected; probing: fresh probes only; misconfigured: not
 * watched, since its registration cannot work in serve's environment; disabled.
 */
export const WATCH_MODES = ['held', 'probing', 'misconfigured', 'disabled'] as const;
export type WatchMode = (typeof WATCH_MODES)[number];

/**
 * Where a server stands, in one word, as `server list`, the fleet and the server page all say
 * it: disabled (not watched, whatever it last did); misconfigured (serve will not watch it as
 * registered, a `${VAR}` it needs being unset; the problem goes with it); down (an open
 * outage, whose reason goes with it); needs_login (an outage of kind `auth`: the
 * authorization server refused its tokens, and `server login` is what it waits for); held (up, with a session connected); up (listed,
 * probed on its schedule); unlisted (never listed yet).
 */
export type ServerState =
  'disabled' | 'misconfigured' | 'needs_login' | 'down' | 'held' | 'up' | 'unlisted';

export interface FleetServer {
  name: string;
  transport: ServerRow['transport'];
  trust: ServerRow['trust'];
  enabled: boolean;
  health: Health;
  state: ServerState;
  /** When its open outage began, why, and of which kind (outage-kinds.ts). */
  down: { since: string; reason: string; kind: OutageKind } | null;
  /** Why serve does not watch it as registered, and since when it says so. */
  configProblem: { since: string; problem: string } | null;
  watch: WatchMode;
  /** The held session, when one is connected: since when, and when it last listed. */
  held: { since: string; listedAt: string | null; lastNotificationAt: string | null } | null;
  /** Its latest successful listing: when it began, and the listing's hash. */
  lastListing: { at: string; hash: string } | null;
  latestChange: { id: number; severity: ChangeSeverity; detectedAt: string } | null;
  baseline: { hash: string; approvedBy: string; approvedAt: string } | null;
  /** The latest listing is not the approved baseline. */
  drifted: boolean;
  unacknowledgedAlerts: number;
}

export const COUNT_WINDOWS = { '24h': 86_400, '7d': 7 * 86_400 } as const;
export type CountWindow = keyof typeof COUNT_WINDOWS;

export interface FleetView {
  servers: FleetServer[];
  /** Changes detected in the last 24 hours and 7 days, by severity (every severity present). */
  changeCounts: Record<CountWindow, Record<ChangeSeverity, number>>;
}

/** JSON from a subquery: postgres.js and PGlite both parse it, but a string is read too. */
function parsed<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** A timestamp from JSON (PostgreSQL writes the session's offset) as ISO 8601 UTC. */
const iso = (value: string) => new Date(value).toISOString();

type FleetRow = Awaited<ReturnType<typeof fleetQuery>>[number];

export async function fleetView(db: Database, options: { name?: string } = {}): Promise<FleetView> {
  const [rows, counts] = [
    await fleetQuery(db, options),
    options.name === undefined
      ? await changeCountsBySeverity(db, Object.values(COUNT_WINDOWS))
      : [],
  ];
  const changeCounts = Object.fromEntries(
    Object.keys(COUNT_WINDOWS).map((window, index) => [
      window,
      Object.fromEntries(
        CHANGE_SEVERITIES.map((severity) => [
          severity,
          counts.find((row) => row.severity === severity)?.counts[index] ?? 0,
        ]),
      ),
    ]),
  ) as FleetView['changeCounts'];
  return { servers: rows.map(fleetServer), changeCounts };
}

/** Every server's state without the fleet's change counts: what `server list` shows. */
export async function serverStates(db: Database): Promise<FleetServer[]> {
  return (await fleetQuery(db, {})).map(fleetServer);
}

function stateOf(server: Omit<FleetServer, 'state'>): ServerState {
  if (!server.enabled) return 'disabled';
  if (server.configProblem) return 'misconfigured';
  if (server.down?.kind === 'auth') return 'needs_login';
  if (server.health === 'down') return 'down';
  if (server.watch === 'held') return 'held';
  return server.health === 'up' ? 'up' : 'unlisted';
}

function fleetServer(row: FleetRow): FleetServer {
  const fields = fleetFields(row);
  return { ...fields, state: stateOf(fields) };
}

function fleetFields(row: FleetRow): Omit<FleetServer, 'state'> {
  const { server } = row;
  const problem = parsed<{ notedAt: string; problem: string }>(row.configProblem);
  // A session row can outlive its worker's last write by a moment: a disabled, misconfigured
  // or down server holds nothing, whatever the row says.
  const holding = server.enabled && !problem && !row.outage;
  const lastListing = parsed<{ at: string; hash: string }>(row.lastListing);
  const change = parsed<{ id: number; severity: ChangeSeverity; detectedAt: string }>(
    row.latestChange,
  );
  const outage = parsed<{ downAt: string; reason: string; kind: OutageKind }>(row.outage);
  const held = parsed<{
    connectedAt: string;
    listedAt: string | null;
    lastNotificationAt: string | null;
  }>(row.held);
  const baseline = parsed<{ hash: string; approvedBy: string; approvedAt: string }>(row.baseline);
  return {
    name: server.name,
    transport: server.transport,
    trust: server.trust,
    enabled: server.enabled,
    health: outage ? 'down' : lastListing ? 'up' : 'unknown',
    // Server text built into JSON by SQL skips the column's decoding (storable.ts).
    down: outage
      ? { since: iso(outage.downAt), reason: fromStorableText(outage.reason), kind: outage.kind }
      : null,
    configProblem: problem ? { since: iso(problem.notedAt), problem: problem.problem } : null,
    watch: !server.enabled
      ? 'disabled'
      : problem
        ? 'misconfigured'
        : held && holding
          ? 'held'
          : 'probing',
    held:
      held && holding
        ? {
            since: iso(held.connectedAt),
            listedAt: held.listedAt === null ? null : iso(held.listedAt),
            lastNotificationAt:
              held.lastNotificationAt === null ? null : iso(held.lastNotificationAt),
          }
        : null,
    lastListing: lastListing ? { at: iso(lastListing.at), hash: lastListing.hash } : null,
    latestChange: change
      ? { id: Number(change.id), severity: change.severity, detectedAt: iso(change.detectedAt) }
      : null,
    baseline: baseline
      ? {
          hash: baseline.hash,
          approvedBy: baseline.approvedBy,
          approvedAt: iso(baseline.approvedAt),
        }
      : null,
    drifted: lastListing !== null && baseline !== null && lastListing.hash !== baseline.hash,
    unacknowledgedAlerts: Number(row.unacknowledged ?? 0),
  };
}

export const FLEET_SORTS = ['name', 'health', 'listing', 'change', 'alerts'] as const;
export type FleetSort = (typeof FLEET_SORTS)[number];

/** What the fleet page's form (and the API's query) narrows the fleet to. */
export interface FleetFilter {
  /** A part of the name, any case. */
  text?: string;
  health?: Health;
  watch?: WatchMode;
  transport?: ServerRow['transport'];
  trust?: ServerRow['trust'];
  drifted?: boolean;
  /** Only servers whose latest change is at least this severe. */
  minSeverity?: ChangeSeverity;
  sort?: FleetSort;
}

const RANK: Record<ChangeSeverity, number> = {
  none: 0,
  info: 1,
  low: 2,
  medium: 3,
  high: 4,
  critical: 5,
};
const HEALTH_ORDER: Record<Health, number> = { down: 0, unknown: 1, up: 2 };

/**
 * Filters and sorts in memory: the fleet is read whole (it is one statement either way),
 * and a thousand rows sort in well under a millisecond. Ties keep name order.
 */
export function filterFleet(list: readonly FleetServer[], filter: FleetFilter): FleetServer[] {
  const text = filter.text?.trim().toLowerCase();
  const kept = list.filter(
    (server) =>
      (!text || server.name.toLowerCase().includes(text)) &&
      (filter.health === undefined || server.health === filter.health) &&
      (filter.watch === undefined || server.watch === filter.watch) &&
      (filter.transport === undefined || server.transport === filter.transport) &&
      (filter.trust === undefined || server.trust === filter.trust) &&
      (filter.drifted === undefined || server.drifted === filter.drifted) &&
      (filter.minSeverity === undefined ||
        RANK[server.latestChange?.severity ?? 'none'] >= RANK[filter.minSeverity]),
  );
  const by: Record<FleetSort, (a: FleetServer, b: FleetServer) => number> = {
    name: () => 0,
    health: (a, b) => HEALTH_ORDER[a.health] - HEALTH_ORDER[b.health],
    // Stalest first: the servers nobody has heard from lately.
    listing: (a, b) => (a.lastListing?.at ?? '').localeCompare(b.lastListing?.at ?? ''),
    // Worst first, then latest first.
    change: (a, b) =>
      RANK[b.latestChange?.severity ?? 'none'] - RANK[a.latestChange?.severity ?? 'none'] ||
      (b.latestChange?.detectedAt ?? '').localeCompare(a.latestChange?.detectedAt ?? ''),
    alerts: (a, b) => b.unacknowledgedAlerts - a.unacknowledgedAlerts,
  };
  const compare = by[filter.sort ?? 'name'];
  return kept.sort((a, b) => compare(a, b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
