// A simulated history for 1,000 servers probed every 5 minutes, with a change per server
// per month, written directly in the database, on both backends.
// Beside it, on the same data in the same database, today's schema before runs: a schema
// `old_history` holding the observations table as migration 0006 left it (a row per
// attempt, the same indexes), filled with generate_series. Printed: table and index sizes,
// a /metrics scrape, `history NAME`, the fleet's latest listings, the changes feed, and
// recording one more unchanged observation, each beside the old schema's figure as a ratio.
// Run with `npm run bench -- history`.
//
// Settings (environment): BENCH_HISTORY_DB=pglite|postgres|both (default: both when
// PostgreSQL answers), BENCH_HISTORY_SERVERS (1000), BENCH_HISTORY_DAYS (365: the runs
// schema), BENCH_HISTORY_OLD_DAYS (7: the old schema, a row per attempt; 0 skips it; a year
// is 105 million rows, more than this bench builds in reasonable time on a small machine).
// When the two differ, the runs schema is also built for BENCH_HISTORY_OLD_DAYS in a
// schema of its own, so that every ratio compares the same data.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { emailOnlyPolicy } from '../src/alerts/alert-policy.js';
import { extendLatestRuns, listChanges } from '../src/changes/changes-repo.js';
import { serverHistory } from '../src/changes/history.js';
import { recordObservation } from '../src/changes/record-observation.js';
import type { Database } from '../src/db/client.js';
import { readMetricsSnapshot } from '../src/http/metrics-repo.js';
import { canonicalListing, type RawTool } from '../src/listings/canonical.js';
import { countAttempts } from '../src/listings/observation-counts-repo.js';
import { fleetView } from '../src/read-models/fleet.js';
import { getServer } from '../src/registry/servers-repo.js';
import { listed, withHints } from '../test/support/probe-results.js';
import { openBench } from './throwaway-database.js';
import { benchBackends, type Backend } from './watch-monitor.js';

const SERVERS = Number(process.env.BENCH_HISTORY_SERVERS ?? 1000);
const DAYS = Number(process.env.BENCH_HISTORY_DAYS ?? 365);
const OLD_DAYS = Number(process.env.BENCH_HISTORY_OLD_DAYS ?? 7);
const PROBES_PER_DAY = 288;
const MONTH_DAYS = 30;
const ROUNDS = 5;
const END = Date.parse('2026-12-01T00:00:00.000Z');
const tools: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));

/** One listing per month, shared by all servers: listing m is what month m shows. */
function monthListings(months: number) {
  return Array.from({ length: months }, (_, m) =>
    canonicalListing(withHints(tools, 'read_graph', { title: `month ${m}` })),
  );
}

function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}

async function one<T>(db: Database, query: ReturnType<typeof sql>): Promise<T> {
  return rowsOf<T>(await db.execute(query))[0]!;
}

/** Median wall time of ROUNDS runs after one warm-up. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  await run();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/**
 * Servers, listings, baselines, and per server a change at each month boundary (the
 * listing of that month); a 5-minute error once a week. Shared by both schemas.
 */
export async function seedShared(db: Database, days: number): Promise<void> {
  const months = Math.ceil(days / MONTH_DAYS);
  const listings = monthListings(months);
  for (const listing of listings) {
    await db.execute(sql`insert into listings (hash, body, tool_hashes, tool_count, byte_size)
      values (${listing.hash}, ${listing.canonical}, ${JSON.stringify(listing.toolHashes)}::jsonb,
        ${listing.tools.length}, ${listing.canonical.length}) on conflict do nothing`);
  }
  await db.execute(sql`insert into servers (name, transport, url)
    select 'bench-' || lpad(g::text, 4, '0'), 'http', 'http://127.0.0.1:9/' || g
    from generate_series(1, ${SERVERS}) g`);
  await db.execute(sql`insert into baselines (server_id, listing_hash, approved_by)
    select id, ${listings[0]!.hash}, 'first-listing' from servers`);
}

