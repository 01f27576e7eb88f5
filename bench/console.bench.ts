// The operator console's server time: rendering the fleet page and
// the changes feed with 1,000 servers and 100,000 observations, on the embedded database
// and on PostgreSQL. Run alone with `npm run bench -- console`.
//
// Each page is printed side by side with its floor, the bare SQL statements that feed it
// (the same statements, taken from the query builders with toSQL(), run through the driver
// with no mapping and no rendering): the fleet's two (servers with their state, change
// counts by severity), the feed's three (a page of changes, their findings, the server
// names of its filter). The gap is the console's own cost: mapping rows, filtering, JSX.
//
// The page is asked for through the Hono app in this process (app.request), as the HTTP
// listener would hand it over, with a bearer token: no socket, so what is measured is the
// server's time, not the network's.
//
// Settings (environment): BENCH_CONSOLE_DB=pglite|postgres|both (default: both when
// PostgreSQL answers at 127.0.0.1:5432, else pglite), BENCH_CONSOLE_SERVERS (1000),
// BENCH_CONSOLE_OBSERVATIONS (100 per server).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import {
  findingsOfChangesQuery,
  listChangesQuery,
  changeCountsQuery,
} from '../src/changes/changes-repo.js';
import { loadConfig } from '../src/config/load.js';
import { LiveFeed } from '../src/console/live-feed.js';
import { ConsoleKeys } from '../src/console/session.js';
import type { Database, DatabaseHandle } from '../src/db/client.js';
import {
  alerts,
  baselines,
  changes,
  deliveries,
  findings,
  heldSessions,
  outages,
  servers,
} from '../src/db/schema.js';
import { diffListings } from '../src/diff/index.js';
import { opsApp } from '../src/http/ops-server.js';
import { canonicalListing, type RawTool } from '../src/listings/canonical.js';
import { storeListing } from '../src/listings/listings-repo.js';
import { createLogger } from '../src/log.js';
import { COUNT_WINDOWS, fleetQuery } from '../src/read-models/fleet.js';
import { listServersQuery } from '../src/registry/servers-repo.js';
import { relaxed } from '../test/support/probe-results.js';
import { openBench } from './throwaway-database.js';
import { benchBackends, type Backend } from './watch-monitor.js';

const SERVERS = Number(process.env.BENCH_CONSOLE_SERVERS ?? 1000);
const PER_SERVER = Number(process.env.BENCH_CONSOLE_OBSERVATIONS ?? 100);
const ROUNDS = 15;
const WARMUP = 3;
const TOKEN = 'bench-console-token-0123456789';
const tools: RawTool[] = JSON.parse(
  readFileSync('test/fixtures/listings/memory.json', 'utf8'),
) as RawTool[];

interface Timing {
  ms: number;
  cpuMs: number;
}

