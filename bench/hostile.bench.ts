// Hostile servers next to a healthy one: a real `mcp-drift serve` probing a healthy
// Streamable HTTP server every 3 s, once alone (the baseline) and once beside the full
// hostile set of docs/watch-service.md (every kind, real processes on loopback, all probed
// every 3 s too): a repeating cursor, an endless cursor, 100,000 tools (stdio and HTTP),
// garbage on stdout, a server that never answers, one that hangs on tools/list, a 10,000/s
// list_changed flood, a nameless tool, duplicate names, HTML instead of JSON, a stdio server
// that exits at once, names with ANSI/CR/LF/10 KB, a server quoting back the secret it was
// sent, a 401 after the handshake, and a 200 MB page. Prints how late the healthy probes
// were, how /healthz answered, serve's peak memory, and the time of `history NAME` and
// `server show NAME` run against serve's database, both runs side by side, with the load
// average at start and end (the machine may be shared). Run alone with
// `npm run bench -- hostile`.
//
// Settings (environment): BENCH_HOSTILE_DB=pglite|postgres (default pglite),
// BENCH_HOSTILE_SECONDS (60: the measured window of each run), BENCH_HOSTILE_HEALTHY (1),
// BENCH_HOSTILE_SERVE_NODE_ARGS
// (node flags for serve, space-separated, e.g. --trace-gc), BENCH_HOSTILE_KEEP_LOG (a directory: serve's
// logs are copied there as serve-alone.log and serve-hostile.log, and the loop's stalls as
// loop-stalls-alone.jsonl and loop-stalls-hostile.jsonl). serve's event loop is measured from
// inside (bench/loop-stalls.cjs, preloaded).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import { observations, servers } from '../src/db/schema.js';
import { startHostileSet, type ServerValues } from './hostile-set.js';
import { FixtureServers } from './watch-fixtures.js';
import {
  BenchDatabase,
  buildIfStale,
  CLI,
  memoryOf,
  postgresReachable,
  ServeProcess,
  type Backend,
} from './watch-monitor.js';

const HEALTHY = Number(process.env.BENCH_HOSTILE_HEALTHY ?? 1);
const PERIOD_MS = 3_000;
const EVERY_3S = '*/3 * * * * *';
/** The hostile-load targets (docs/watch-service.md). */
const TARGET_GAP_MS = 6_000;
const TARGET_HEALTHZ_MS = 500;
/** history and server show through serve, beside their time with the healthy servers alone. */
const TARGET_CLI_RATIO = 2;
const CLI_RUNS = 5;
const TARGET_PEAK_MB = 400;
const HEALTHZ_EVERY_MS = 100;

interface RunFigures {
  /** Largest gap between two consecutive probes of one healthy server. */
  maxGapMs: number;
  gapsOverTarget: number;
  /** Probe start − its 3 s slot, over all healthy probes. */
  lateness: number[];
  probes: number;
  expectedProbes: number;
  healthz: number[];
  healthzFailures: number;
  peakRssBytes: number;
  maxSampledRssBytes: number;
  hostileErrors: Record<string, number>;
  /** Wall times (ms) of each CLI command, CLI_RUNS runs each. */
  cli: Record<string, number[]>;
  /** serve's event loop, measured inside it (bench/loop-stalls.cjs), window and CLI runs. */
  stalls: LoopStalls;
}

interface LoopStalls {
  /** Each time a 10 ms timer fired more than LOOP_STALL_MS late: when, and by how much. */
  held: Array<{ at: number; ms: number }>;
  /** perf_hooks' event-loop delay histogram since serve started. */
  maxDelayMs: number;
  p99DelayMs: number;
}

const LOOP_STALLS_PRELOAD = fileURLToPath(new URL('loop-stalls.cjs', import.meta.url));

function readStalls(file: string): LoopStalls {
  const held = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { at: number; ms: number })
    : [];
  const summary = existsSync(`${file}.summary`)
    ? (JSON.parse(readFileSync(`${file}.summary`, 'utf8')) as { max: number; p99: number })
    : { max: NaN, p99: NaN };
  return { held, maxDelayMs: summary.max, p99DelayMs: summary.p99 };
}

/** The CLI commands timed against serve's database, with the first healthy server's name. */
function cliCommands(name: string): Record<string, string[]> {
  return { 'history NAME': ['history', name], 'server show NAME': ['server', 'show', name] };
}