/** The runs of `days` days, in `schema` (its observations table), as recording writes them. */
export async function seedRuns(db: Database, schema: string, days: number, withChanges: boolean) {
  const months = Math.ceil(days / MONTH_DAYS);
  const hashes = monthListings(months).map((listing) => listing.hash);
  const start = END - days * 86_400_000;
  const t = sql.raw(`"${schema}".observations`);
  // Per server and month: the ok run of that month's listing, and each week an error run of
  // one attempt followed by an ok run of the same listing (an error splits a run in three).
  await db.execute(sql`insert into ${t} (server_id, started_at, last_seen_at, duration_ms, trigger,
      outcome, listing_hash, error_code, error_message, protocol_version, pages, worker_id, count,
      last_poll_at)
    select s.id, p.first_at, p.last_at, 40, 'poll', p.outcome,
      case when p.outcome = 'ok' then (string_to_array(${hashes.join(',')}, ','))[p.month + 1] end,
      case when p.outcome = 'error' then 'REMOTE_UNREACHABLE' end,
      case when p.outcome = 'error' then 'connect ECONNREFUSED' end,
      '2025-11-25', 1, 'bench', p.n, p.last_at
    from servers s cross join lateral (
      select w.month, w.outcome, w.first_at, w.last_at, w.n from (
        select m as month, part, outcome,
          to_timestamp(${start / 1000}) + make_interval(mins => 5 * first_probe) as first_at,
          to_timestamp(${start / 1000}) + make_interval(mins => 5 * last_probe) as last_at,
          last_probe - first_probe + 1 as n
        from generate_series(0, ${months - 1}) m
        cross join lateral (values
          (0, 'ok', m * ${MONTH_DAYS * PROBES_PER_DAY},
            least(m * ${MONTH_DAYS * PROBES_PER_DAY} + 2015, ${days * PROBES_PER_DAY - 1})),
          (1, 'error', m * ${MONTH_DAYS * PROBES_PER_DAY} + 2016, m * ${MONTH_DAYS * PROBES_PER_DAY} + 2016),
          (2, 'ok', m * ${MONTH_DAYS * PROBES_PER_DAY} + 2017,
            least((m + 1) * ${MONTH_DAYS * PROBES_PER_DAY}, ${days * PROBES_PER_DAY}) - 1)
        ) as parts(part, outcome, first_probe, last_probe)
        where first_probe < ${days * PROBES_PER_DAY}
        order by m, part
      ) w
    ) p`);
  if (withChanges) await seedChanges(db, schema);
}

/** A change at each month's first run (after the first month), chained per server. */
async function seedChanges(db: Database, schema: string) {
  const t = sql.raw(`"${schema}".observations`);
  // Ids given here, so that each change is written after its server's previous one (the
  // chain's unique link).
  await db.execute(sql`insert into changes (id, server_id, previous_change_id, from_hash, to_hash,
      observation_id, detected_at, severity, notification_seen, exposure)
    select cid, server_id, lag(cid) over (partition by server_id order by cid), from_hash, to_hash,
      oid, started_at, 'medium', null, '{}'::jsonb
    from (
      select row_number() over (order by o.id) as cid, o.server_id, prev.listing_hash as from_hash,
        o.listing_hash as to_hash, o.id as oid, o.started_at
      from ${t} o cross join lateral (
        select p.listing_hash from ${t} p
        where p.server_id = o.server_id and p.outcome = 'ok' and p.id < o.id
        order by p.id desc limit 1
      ) prev
      where o.outcome = 'ok' and prev.listing_hash <> o.listing_hash
    ) c`);
  await db.execute(
    sql`select setval(pg_get_serial_sequence('changes', 'id'), coalesce((select max(id) from changes), 1))`,
  );
  await db.execute(sql`insert into observation_counts (trigger, outcome, bucket, count, sum_ms)
    select 'poll', outcome, 0, sum(count), sum(count) * 40 from ${t} group by outcome`);
}

/** Today's layout before runs (migration 0006): one row per attempt, with its indexes. */
async function createOldSchema(db: Database, schema: string) {
  await db.execute(sql.raw(`create schema "${schema}"`));
  await db.execute(
    sql.raw(`create table "${schema}".observations (
    id bigserial primary key, server_id integer not null references servers(id) on delete cascade,
    started_at timestamptz not null, duration_ms integer not null, trigger text not null,
    outcome text not null, listing_hash text references listings(hash), error_code text,
    error_message text, protocol_version text, server_info jsonb, capabilities jsonb,
    ttl_ms bigint, cache_scope text, pages integer, worker_id text)`),
  );
  await db.execute(
    sql.raw(`create index on "${schema}".observations (server_id, started_at desc)`),
  );
  await db.execute(
    sql.raw(`create index on "${schema}".observations (server_id, id) where outcome = 'ok'`),
  );
}

