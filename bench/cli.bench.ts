import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { build as esbuild } from 'esbuild';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  BenchDatabase,
  buildIfStale,
  cpuSecondsOf,
  dropAll,
  postgresReachable,
  ServeProcess,
  type Backend,
} from './watch-monitor.js';

/*
 * Cold start of the CLI: each command is a fresh `node dist/cli/main.js …`, timed
 * from spawn to exit, beside a bare `node -e 0` spawned right before it. The two alternate,
 * and the ratio is taken pair by pair, so that a machine whose speed drifts during the run
 * (other work on its cores) moves both sides of a pair alike; the median pair is printed.
 * Each process also reports its own CPU time (cpu-at-exit.cjs), the figure to read when
 * the machine is busy: wall time then measures the queue for the cores as much as the CLI.
 * The pairs are spawned by a small process of their own (cli-timer.mjs).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const LISTINGS = path.join(ROOT, 'test', 'fixtures', 'listings');
const WARMUPS = 2;
const RUNS = Number(process.env.CLI_BENCH_RUNS ?? 15);
/** Registered in each database, so that `server list` prints a real table. */
const SERVERS = 20;

interface Row {
  label: string;
  /** The bound on the ratio to bare node, where it sets one. */
  target?: number;
  /** What node runs: the CLI, unless a floor (bench/cli-floor.mjs) is measured. */
  script?: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

interface Measured {
  ms: number[];
  baselineMs: number[];
  ratios: number[];
  cpuMs: number[];
  baselineCpuMs: number[];
  cpuRatios: number[];
}

/** Floors: what the CLI's figures are bounded by, measured the same way (cli-floor.mjs). */
const FLOOR = fileURLToPath(new URL('./cli-floor.mjs', import.meta.url));

const TIMER = fileURLToPath(new URL('./cli-timer.mjs', import.meta.url));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The row's pairs of runs, timed by bench/cli-timer.mjs in a process of its own. */
function measure(row: Row): Measured {
  const spec = {
    command: [row.script ?? CLI, ...row.args],
    env: row.env,
    cwd: row.cwd,
    runs: RUNS,
    warmups: WARMUPS,
  };
  const result = spawnSync(process.execPath, [TIMER, JSON.stringify(spec)], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`timing "${row.label}" failed: ${result.stderr}`);
  const times = JSON.parse(result.stdout) as Omit<Measured, 'ratios' | 'cpuRatios'>;
  return {
    ...times,
    ratios: times.ms.map((ms, i) => ms / times.baselineMs[i]!),
    cpuRatios: times.cpuMs.map((ms, i) => ms / times.baselineCpuMs[i]!),
  };
}

function print(rows: Array<[Row, Measured | { skipped: string }]>): void {
  const width = Math.max(...rows.map(([row]) => row.label.length));
  const ms = (value: number) => `${value.toFixed(0)} ms`.padStart(7);
  const x = (value: number) => `${value.toFixed(2)}x`.padStart(6);
  console.log(
    `  ${'command'.padEnd(width)}  ${'wall'.padStart(7)}  ${'min'.padStart(7)}  ${'max'.padStart(7)}` +
      `  ${'node'.padStart(7)}  ${'ratio'.padStart(6)}  ${'cpu'.padStart(7)}  ${'node'.padStart(7)}` +
      `  ${'ratio'.padStart(6)}  target (on the wall ratio)`,
  );
  for (const [row, result] of rows) {
    if ('skipped' in result) {
      console.log(`  ${row.label.padEnd(width)}  (not measured: ${result.skipped})`);
      continue;
    }
    const ratio = median(result.ratios);
    const verdict =
      row.target === undefined ? '-' : `${row.target}x ${ratio <= row.target ? 'met' : 'missed'}`;
    console.log(
      `  ${row.label.padEnd(width)}  ${ms(median(result.ms))}  ${ms(Math.min(...result.ms))}` +
        `  ${ms(Math.max(...result.ms))}  ${ms(median(result.baselineMs))}  ${x(ratio)}` +
        `  ${ms(median(result.cpuMs))}  ${ms(median(result.baselineCpuMs))}` +
        `  ${x(median(result.cpuRatios))}  ${verdict}`,
    );
  }
}

/** Only what the CLI needs: nothing from the bench's shell points it elsewhere. */
function cliEnv(database: BenchDatabase): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: database.home,
    MCP_DRIFT_HOME: database.home,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  };
}

async function withDatabase<T>(
  backend: Backend,
  run: (database: BenchDatabase) => Promise<T>,
): Promise<T> {
  const urls = Array.from({ length: SERVERS }, (_, i) => `http://127.0.0.1:9/mcp/${i}`);
  const database = await BenchDatabase.create(backend, urls);
  try {
    return await run(database);
  } finally {
    await database.drop();
  }
}