/** Wall time of each command, run CLI_RUNS times against serve's database (its socket). */
function timeCli(database: BenchDatabase, name: string): Record<string, number[]> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? database.home,
    MCP_DRIFT_HOME: database.home,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  };
  const times: Record<string, number[]> = {};
  for (const [label, args] of Object.entries(cliCommands(name))) {
    times[label] = [];
    for (let run = 0; run < CLI_RUNS; run++) {
      const started = performance.now();
      const result = spawnSync(process.execPath, [CLI, ...args], {
        cwd: database.home,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      });
      if (result.status !== 0)
        throw new Error(`mcp-drift ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
      times[label].push(performance.now() - started);
    }
  }
  return times;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function runOnce(
  backend: Backend,
  healthy: string[],
  hostile: ServerValues[] | null,
  seconds: number,
): Promise<RunFigures> {
  const database = await BenchDatabase.create(backend, healthy);
  if (hostile) await database.addServers(hostile);
  let serve: ServeProcess | undefined;
  try {
    const nodeArgs = (process.env.BENCH_HOSTILE_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const stallsFile = path.join(database.home, 'loop-stalls.jsonl');
    serve = ServeProcess.start(
      database,
      { LOG_LEVEL: 'info', HTTP_PORT: '0', LOOP_STALLS: stallsFile },
      ['-r', LOOP_STALLS_PRELOAD, ...nodeArgs],
    );
    await database.reopen(serve, 60_000);
    const running = serve;
    const db = database.db;
    await db.update(servers).set({ schedule: EVERY_3S, enabled: true });
    const rows = await database.serverRows();
    const healthyIds = rows.slice(0, HEALTHY).map((row) => row.id);
    const hostileIds = new Map(rows.slice(HEALTHY).map((row) => [row.id, row.name]));
    const url = await healthzUrl(running);

    // Warm-up: every healthy server probed once.
    const warm = Date.now() + 60_000;
    for (;;) {
      if (!running.running) throw new Error(`serve exited:\n${running.logTail()}`);
      const [row] = await db
        .select({ n: sql<number>`count(distinct ${observations.serverId})::int` })
        .from(observations)
        .where(and(inArray(observations.serverId, healthyIds), eq(observations.outcome, 'ok')));
      if ((row?.n ?? 0) >= HEALTHY) break;
      if (Date.now() > warm) throw new Error('the healthy servers were not probed in time');
      await sleep(500);
    }

    const from = new Date();
    const until = Date.now() + seconds * 1000;
    const healthz: number[] = [];
    let healthzFailures = 0;
    let maxSampledRssBytes = 0;
    const polling = (async () => {
      while (Date.now() < until) {
        const started = performance.now();
        try {
          const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
          await response.text();
          if (response.status !== 200) healthzFailures++;
        } catch {
          healthzFailures++;
        }
        healthz.push(performance.now() - started);
        await sleep(Math.max(0, HEALTHZ_EVERY_MS - (performance.now() - started)));
      }
    })();
    const sampling = (async () => {
      while (Date.now() < until) {
        maxSampledRssBytes = Math.max(maxSampledRssBytes, memoryOf(running.pid).rss);
        await sleep(1_000);
      }
    })();
    // A run keeps its latest poll's time, not each one: the probes are read as they happen,
    // each new latest poll time of a healthy server one probe (a 3 s period, read every 250 ms).
    const seenProbes = new Map<string, { serverId: number; startedAt: Date }>();
    const watching = (async () => {
      while (Date.now() < until + 500) {
        const rows = await db
          .select({ serverId: observations.serverId, at: observations.lastPollAt })
          .from(observations)
          .where(
            and(inArray(observations.serverId, healthyIds), gte(observations.lastPollAt, from)),
          );
        for (const row of rows) {
          if (row.at)
            seenProbes.set(`${row.serverId}/${row.at.getTime()}`, {
              serverId: row.serverId,
              startedAt: row.at,
            });
        }
        await sleep(250);
      }
    })();
    await Promise.all([polling, sampling, watching]);
    const to = new Date();
    // The hostile servers are still being probed while the CLI runs.
    const cli = timeCli(database, rows[0]!.name);
    maxSampledRssBytes = Math.max(maxSampledRssBytes, memoryOf(running.pid).rss);
    const peakRssBytes = memoryOf(running.pid).peak;
    const stalls = readStalls(stallsFile);

    const probes = [...seenProbes.values()].sort(
      (a, b) => a.startedAt.getTime() - b.startedAt.getTime(),
    );
    const inWindow = probes.filter((probe) => probe.startedAt <= to);
    let maxGapMs = 0;
    let gapsOverTarget = 0;
    const lateness: number[] = [];
    for (const id of healthyIds) {
      const times = inWindow
        .filter((probe) => probe.serverId === id)
        .map((probe) => probe.startedAt.getTime());
      // The window's edges count as probes, so that a server never probed shows its gap.
      const edges = [from.getTime(), ...times, to.getTime()];
      for (let i = 1; i < edges.length; i++) {
        const gap = edges[i]! - edges[i - 1]!;
        maxGapMs = Math.max(maxGapMs, gap);
        if (gap > TARGET_GAP_MS) gapsOverTarget++;
      }
      for (const at of times) lateness.push(at - Math.floor(at / PERIOD_MS) * PERIOD_MS);
    }
    const hostileErrors: Record<string, number> = {};
    if (hostileIds.size > 0) {
      const errors = await db
        .select({
          serverId: observations.serverId,
          n: sql<number>`sum(${observations.count})::int`,
        })
        .from(observations)
        .where(
          and(
            inArray(observations.serverId, [...hostileIds.keys()]),
            eq(observations.outcome, 'error'),
          ),
        )
        .groupBy(observations.serverId);
      for (const [id, name] of hostileIds) {
        hostileErrors[name] = errors.find((row) => row.serverId === id)?.n ?? 0;
      }
    }
    await database.close();
    await serve.stop();
    return {
      maxGapMs,
      gapsOverTarget,
      lateness,
      probes: inWindow.length,
      expectedProbes: Math.floor(((to.getTime() - from.getTime()) / PERIOD_MS) * HEALTHY),
      healthz,
      healthzFailures,
      peakRssBytes,
      maxSampledRssBytes,
      hostileErrors,
      cli,
      stalls,
    };
  } finally {
    await database.close().catch(() => {});
    await serve?.stop().catch(() => {});
    const keep = process.env.BENCH_HOSTILE_KEEP_LOG;
    if (keep && serve) {
      const run = hostile ? 'hostile' : 'alone';
      copyFileSync(serve.logFile, path.join(keep, `serve-${run}.log`));
      const stalls = path.join(database.home, 'loop-stalls.jsonl');
      if (existsSync(stalls)) copyFileSync(stalls, path.join(keep, `loop-stalls-${run}.jsonl`));
    }
    await database.drop().catch((error: unknown) => console.error('could not drop:', error));
  }
}

/** The health endpoint serve logged in its "mcp-drift serving" line. */
async function healthzUrl(serve: ServeProcess): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    for (const line of serve.logTail(200).split('\n')) {
      if (!line.includes('"msg":"mcp-drift serving"')) continue;
      const http = (JSON.parse(line) as { http?: string }).http;
      if (http) return `${http}/healthz`;
    }
    if (Date.now() > deadline) throw new Error(`serve logged no http URL:\n${serve.logTail()}`);
    await sleep(200);
  }
}

function print(baseline: RunFigures, hostile: RunFigures): void {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)} ×` : '');
  const rows: Array<[string, string, string, string, string]> = [
    [
      'healthy probes: max gap between two',
      ms(baseline.maxGapMs),
      ms(hostile.maxGapMs),
      ratio(hostile.maxGapMs, baseline.maxGapMs),
      `≤ ${ms(TARGET_GAP_MS)}`,
    ],
    ['  gaps over 6 s', String(baseline.gapsOverTarget), String(hostile.gapsOverTarget), '', '0'],
    [
      '  lateness after the slot, p50',
      ms(percentile(baseline.lateness, 50)),
      ms(percentile(hostile.lateness, 50)),
      ratio(percentile(hostile.lateness, 50), percentile(baseline.lateness, 50)),
      '',
    ],
    [
      '  lateness after the slot, p99',
      ms(percentile(baseline.lateness, 99)),
      ms(percentile(hostile.lateness, 99)),
      ratio(percentile(hostile.lateness, 99), percentile(baseline.lateness, 99)),
      '',
    ],
    [
      '  lateness after the slot, max',
      ms(Math.max(...baseline.lateness)),
      ms(Math.max(...hostile.lateness)),
      ratio(Math.max(...hostile.lateness), Math.max(...baseline.lateness)),
      '',
    ],
    [
      "  probes (of the schedule's)",
      `${baseline.probes}/${baseline.expectedProbes}`,
      `${hostile.probes}/${hostile.expectedProbes}`,
      '',
      '',
    ],
    [
      '/healthz latency, p50',
      ms(percentile(baseline.healthz, 50)),
      ms(percentile(hostile.healthz, 50)),
      ratio(percentile(hostile.healthz, 50), percentile(baseline.healthz, 50)),
      '',
    ],
    [
      '/healthz latency, max (longest)',
      ms(Math.max(...baseline.healthz)),
      ms(Math.max(...hostile.healthz)),
      ratio(Math.max(...hostile.healthz), Math.max(...baseline.healthz)),
      `≤ ${ms(TARGET_HEALTHZ_MS)}`,
    ],
    [
      '  requests over 500 ms',
      String(baseline.healthz.filter((value) => value > TARGET_HEALTHZ_MS).length),
      String(hostile.healthz.filter((value) => value > TARGET_HEALTHZ_MS).length),
      '',
      '0',
    ],
    [
      '  requests, of which failed',
      `${baseline.healthz.length}, ${baseline.healthzFailures}`,
      `${hostile.healthz.length}, ${hostile.healthzFailures}`,
      '',
      '',
    ],
    [
      'serve peak RSS (VmHWM)',
      mb(baseline.peakRssBytes),
      mb(hostile.peakRssBytes),
      ratio(hostile.peakRssBytes, baseline.peakRssBytes),
      `≤ ${TARGET_PEAK_MB} MB`,
    ],
    [
      'serve RSS, max of 1 s samples',
      mb(baseline.maxSampledRssBytes),
      mb(hostile.maxSampledRssBytes),
      ratio(hostile.maxSampledRssBytes, baseline.maxSampledRssBytes),
      '',
    ],
    [
      'serve event loop: longest delay',
      ms(baseline.stalls.maxDelayMs),
      ms(hostile.stalls.maxDelayMs),
      ratio(hostile.stalls.maxDelayMs, baseline.stalls.maxDelayMs),
      '',
    ],
    ['  delay p99', ms(baseline.stalls.p99DelayMs), ms(hostile.stalls.p99DelayMs), '', ''],
    [
      '  held over 300 ms (times)',
      String(baseline.stalls.held.length),
      String(hostile.stalls.held.length),
      '',
      '',
    ],
  ];
  for (const label of Object.keys(baseline.cli)) {
    const alone = percentile(baseline.cli[label]!, 50);
    const withHostile = percentile(hostile.cli[label]!, 50);
    rows.push([
      `${label}, median of ${CLI_RUNS}`,
      ms(alone),
      ms(withHostile),
      ratio(withHostile, alone),
      `≤ ${TARGET_CLI_RATIO} ×`,
    ]);
    rows.push([
      `  max`,
      ms(Math.max(...baseline.cli[label]!)),
      ms(Math.max(...hostile.cli[label]!)),
      ratio(Math.max(...hostile.cli[label]!), Math.max(...baseline.cli[label]!)),
      '',
    ]);
  }
  const head: [string, string, string, string, string] = [
    'figure',
    'alone',
    'hostile',
    'ratio',
    'target',
  ];
  const widths = head.map((_, i) => Math.max(...[head, ...rows].map((row) => row[i]!.length)));
  for (const row of [head, ...rows]) {
    console.log(
      `  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}`,
    );
  }
  console.log(
    `  (error observations of the hostile servers: ${JSON.stringify(hostile.hostileErrors)})`,
  );
}

export async function runHostileBench(): Promise<void> {
  if (buildIfStale() === 'built') console.log('  (built dist/ first)');
  const wanted = process.env.BENCH_HOSTILE_DB ?? 'pglite';
  if (wanted !== 'pglite' && wanted !== 'postgres') throw new Error(`BENCH_HOSTILE_DB=${wanted}?`);
  if (wanted === 'postgres' && !(await postgresReachable()))
    throw new Error('PostgreSQL does not answer');
  const backend: Backend = wanted;
  const seconds = Number(process.env.BENCH_HOSTILE_SECONDS ?? 60);
  const loadAtStart = loadavg();
  const healthy = await FixtureServers.start({
    servers: HEALTHY,
    processes: 1,
    tools: 20,
    kind: 'server',
    timeoutMs: 30_000,
  });
  const hostile = await startHostileSet();
  try {
    console.log(
      `  ${HEALTHY} healthy server(s) beside ${hostile.rows.length} hostile ones, all probed every 3 s, ${seconds} s measured per run, on ${backend}`,
    );
    const baseline = await runOnce(backend, healthy.urls, null, seconds);
    const withHostile = await runOnce(backend, healthy.urls, hostile.rows, seconds);
    print(baseline, withHostile);
  } finally {
    await hostile.stop();
    await healthy.stop();
  }
  const loadAtEnd = loadavg();
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  console.log(
    `  load average (1/5/15 min) at start ${load(loadAtStart)}, at end ${load(loadAtEnd)} on ${availableParallelism()} cores: the machine may be shared, so the figures carry its load`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runHostileBench();