/** The old layout's rows for `days` days: every 5-minute attempt, the same outcomes. */
async function seedOld(db: Database, schema: string, days: number) {
  const months = Math.ceil(days / MONTH_DAYS);
  const hashes = monthListings(months).map((listing) => listing.hash);
  const start = END - days * 86_400_000;
  const perMonth = MONTH_DAYS * PROBES_PER_DAY;
  // A day of probes per statement: each statement stays a size both backends take in stride.
  for (let day = 0; day < days; day++) {
    await db.execute(sql`insert into ${sql.raw(`"${schema}".observations`)} (server_id, started_at,
        duration_ms, trigger, outcome, listing_hash, error_code, error_message, protocol_version,
        pages, worker_id)
      select s.id, to_timestamp(${start / 1000}) + make_interval(mins => 5 * g), 40, 'poll',
        case when g % ${perMonth} = 2016 then 'error' else 'ok' end,
        case when g % ${perMonth} <> 2016 then (string_to_array(${hashes.join(',')}, ','))[g / ${perMonth} + 1] end,
        case when g % ${perMonth} = 2016 then 'REMOTE_UNREACHABLE' end,
        case when g % ${perMonth} = 2016 then 'connect ECONNREFUSED' end,
        '2025-11-25', 1, 'bench'
      from generate_series(${day * PROBES_PER_DAY}::int, ${(day + 1) * PROBES_PER_DAY - 1}::int) g
      cross join servers s
      order by g, s.id`);
  }
  await db.execute(sql.raw(`analyze "${schema}".observations`));
}

async function sizeOf(db: Database, tables: string[]): Promise<number> {
  let total = 0;
  for (const table of tables) {
    const row = await one<{ bytes: number | string }>(
      db,
      sql`select pg_total_relation_size(${table}::regclass) as bytes`,
    );
    total += Number(row.bytes);
  }
  return total;
}