/** Median of ROUNDS runs after WARMUP, one at a time. */
async function timed(run: () => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < WARMUP; i++) await run();
  const samples: Timing[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await run();
    const used = process.cpuUsage(cpu);
    samples.push({ ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
  }
  samples.sort((a, b) => a.ms - b.ms);
  return samples[Math.floor(samples.length / 2)]!;
}

/** A builder's statement with its parameters written in (they are numbers and plain words). */
function bare(
  db: Database,
  query: { toSQL(): { sql: string; params: unknown[] } },
): () => Promise<unknown> {
  const { sql: text, params } = query.toSQL();
  const inlined = text.replace(/\$(\d+)/g, (_, index: string) => {
    const value = params[Number(index) - 1];
    return typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;
  });
  const statement = sql.raw(inlined);
  return () => db.execute(statement);
}

/** 1,000 servers, 100 observations each over a week, changes with findings and alerts. */
export async function seed(handle: DatabaseHandle): Promise<{ changes: number; findings: number }> {
  const { db } = handle;
  const base = canonicalListing(tools);
  const changed = canonicalListing(relaxed(tools, 'delete_entities'));
  await storeListing(db, base);
  await storeListing(db, changed);
  const rows = Array.from({ length: SERVERS }, (_, i) =>
    i % 3 === 0
      ? {
          name: `bench-${String(i).padStart(4, '0')}`,
          transport: 'stdio' as const,
          command: 'node',
          args: ['server.js'],
        }
      : {
          name: `bench-${String(i).padStart(4, '0')}`,
          transport: 'http' as const,
          url: `http://127.0.0.1:9/${i}`,
        },
  );
  for (let i = 0; i < rows.length; i += 500)
    await db.insert(servers).values(rows.slice(i, i + 500));
  // Observations: every server's last PER_SERVER, 6,000 s apart (a week), each a run of one
  // (the worst case of runs: every attempt another outcome); even servers moved
  // to the relaxed listing ten observations ago; one in 37 is an error.
  const span = Math.floor((7 * 86_400) / PER_SERVER);
  await db.execute(sql`insert into observations
      (server_id, started_at, last_seen_at, duration_ms, trigger, outcome, listing_hash,
       error_code, error_message, protocol_version, pages, worker_id)
    select s.id, now() - make_interval(secs => (${PER_SERVER} - g) * ${span} + s.id % 60),
      now() - make_interval(secs => (${PER_SERVER} - g) * ${span} + s.id % 60),
      20 + g % 30, case when g % 10 = 0 then 'notification' else 'poll' end,
      case when g % 37 = 0 then 'error' else 'ok' end,
      case when g % 37 = 0 then null when s.id % 2 = 0 and g > ${PER_SERVER - 10} then ${changed.hash} else ${base.hash} end,
      case when g % 37 = 0 then 'REMOTE_UNREACHABLE' end,
      case when g % 37 = 0 then 'connection refused' end,
      '2025-11-25', 1, 'bench'
    from ${servers} s cross join generate_series(1, ${PER_SERVER}) g`);
  await db.execute(sql`insert into changes
      (server_id, previous_change_id, from_hash, to_hash, observation_id, detected_at, severity, notification_seen, exposure)
    select o.server_id, null, ${base.hash}, ${changed.hash}, o.id, o.started_at, 'critical', false, '{}'::jsonb
    from observations o
    where o.id = (select min(o2.id) from observations o2
      where o2.server_id = o.server_id and o2.listing_hash = ${changed.hash})`);
  const diff = diffListings(base, changed, {
    server: 'bench',
    delivery: { listChangedAdvertised: true, notificationSeen: false },
  });
  const changeRows = await db.select({ id: changes.id, serverId: changes.serverId }).from(changes);
  const findingRows = changeRows.flatMap((change) =>
    diff.findings.map((finding) => ({
      changeId: change.id,
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
  for (let i = 0; i < findingRows.length; i += 500)
    await db.insert(findings).values(findingRows.slice(i, i + 500));
  const alertRows = await db
    .insert(alerts)
    .values(
      changeRows.map((change, i) => ({
        serverId: change.serverId,
        changeId: change.id,
        severity: 'critical' as const,
        acknowledgedAt: i % 2 === 0 ? new Date() : null,
      })),
    )
    .returning();
  await db.insert(deliveries).values(
    alertRows.map((alert) => ({
      alertId: alert.id,
      serverId: alert.serverId,
      channel: 'email' as const,
      destination: 'ops@example.org',
      key: `bench-${alert.id}`,
      status: 'delivered' as const,
      attempts: 1,
      deliveredAt: new Date(),
    })),
  );
  await db.execute(sql`insert into ${baselines} (server_id, listing_hash, approved_by)
    select id, ${base.hash}, 'first-listing' from ${servers}`);
  await db.execute(sql`insert into ${heldSessions} (server_id, worker_id, connected_at, listing_hash, listed_at, list_changed_advertised)
    select id, 'bench', now() - interval '1 day', ${base.hash}, now() - interval '1 day', true
    from ${servers} where transport = 'http'`);
  await db.execute(sql`insert into ${outages} (server_id, down_at, reason)
    select id, now() - interval '1 hour', 'connection refused' from ${servers} where id % 20 = 0`);
  await db.execute(sql`analyze`);
  return { changes: changeRows.length, findings: findingRows.length };
}

async function runOn(backend: Backend): Promise<void> {
  const { handle, drop } = await openBench(backend, 'console');
  try {
    const seeded = await seed(handle);
    const config = loadConfig({ HTTP_PORT: '0', CONSOLE_TOKEN: TOKEN });
    const logger = createLogger('silent');
    const live = new LiveFeed(handle.db, { logger });
    const app = opsApp({
      db: handle.db,
      logger,
      workerId: 'bench',
      hosts: new Set(),
      console: { db: handle.db, config, logger, keys: new ConsoleKeys(TOKEN), live },
    });
    let size = 0;
    const page = (path: string) => async () => {
      const response = await app.request(path, { headers: { authorization: `Bearer ${TOKEN}` } });
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      size = (await response.text()).length;
    };
    const db = handle.db;
    const fleetBare = [
      bare(db, fleetQuery(db)),
      bare(db, changeCountsQuery(db, Object.values(COUNT_WINDOWS))),
    ];
    const firstPage = await listChangesQuery(db, { limit: 50 });
    const feedBare = [
      bare(db, listChangesQuery(db, { limit: 51 })),
      bare(
        db,
        findingsOfChangesQuery(
          db,
          firstPage.map((row) => row.change.id),
        ),
      ),
      bare(db, listServersQuery(db)),
    ];
    const all = (runs: (() => Promise<unknown>)[]) => async () => {
      for (const run of runs) await run();
    };

    const fleet = await timed(page('/'));
    const fleetSize = size;
    const fleetSql = await timed(all(fleetBare));
    const api = await timed(page('/api/v1/servers'));
    const feed = await timed(page('/changes'));
    const feedSize = size;
    const feedSql = await timed(all(feedBare));
    const line = (label: string, t: Timing, floor: Timing | null) =>
      `  ${label.padEnd(46)} ${t.ms.toFixed(1).padStart(8)} ms ${t.cpuMs.toFixed(1).padStart(8)} ms` +
      (floor ? `  ${(t.ms / floor.ms).toFixed(2).padStart(6)} ×` : '');
    console.log(
      `  on ${backend === 'pglite' ? 'PGlite' : 'PostgreSQL'}: ${SERVERS} servers, ${SERVERS * PER_SERVER} observations, ${seeded.changes} changes, ${seeded.findings} findings`,
    );
    console.log(line(`fleet page (${(fleetSize / 1024).toFixed(0)} KiB of HTML)`, fleet, fleetSql));
    console.log(line('  its 2 bare SQL statements (baseline)', fleetSql, null));
    console.log(line('  GET /api/v1/servers (the same, as JSON)', api, fleetSql));
    console.log(line(`changes feed (${(feedSize / 1024).toFixed(0)} KiB of HTML)`, feed, feedSql));
    console.log(line('  its 3 bare SQL statements (baseline)', feedSql, null));
  } finally {
    await handle.close();
    await drop();
  }
}

export async function runConsoleBench(): Promise<void> {
  const backends = await benchBackends(process.env.BENCH_CONSOLE_DB);
  console.log(
    `console: server time of a page, through the Hono app in process, median of ${ROUNDS} after ${WARMUP} warm-ups; load average ${loadavg()[0]!.toFixed(2)}`,
  );
  console.log(`  ${''.padEnd(46)} ${'wall'.padStart(11)} ${'CPU here'.padStart(11)}  vs baseline`);
  for (const backend of backends) await runOn(backend);
}
