import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  BenchDatabase,
  buildIfStale,
  dropAll,
  postgresReachable,
  ServeProcess,
  type Backend,
} from './watch-monitor.js';

/*
 * Cold start of the CLI (issue 15): each command is a fresh `node dist/cli/main.js …`, timed
 * from spawn to exit, beside a bare `node -e 0` spawned right before it. The two alternate,
 * and the ratio is taken pair by pair, so that a machine whose speed drifts during the run
 * (other work on its cores) moves both sides of a pair alike; the median pair is printed.
 * Each process also reports its own CPU time (cpu-at-exit.cjs), the figure to read when
 * the machine is busy: wall time then measures the queue for the cores as much as the CLI.
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
  /** Issue 15's bound on the ratio to bare node, where it sets one. */
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

const CPU_PRELOAD = fileURLToPath(new URL('./cpu-at-exit.cjs', import.meta.url));
const cpuDir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-bench-cpu-'));
let cpuRuns = 0;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wall and CPU time of one process from spawn to exit; its output goes to /dev/null. */
function timed(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): { ms: number; cpuMs: number } {
  const cpuFile = path.join(cpuDir, `${cpuRuns++}`);
  const withCpu = ['-r', CPU_PRELOAD, ...args];
  const start = performance.now();
  const result = spawnSync(process.execPath, withCpu, {
    env: { ...env, CPU_AT_EXIT: cpuFile },
    cwd,
    stdio: 'ignore',
  });
  const ms = performance.now() - start;
  if (result.status !== 0) {
    const again = spawnSync(process.execPath, args, { env, cwd, encoding: 'utf8' });
    throw new Error(`\`node ${args.join(' ')}\` exited ${result.status}: ${again.stderr}`);
  }
  const cpuMs = Number(readFileSync(cpuFile, 'utf8').trim()) / 1000;
  rmSync(cpuFile);
  return { ms, cpuMs };
}

function measure(row: Row): Measured {
  const bare = ['-e', '0'];
  for (let i = 0; i < WARMUPS; i++) {
    timed(bare, row.env, row.cwd);
    timed([row.script ?? CLI, ...row.args], row.env, row.cwd);
  }
  const measured: Measured = {
    ms: [],
    baselineMs: [],
    ratios: [],
    cpuMs: [],
    baselineCpuMs: [],
    cpuRatios: [],
  };
  for (let i = 0; i < RUNS; i++) {
    const baseline = timed(bare, row.env, row.cwd);
    const run = timed([row.script ?? CLI, ...row.args], row.env, row.cwd);
    measured.baselineMs.push(baseline.ms);
    measured.ms.push(run.ms);
    measured.ratios.push(run.ms / baseline.ms);
    measured.baselineCpuMs.push(baseline.cpuMs);
    measured.cpuMs.push(run.cpuMs);
    measured.cpuRatios.push(run.cpuMs / baseline.cpuMs);
  }
  return measured;
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
    rmSync(cpuDir, { recursive: true, force: true });
  }
}

async function measureAll(): Promise<void> {
  const build = buildIfStale();
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
    } finally {
      await serve.stop();
    }
  });

  console.log(
    `cli: cold start of dist/cli/main.js (${build === 'built' ? 'rebuilt' : 'up to date'}), ` +
      `median of ${RUNS} runs after ${WARMUPS} warm-ups; wall: spawn to exit; cpu: the ` +
      `process's own user + system time; ratio: median of each run over the bare ` +
      `\`node -e 0\` run just before it; ` +
      `${availableParallelism()} cores, load average ${load.toFixed(2)} at start`,
  );
  print(results);
}