/** The old scrape's reads of observations (src/http/metrics-repo.ts before runs). */
function oldScrape(db: Database, schema: string) {
  const t = sql.raw(`"${schema}".observations`);
  const buckets = [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000]
    .map((ms) => `(count(*) filter (where duration_ms <= ${ms}))::float8`)
    .join(', ');
  return db.transaction(
    async (tx) => {
      await tx.execute(sql`select trigger, outcome, count(*)::float8, coalesce(sum(duration_ms), 0)::float8,
        ${sql.raw(buckets)} from ${t} group by trigger, outcome`);
      await tx.execute(sql`select s.name, extract(epoch from now() - (select max(o.started_at)
          from ${t} o where o.server_id = s.id and o.outcome = 'ok'))::float8
        from servers s where s.enabled`);
      await tx.execute(sql`select severity, count(*) from changes group by severity`);
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** Each server's latest listing: the part of the fleet query that reads observations. */
function latestListings(db: Database, schema: string, column: 'started_at' | 'last_seen_at') {
  const t = sql.raw(`"${schema}".observations`);
  return db.execute(sql`select s.id, (select json_build_object('at', o.${sql.raw(column)}, 'hash', o.listing_hash)
      from ${t} o where o.server_id = s.id and o.outcome = 'ok' order by o.id desc limit 1)
    from servers s order by s.name`);
}

/** `history NAME` before runs: the server's latest 50 observations and their changes. */
async function oldHistory(db: Database, schema: string, name: string) {
  const t = sql.raw(`"${schema}".observations`);
  const serverId = (await getServer(db, name)).id;
  const rows = rowsOf<{ id: number }>(
    await db.execute(
      sql`select * from ${t} where server_id = ${serverId} order by id desc limit 50`,
    ),
  );
  await db.execute(
    sql`select * from changes where observation_id in (${sql.join(
      rows.map((row) => sql`${row.id}`),
      sql`, `,
    )})`,
  );
}

/**
 * One unchanged observation before runs: an insert on the condition that the chain ends at
 * it (insertUnchangedObservations of migration 0006's code). It must write: a row that the
 * condition turns away would time a no-op.
 */
async function oldRecord(db: Database, schema: string, serverId: number, hash: string) {
  const t = sql.raw(`"${schema}".observations`);
  const written =
    await db.execute(sql`insert into ${t} (server_id, started_at, duration_ms, trigger, outcome,
      listing_hash, protocol_version, pages, worker_id)
    select ${serverId}, now(), 40, 'poll', 'ok', ${hash}, '2025-11-25', 1, 'bench'
    where coalesce((select to_hash from changes where server_id = ${serverId} order by id desc limit 1),
      (select listing_hash from ${t} where server_id = ${serverId} and outcome = 'ok' order by id limit 1)) = ${hash}
    returning id`);
  if (rowsOf(written).length !== 1) throw new Error('the old-schema observation was not written');
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

function line(label: string, value: string, old?: string, ratio?: number) {
  const tail = old === undefined ? '' : `${old.padStart(12)}  ${ratio!.toFixed(4).padStart(9)} ×`;
  console.log(`  ${label.padEnd(44)} ${value.padStart(12)}${tail}`);
}

async function runOn(backend: Backend): Promise<void> {
  const { handle, drop } = await openBench(backend, 'history');
  const db = handle.db;
  try {
    let started = performance.now();
    await seedShared(db, Math.max(DAYS, OLD_DAYS));
    await seedRuns(db, 'public', DAYS, true);
    await db.execute(sql`analyze`);
    const runs = await one<{ n: number | string; attempts: number | string }>(
      db,
      sql`select count(*) as n, sum(count) as attempts from observations`,
    );
    const changeCount = await one<{ n: number | string }>(
      db,
      sql`select count(*) as n from changes`,
    );
    console.log(
      `  on ${backend === 'pglite' ? 'PGlite' : 'PostgreSQL'}: ${SERVERS} servers, ${DAYS} days: ` +
        `${Number(runs.attempts).toLocaleString('en-US')} observations in ${Number(runs.n).toLocaleString('en-US')} runs, ` +
        `${Number(changeCount.n).toLocaleString('en-US')} changes (built in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
    const server = await getServer(db, 'bench-0001');
    const hashes = monthListings(Math.ceil(DAYS / MONTH_DAYS)).map((listing) => listing.hash);
    const current = await one<{ hash: string }>(
      db,
      sql`select listing_hash as hash from observations where server_id = ${server.id} and outcome = 'ok' order by id desc limit 1`,
    );
    const lastTools = withHints(tools, 'read_graph', {
      title: `month ${hashes.indexOf(current.hash)}`,
    });
    const policy = emailOnlyPolicy([]);
    const newFigures = {
      size: await sizeOf(db, ['observations', 'observation_counts']),
      scrape: await timed(() => readMetricsSnapshot(db, 'bench')),
      history: await timed(() => serverHistory(db, server.name, { limit: 50 })),
      fleetListings: await timed(() => latestListings(db, 'public', 'last_seen_at')),
      fleet: await timed(() => fleetView(db)),
      changes: await timed(() => listChanges(db, { limit: 50 })),
      record: await timed(() =>
        recordObservation(db, {
          server,
          result: listed(lastTools, { durationMs: 40 }),
          trigger: 'poll',
          startedAt: new Date(),
          alerts: policy,
        }),
      ),
    };
    // The statements alone, as the old bare insert below is: extend the run, count it.
    const attempt = () => {
      const at = new Date();
      return {
        serverId: server.id,
        startedAt: at,
        lastSeenAt: at,
        lastPollAt: at,
        durationMs: 40,
        trigger: 'poll' as const,
        outcome: 'ok' as const,
        listingHash: current.hash,
        protocolVersion: '2025-11-25',
        pages: 1,
        workerId: 'bench',
      };
    };
    // As SightingBatcher writes them: one transaction, one commit.
    const statement = await timed(() =>
      db.transaction(async (tx) => {
        const row = attempt();
        const [extended] = await extendLatestRuns(tx, [row]);
        if (!extended) throw new Error('the bench run was not extended');
        await countAttempts(tx, [row]);
      }),
    );
    const recorded = await one<{ n: number | string }>(
      db,
      sql`select count(*) as n from observations where server_id = ${server.id}`,
    );

    console.log(
      `  ${''.padEnd(44)} ${'runs'.padStart(12)}${'before runs'.padStart(12)}  ${'ratio'.padStart(9)}`,
    );
    line(`runs schema, ${DAYS} days: observations + indexes`, mb(newFigures.size));
    line('  /metrics scrape (readMetricsSnapshot)', ms(newFigures.scrape));
    line('  history NAME (50 runs)', ms(newFigures.history));
    line('  fleet view (whole query)', ms(newFigures.fleet));
    line('  changes feed (50)', ms(newFigures.changes));
    line('  record one unchanged (recordObservation)', ms(newFigures.record));
    line('  record one unchanged (its statements)', ms(statement));
    console.log(
      `  (after ${ROUNDS + 1} more unchanged observations, bench-0001 has ${recorded.n} runs)`,
    );

    if (OLD_DAYS > 0) {
      started = performance.now();
      let same = 'public';
      if (OLD_DAYS !== DAYS) {
        // The runs schema again, for the old schema's days: ratios compare the same data.
        same = 'runs_same_days';
        await db.execute(sql.raw(`create schema ${same}`));
        await db.execute(
          sql.raw(`create table ${same}.observations (like public.observations including all)`),
        );
        await seedRuns(db, same, OLD_DAYS, false);
      }
      await createOldSchema(db, 'old_history');
      await seedOld(db, 'old_history', OLD_DAYS);
      const oldRows = await one<{ n: number | string }>(
        db,
        sql`select count(*) as n from old_history.observations`,
      );
      console.log(
        `  the same ${OLD_DAYS} days both ways: ${Number(oldRows.n).toLocaleString('en-US')} rows before runs ` +
          `(built in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
      );
      const sameTables =
        same === 'public'
          ? ['observations', 'observation_counts']
          : [`${same}.observations`, 'observation_counts'];
      const sizeNew = await sizeOf(db, sameTables);
      const sizeOld = await sizeOf(db, ['old_history.observations']);
      const oldServer = server.id;
      // The changes table is shared: the chain ends where the runs schema's history does.
      const last = current.hash;
      const old = {
        scrape: await timed(() => oldScrape(db, 'old_history')),
        history: await timed(() => oldHistory(db, 'old_history', server.name)),
        fleetListings: await timed(() => latestListings(db, 'old_history', 'started_at')),
        record: await timed(() => oldRecord(db, 'old_history', oldServer, last)),
      };
      const sameFleet = await timed(() => latestListings(db, same, 'last_seen_at'));
      line(`${OLD_DAYS} days: observations + indexes`, mb(sizeNew), mb(sizeOld), sizeNew / sizeOld);
      line(
        '  /metrics scrape',
        ms(newFigures.scrape),
        ms(old.scrape),
        newFigures.scrape / old.scrape,
      );
      line(
        '  history NAME',
        ms(newFigures.history),
        ms(old.history),
        newFigures.history / old.history,
      );
      line(
        "  fleet: servers' latest listings",
        ms(sameFleet),
        ms(old.fleetListings),
        sameFleet / old.fleetListings,
      );
      line(
        '  changes feed (reads no observations)',
        ms(newFigures.changes),
        ms(newFigures.changes),
        1,
      );
      line(
        '  record one unchanged (statements)',
        ms(statement),
        ms(old.record),
        statement / old.record,
      );
      if (same !== 'public') {
        console.log(
          `  (the runs column's scrape, history and record figures are of its ${DAYS} days, the old column's of ${OLD_DAYS}; sizes and fleet figures are both of ${OLD_DAYS})`,
        );
      }
    }
  } finally {
    await handle.close();
    await drop();
  }
}

export async function runHistoryBench(): Promise<void> {
  const backends = await benchBackends(process.env.BENCH_HISTORY_DB);
  console.log(
    `history: a simulated ${DAYS}-day history, median of ${ROUNDS} after a warm-up; load average ${loadavg()[0]!.toFixed(2)}`,
  );
  for (const backend of backends) await runOn(backend);
}