export async function runCliBench(): Promise<void> {
  // Ctrl-C: drop the databases made so far before going.
  const onSignal = () => {
    void Promise.race([dropAll(), sleep(10_000)]).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  try {
    await measureAll();
  } finally {
    process.off('SIGINT', onSignal);
  }
}

/**
 * Waits until these processes are idle: each used at most 5 % of a core in the last second,
 * or 30 s went by. Measured meanwhile, a command would share the cores with them, on both
 * sides of each pair. The bench's own process is one: once it has set up an embedded
 * database, V8 goes on compiling PGlite's WebAssembly in the background, with up to two
 * cores for seconds; and serve's socket is up before its start-up work is done (the
 * console, the supervisor, a heap compaction). Returns the highest share seen last.
 */
async function settled(pids: number[]): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const before = pids.map(cpuSecondsOf);
    await sleep(1_000);
    const share = Math.max(...pids.map((pid, i) => cpuSecondsOf(pid) - before[i]!));
    if (share <= 0.05 || Date.now() > deadline) return share;
  }
}

/** The processes' CPU share when the rows through serve's socket began. */
let serveIdle: number | undefined;

/**
 * cli-floor.mjs in one file, its dependencies inside, as the CLI's own files are: the
 * floor of the libraries `server list` is made of, loaded as the CLI loads them.
 */
async function bundleFloor(dir: string): Promise<string> {
  const outfile = path.join(dir, 'cli-floor.bundled.mjs');
  await esbuild({
    entryPoints: [FLOOR],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
    },
  });
  return outfile;
}

let bundledFloor = '';

async function measureAll(): Promise<void> {
  const build = buildIfStale();
  const floorDir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-bench-floor-'));
  try {
    bundledFloor = await bundleFloor(floorDir);
    await measureRows(build);
  } finally {
    rmSync(floorDir, { recursive: true, force: true });
  }
}

async function measureRows(build: 'built' | 'fresh'): Promise<void> {
  const load = loadavg()[0]!;
  const plain: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const results: Array<[Row, Measured | { skipped: string }]> = [];
  const run = (row: Row) => results.push([row, measure(row)]);

  run({
    label: 'floor: an empty ES module',
    script: FLOOR,
    args: ['empty'],
    env: plain,
    cwd: ROOT,
  });
  run({
    label: 'floor: import commander',
    script: FLOOR,
    args: ['commander'],
    env: plain,
    cwd: ROOT,
  });
  run({ label: '--help', target: 1.5, args: ['--help'], env: plain, cwd: ROOT });
  run({ label: '--version', args: ['--version'], env: plain, cwd: ROOT });
  run({
    label: 'diff everything.json filesystem.json',
    args: [
      'diff',
      path.join(LISTINGS, 'everything.json'),
      path.join(LISTINGS, 'filesystem.json'),
      '--json',
    ],
    env: plain,
    cwd: ROOT,
  });

  const postgresRow: Row = {
    label: `server list (${SERVERS} servers), PostgreSQL`,
    args: ['server', 'list'],
    env: {},
    cwd: ROOT,
  };
  if (await postgresReachable()) {
    await withDatabase('postgres', async (database) => {
      run({ ...postgresRow, env: cliEnv(database), cwd: database.home });
      run({
        label: 'floor: postgres.js and one query, PostgreSQL',
        script: FLOOR,
        args: ['query'],
        env: cliEnv(database),
        cwd: database.home,
      });
    });
  } else {
    results.push([postgresRow, { skipped: 'no PostgreSQL on 127.0.0.1:5432' }]);
  }

  await withDatabase('pglite', async (database) => {
    const direct: Row = {
      label: `server list, embedded database opened by the command`,
      args: ['server', 'list'],
      env: cliEnv(database),
      cwd: database.home,
    };
    await settled([process.pid]);
    run(direct);
    // A disabled schedule and no enabled server: serve holds the database and its socket,
    // and nothing else competes with the commands for the machine.
    const serve = ServeProcess.start(database, {
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      LOG_LEVEL: 'warn',
    });
    try {
      await database.reopen(serve, 60_000);
      await database.close();
      serveIdle = await settled([serve.pid, process.pid]);
      run({
        ...direct,
        label: `server list, embedded database through serve's socket`,
        target: 3,
      });
      run({
        ...direct,
        label: "floor: postgres.js and one query, through serve's socket",
        script: FLOOR,
        args: ['query'],
      });
      run({
        ...direct,
        label: "floor: commander, drizzle, postgres.js, one query, bundled, through serve's socket",
        script: bundledFloor,
        args: ['stack'],
      });
    } finally {
      await serve.stop();
    }
  });

  console.log(
    `cli: cold start of dist/cli/main.js (${build === 'built' ? 'rebuilt' : 'up to date'}), ` +
      `median of ${RUNS} runs after ${WARMUPS} warm-ups; wall: spawn to exit; cpu: the ` +
      `process's own user + system time; ratio: median of each run over the bare ` +
      `\`node -e 0\` run just before it; ` +
      `${availableParallelism()} cores, load average ${load.toFixed(2)} at start` +
      (serveIdle === undefined
        ? ''
        : `; serve and the bench used at most ${(serveIdle * 100).toFixed(0)} % of a core before the rows through serve's socket`),
  );
  print(results);
}
