// The watch service at scale: a real
// `mcp-drift serve` holding 1,000 Streamable HTTP sessions on loopback, its memory per held
// session beside what bare SDK clients holding the same sessions cost. Run alone with
// `npx tsx bench/watch.bench.ts`, or `npm run bench -- watch --sessions 5000`.
//
// Settings: `--sessions N` (or BENCH_WATCH_SERVERS; 1000). Environment:
// BENCH_WATCH_DB=pglite|postgres|both (default: both when PostgreSQL answers at
// 127.0.0.1:5432, else pglite),
// BENCH_WATCH_FIXTURE=server|mcpserver (see bench/fixtures/many-servers.mjs),
// BENCH_WATCH_FIXTURE_PROCESSES (2), BENCH_WATCH_LOG_LEVEL (serve's LOG_LEVEL, info),
// BENCH_WATCH_SERVE_NODE_OPTIONS (serve's NODE_OPTIONS, e.g. --max-old-space-size=256),
// BENCH_WATCH_DEADLINE_MIN (10 per 1,000 sessions: the whole bench; a loaded machine may
// need more), BENCH_WATCH_PROBE_ROUNDS (3 of each probe loop; 1 shortens a 5,000 run),
// BENCH_WATCH_KEEP_LOG (a directory: serve's log is copied there as serve-<database>.log),
// BENCH_WATCH_SERVE_NODE_ARGS (node flags for serve that NODE_OPTIONS refuses, space-separated,
// e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
import { copyFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { bigint, integer, pgTable, timestamp } from 'drizzle-orm/pg-core';
import { loadConfig } from '../src/config/load.js';
import { changes, heldSessions, observations } from '../src/db/schema.js';
import { measureBareHolders, type BareHolding } from './watch-bare-holders.js';
import { FixtureServers, killAll, type FixtureKind } from './watch-fixtures.js';
import {
  BenchDatabase,
  buildIfStale,
  cpuSecondsOf,
  dropAll,
  memoryOf,
  openFileLimit,
  openFiles,
  postgresReachable,
  sampleProcess,
  ServeProcess,
  type Backend,
} from './watch-monitor.js';
import { bareSdkCycle, driftCycle, probeOnlyCycle, type Cycle } from './watch-probe-cycle.js';

/** The targets this bench is held to (docs/watch-service.md). */
const TARGET_P99_MS = 250;
const TARGET_RATIO = 1.2;
/** Marginal memory per held session: at most this, and this many times the bare SDK's. */
const TARGET_PER_SESSION_BYTES = 100 * 1024;
const TARGET_PER_SESSION_RATIO = 1.3;

const TOOLS = 50;
const CHANGES = 100;
/** Changes are sent this far apart, each to another server: a few overlap in flight. */
const CHANGE_SPACING_MS = 100;
const PROBE_CONCURRENCY = 16;
const PROBE_ROUNDS = Number(process.env.BENCH_WATCH_PROBE_ROUNDS ?? 3);
/** The whole bench, both databases included, ends by then; a stuck step fails instead. */
const OVERALL_DEADLINE_MS = Number(process.env.BENCH_WATCH_DEADLINE_MIN ?? 10) * 60_000;
/** Holding (and the overall deadline's default) scales with the sessions: 1,000 took 40 s. */
const HOLD_TIMEOUT_MS = 180_000;
const scaled = (ms: number, servers: number) => ms * Math.max(1, servers / 1000);
const COMMIT_TIMEOUT_MS = 60_000;
const MEMORY_SAMPLE_SECONDS = 20;
/** From all held to the first memory sample. */
const SETTLE_MS = 10_000;

/** Installed by watch-monitor.ts in the throwaway database. */
const benchCommits = pgTable('bench_commits', {
  changeId: bigint('change_id', { mode: 'number' }).primaryKey(),
  serverId: integer('server_id').notNull(),
  committedAt: timestamp('committed_at', { withTimezone: true }).notNull(),
});

interface RunResult {
  backend: Backend;
  location: string;
  holdMs: number;
  /** serve with no server enabled, and with every session held. */
  empty: Sample;
  full: Sample;
  peak: number;
  fds: number;
  fixtureSessions: number;
  latencies: number[];
  toRelist: number[];
  relistToCommit: number[];
  notNotified: number;
  missing: number;
  /** serve's CPU time from the first change sent until all were committed. */
  changeCpuSeconds: number;
  /** Absent when the probe cycles failed or ran out of time (`cycleError` says why). */
  cycles?: { bare: Cycle; drift: Cycle; probeOnly: Cycle };
  cycleError?: string;
  shutdownMs: number | null;
}

type Sample = Awaited<ReturnType<typeof sampleProcess>>;

class Deadline {
  private readonly at: number;
  constructor(ms: number) {
    this.at = Date.now() + ms;
  }
  /** At most `ms`, and never past the deadline. */
  within(ms: number): number {
    return Math.max(0, Math.min(ms, this.at - Date.now()));
  }
}

/** `--sessions N` on the command line (npm run bench -- watch --sessions 5000). */
function sessionsFromArguments(): string | undefined {
  const at = process.argv.indexOf('--sessions');
  if (at === -1) return undefined;
  const value = process.argv[at + 1];
  if (!value || !/^[1-9]\d*$/.test(value)) throw new Error(`--sessions ${value ?? ''}?`);
  return value;
}

function settingsFromEnvironment() {
  const kind = process.env.BENCH_WATCH_FIXTURE ?? 'server';
  if (kind !== 'server' && kind !== 'mcpserver') throw new Error(`BENCH_WATCH_FIXTURE=${kind}?`);
  return {
    servers: Number(sessionsFromArguments() ?? process.env.BENCH_WATCH_SERVERS ?? 1000),
    processes: Number(process.env.BENCH_WATCH_FIXTURE_PROCESSES ?? 2),
    kind: kind as FixtureKind,
    logLevel: process.env.BENCH_WATCH_LOG_LEVEL ?? 'info',
    nodeOptions: process.env.BENCH_WATCH_SERVE_NODE_OPTIONS,
    nodeArgs: (process.env.BENCH_WATCH_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean),
    db: process.env.BENCH_WATCH_DB,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: p99 of 100 samples is the 99th smallest.
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function median(values: number[]): number {
  return percentile(values, 50);
}

/** Polls until `done` says so or `ms` passes; false on timeout. */
async function until(ms: number, every: number, done: () => Promise<boolean>): Promise<boolean> {
  const end = performance.now() + ms;
  for (;;) {
    if (await done()) return true;
    if (performance.now() + every > end) return false;
    await sleep(every);
  }
}

async function runOnce(
  backend: Backend,
  fixtures: FixtureServers,
  settings: ReturnType<typeof settingsFromEnvironment>,
  deadline: Deadline,
  load: number[],
): Promise<RunResult> {
  const count = fixtures.urls.length;
  const database = await BenchDatabase.create(backend, fixtures.urls);
  let serve: ServeProcess | undefined;
  try {
    serve = ServeProcess.start(
      database,
      {
        LOG_LEVEL: settings.logLevel,
        PROBE_CONCURRENCY: String(PROBE_CONCURRENCY),
        // Any free port: the default may be taken by another serve on the machine.
        HTTP_PORT: '0',
        ...(settings.nodeOptions ? { NODE_OPTIONS: settings.nodeOptions } : {}),
      },
      settings.nodeArgs,
    );
    await database.reopen(serve, deadline.within(60_000));
    const db = database.db;
    const running = serve;
    const alive = () => {
      if (!running.running) throw new Error(`serve exited:\n${running.logTail()}`);
    };

    // 1. serve's own footprint: up, through a tick, no server enabled yet.
    const ready = async () => (alive(), database.workerAlive());
    if (!(await until(deadline.within(60_000), 200, ready))) throw new Error('serve never beat');
    await sleep(deadline.within(3_000));
    const empty = await sampleProcess(running.pid, 3);
    load.push(loadavg()[0]!);

    // 2. Every session held: a held_sessions row with the listing it took.
    await database.enableAll();
    const started = performance.now();
    const held = async () => {
      alive();
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(heldSessions)
        .where(isNotNull(heldSessions.listingHash));
      return (row?.n ?? 0) >= count;
    };
    if (!(await until(deadline.within(scaled(HOLD_TIMEOUT_MS, count)), 500, held))) {
      throw new Error(`not all ${count} sessions were held in time:\n${running.logTail()}`);
    }
    const holdMs = performance.now() - started;

    // 3. Memory once the start-up burst is over (and serve has compacted its heap, 5 s after
    // the burst: src/cli/serve-heap.ts), sampled long enough to see V8's collections.
    await sleep(deadline.within(SETTLE_MS));
    const full = await sampleProcess(running.pid, MEMORY_SAMPLE_SECONDS);
    const { peak } = memoryOf(running.pid);
    const fds = openFiles(running.pid);
    const fixtureSessions = await fixtures.sessions();
    load.push(loadavg()[0]!);

    // 4. Changes, each to another server, spread over the fixture processes.
    const rows = await database.serverRows();
    const idOf = new Map(rows.map((row) => [Number(row.name.slice('bench-'.length)), row.id]));
    const sent = new Map<number, number>();
    const sending: Array<Promise<void>> = [];
    const cpuBefore = cpuSecondsOf(running.pid);
    const first = performance.now();
    for (let k = 0; k < CHANGES; k++) {
      const index = Math.floor((((k * 37) % CHANGES) * count) / CHANGES);
      const serverId = idOf.get(index)!;
      await sleep(Math.max(0, first + k * CHANGE_SPACING_MS - performance.now()));
      sending.push(fixtures.change(index).then(({ sentAt }) => void sent.set(serverId, sentAt)));
    }
    await Promise.all(sending);
    const ids = [...sent.keys()];
    const committed = async () => {
      const [row] = await db
        .select({ n: sql<number>`count(distinct ${benchCommits.serverId})::int` })
        .from(benchCommits)
        .where(inArray(benchCommits.serverId, ids));
      return (row?.n ?? 0) >= ids.length;
    };
    await until(deadline.within(COMMIT_TIMEOUT_MS), 200, committed);
    const changeCpuSeconds = cpuSecondsOf(running.pid) - cpuBefore;
    const recorded = await db
      .select({
        serverId: benchCommits.serverId,
        committedAt: benchCommits.committedAt,
        detectedAt: changes.detectedAt,
        notificationSeen: changes.notificationSeen,
        trigger: observations.trigger,
      })
      .from(benchCommits)
      .innerJoin(changes, eq(changes.id, benchCommits.changeId))
      .innerJoin(observations, eq(observations.id, changes.observationId))
      .where(inArray(benchCommits.serverId, ids));
    const latencies: number[] = [];
    const toRelist: number[] = [];
    const relistToCommit: number[] = [];
    let notNotified = 0;
    for (const row of recorded) {
      const sentAt = sent.get(row.serverId)!;
      latencies.push(row.committedAt.getTime() - sentAt);
      toRelist.push(row.detectedAt.getTime() - sentAt);
      relistToCommit.push(row.committedAt.getTime() - row.detectedAt.getTime());
      if (row.trigger !== 'notification' || row.notificationSeen !== true) notNotified++;
    }
    const missing = ids.length - new Set(recorded.map((row) => row.serverId)).size;

    // 5. Full probe cycles: mcp-drift's path against the bare SDK, same servers, same cap.
    const context = {
      db,
      rows: await database.serverRows(),
      config: loadConfig({ PROBE_CONCURRENCY: String(PROBE_CONCURRENCY) }),
      env: {},
      tools: TOOLS,
    };
    const pick = (list: Cycle[]) => {
      const ms = median(list.map((cycle) => cycle.ms));
      return { ms, failed: list.reduce((sum, cycle) => sum + cycle.failed, 0) };
    };
    let cycles: RunResult['cycles'];
    let cycleError: string | undefined;
    try {
      await bareSdkCycle(context); // warm-up: JIT, connection pools
      const runs = { bare: [] as Cycle[], drift: [] as Cycle[], probeOnly: [] as Cycle[] };
      const order = ['bare', 'drift', 'probeOnly'] as const;
      const loops = { bare: bareSdkCycle, drift: driftCycle, probeOnly: probeOnlyCycle };
      for (let round = 0; round < PROBE_ROUNDS; round++) {
        for (let i = 0; i < order.length; i++) {
          // Rotated each round, so that no loop always runs first.
          const kind = order[(i + round) % order.length]!;
          if (deadline.within(60_000) < 60_000) throw new Error('out of time in the probe cycles');
          runs[kind].push(await loops[kind](context));
        }
      }
      cycles = { bare: pick(runs.bare), drift: pick(runs.drift), probeOnly: pick(runs.probeOnly) };
    } catch (error) {
      // What was measured before (memory, latency) is still worth printing.
      cycleError = error instanceof Error ? error.message : String(error);
    }
    load.push(loadavg()[0]!);

    await database.close();
    const shutdownMs = await serve.stop();
    return {
      backend,
      location: database.location,
      holdMs,
      empty,
      full,
      peak,
      fds,
      fixtureSessions,
      latencies,
      toRelist,
      relistToCommit,
      notNotified,
      missing,
      changeCpuSeconds,
      cycles,
      cycleError,
      shutdownMs,
    };
  } finally {
    await database.close().catch(() => {});
    await serve?.stop().catch(() => {});
    const keep = process.env.BENCH_WATCH_KEEP_LOG;
    if (keep && serve) copyFileSync(serve.logFile, path.join(keep, `serve-${backend}.log`));
    await database.drop().catch((error: unknown) => console.error('could not drop:', error));
  }
}

function printResult(result: RunResult, count: number, bare: BareHolding | string): void {
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const s = (value: number) => `${(value / 1000).toFixed(2)} s`;
  const x = (value: number) => `${value.toFixed(2)} ×`;
  const share = (value: number, target: number) => `${((value / target) * 100).toFixed(0)}%`;
  const p99 = percentile(result.latencies, 99);
  const perSession = (result.full.rss - result.empty.rss) / count;
  const rows: Array<[string, string, string, string]> = [
    [`serve RSS, ${count} sessions held`, mb(result.full.rss), '', ''],
    ['serve RSS, no server enabled', mb(result.empty.rss), '', ''],
    [
      'memory per held session (RSS held − idle) / n',
      kb(perSession),
      kb(TARGET_PER_SESSION_BYTES),
      share(perSession, TARGET_PER_SESSION_BYTES),
    ],
  ];
  if (typeof bare === 'string') {
    rows.push(['  bare SDK clients holding the same sessions', 'failed', '', '']);
  } else {
    const barePerSession = (bare.fullRss - bare.idleRss) / bare.held;
    const ratio = perSession / barePerSession;
    rows.push(
      ['  bare SDK clients holding the same sessions (baseline)', kb(barePerSession), '', ''],
      [
        '  ratio to the bare SDK clients',
        x(ratio),
        x(TARGET_PER_SESSION_RATIO),
        share(ratio, TARGET_PER_SESSION_RATIO),
      ],
    );
  }
  rows.push(
    ['notification → change committed, p50', ms(percentile(result.latencies, 50)), '', ''],
    ['notification → change committed, p99', ms(p99), ms(TARGET_P99_MS), share(p99, TARGET_P99_MS)],
    ['  of which re-list start → commit, p99', ms(percentile(result.relistToCommit, 99)), '', ''],
  );
  const cycles = result.cycles;
  if (cycles) {
    const ratio = cycles.drift.ms / cycles.bare.ms;
    const probeRatio = cycles.probeOnly.ms / cycles.bare.ms;
    rows.push(
      ['probe cycle, bare SDK loop (baseline)', s(cycles.bare.ms), '', ''],
      [
        'probe cycle, mcp-drift probe + record',
        s(cycles.drift.ms),
        s(cycles.bare.ms * TARGET_RATIO),
        share(ratio, TARGET_RATIO),
      ],
      ['  ratio to the bare loop', x(ratio), x(TARGET_RATIO), share(ratio, TARGET_RATIO)],
      ['probe cycle, mcp-drift probe() alone', s(cycles.probeOnly.ms), '', ''],
      ['  ratio to the bare loop', x(probeRatio), x(TARGET_RATIO), share(probeRatio, TARGET_RATIO)],
    );
  } else {
    rows.push(['probe cycles', 'failed', '', '']);
  }
  console.log(`  on ${result.location}`);
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(
    `  ${'figure'.padEnd(width)}  ${'measured'.padStart(9)}  ${'target'.padStart(9)}  of target`,
  );
  for (const [label, measured, goal, of] of rows) {
    console.log(
      `  ${label.padEnd(width)}  ${measured.padStart(9)}  ${goal.padStart(9)}  ${of.padStart(9)}`,
    );
  }
  const range = (values: number[]) =>
    `p50 ${ms(percentile(values, 50))}, p99 ${ms(percentile(values, 99))}, max ${ms(Math.max(...values))}`;
  console.log(
    `  (RSS: median of ${MEMORY_SAMPLE_SECONDS} samples 1 s apart from ${SETTLE_MS / 1000} s after all were held, max ${mb(result.full.maxRss)}, peak ever ${mb(result.peak)}; ` +
      `${mb(perSession * 1000)} per 1,000 sessions over the empty serve; idle CPU ${result.full.cpuPercent.toFixed(0)}% of a core ` +
      `(empty: ${result.empty.cpuPercent.toFixed(0)}%); ${result.fds} open files; all ${count} held ${s(result.holdMs)} after enabling; ` +
      `fixtures count ${result.fixtureSessions} live sessions)`,
  );
  if (typeof bare === 'string') {
    console.log(`  (bare SDK clients: not measured: ${bare})`);
  } else {
    console.log(
      `  (bare SDK clients: one node process, 2.x Client + StreamableHTTPClientTransport in the 2025 era, ` +
        `connect only (the SDK opens the GET stream), V8 heap growth as serve's; RSS ${mb(bare.idleRss)} idle, ` +
        `${mb(bare.fullRss)} with ${bare.held} held (${bare.failed} failed), measured once before the databases' runs; ` +
        `all held ${s(bare.holdMs)} after asking)`,
    );
  }
  console.log(
    `  (latency: fixture send time → clock of a deferred trigger at the change's commit; ${result.latencies.length} of ` +
      `${CHANGES} changes, ${CHANGE_SPACING_MS} ms apart, each to another server; missing ${result.missing}; ` +
      `recorded other than by notification ${result.notNotified}; send → re-list start ${range(result.toRelist)}; ` +
      `re-list start → commit ${range(result.relistToCommit)}; serve's CPU from the first send to the last commit ` +
      `${s(result.changeCpuSeconds * 1000)}, ${ms((result.changeCpuSeconds * 1000) / CHANGES)} per change)`,
  );
  console.log(
    `  (probe cycles: ${
      cycles
        ? `median of ${PROBE_ROUNDS} each at concurrency ${PROBE_CONCURRENCY}, after one warm-up; ` +
          `failed listings: drift ${cycles.drift.failed}, probe-only ${cycles.probeOnly.failed}, bare ${cycles.bare.failed}`
        : `not measured: ${result.cycleError}`
    }; serve ${result.shutdownMs === null ? 'had exited before SIGTERM' : `exited ${s(result.shutdownMs)} after SIGTERM`})`,
  );
}

export async function runWatchBench(): Promise<void> {
  const settings = settingsFromEnvironment();
  const overallMs = process.env.BENCH_WATCH_DEADLINE_MIN
    ? OVERALL_DEADLINE_MS
    : scaled(OVERALL_DEADLINE_MS, settings.servers);
  const deadline = new Deadline(overallMs);
  const build = buildIfStale();
  const canPostgres = await postgresReachable();
  const backends: Backend[] =
    settings.db === 'pglite' || settings.db === 'postgres'
      ? [settings.db]
      : settings.db === 'both' || (settings.db === undefined && canPostgres)
        ? ['pglite', 'postgres']
        : ['pglite'];
  const limit = openFileLimit();
  // Node cannot raise RLIMIT_NOFILE itself; serve needs two to three sockets per session.
  if (limit !== null && limit < settings.servers * 4) {
    console.log(
      `watch: ulimit -n is ${limit}; ${settings.servers} sessions want ~${settings.servers * 4}`,
    );
  }
  const before = loadavg();
  const load: number[] = [before[0]!];

  // Last resort: nothing the bench started outlives the deadline, even if a step hangs.
  const hardStop = setTimeout(() => {
    console.error('watch bench: overall deadline passed; killing its processes and exiting');
    killAll();
    void dropAll().finally(() => process.exit(1));
  }, overallMs + 60_000);
  // Ctrl-C or a `timeout`: take everything down before going.
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`watch bench: ${signal}; cleaning up`);
    killAll();
    void dropAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const results: Array<RunResult | { backend: Backend; error: unknown }> = [];
  let fixtures: FixtureServers | undefined;
  let bare: BareHolding | string = 'not run';
  try {
    fixtures = await FixtureServers.start({
      servers: settings.servers,
      processes: settings.processes,
      tools: TOOLS,
      kind: settings.kind,
      timeoutMs: 60_000,
    });
    // The baseline first, while nothing else holds a session: the fixtures forget its
    // sessions (it ends them) before serve starts.
    const fixtureUrls = fixtures.urls;
    bare = await measureBareHolders(fixtureUrls, {
      concurrency: PROBE_CONCURRENCY,
      settleMs: SETTLE_MS,
      sampleSeconds: MEMORY_SAMPLE_SECONDS,
      timeoutMs: deadline.within(scaled(HOLD_TIMEOUT_MS, settings.servers)),
    }).catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    for (const backend of backends) {
      // One database failing (PostgreSQL restarted under it, say) does not lose the other.
      results.push(
        await runOnce(backend, fixtures, settings, deadline, load).catch((error: unknown) => ({
          backend,
          error,
        })),
      );
    }
  } finally {
    clearTimeout(hardStop);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await fixtures?.stop();
  }

  const after = loadavg();
  const fmt = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
  console.log(
    `watch: ${settings.servers} Streamable HTTP servers × ${TOOLS} tools on 127.0.0.1 ` +
      `(${settings.processes} fixture processes, 1.x SDK ${settings.kind === 'server' ? 'Server' : 'McpServer'}), ` +
      `held by \`mcp-drift serve\` from dist/ (${build === 'built' ? 'rebuilt' : 'up to date'}` +
      `${settings.nodeOptions ? `, NODE_OPTIONS=${settings.nodeOptions}` : ''}); ` +
      `${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ulimit -n ${limit ?? 'unlimited'}`,
  );
  console.log(
    `  load average 1/5/15 min: ${fmt(before)} before, ${fmt(after)} after; ` +
      `1-min load during the runs up to ${Math.max(...load).toFixed(2)}`,
  );
  for (const result of results) {
    if ('error' in result) {
      console.log(
        `  on ${result.backend}: failed: ${String((result.error as Error)?.stack ?? result.error)}`,
      );
      process.exitCode = 1;
    } else {
      printResult(result, settings.servers, bare);
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runWatchBench();
}
