import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import {
  embeddedPaths,
  openDatabase,
  type Database,
  type DatabaseHandle,
} from '../src/db/client.js';
import { servers, workers, type ServerRow } from '../src/db/schema.js';
import { stopChild, track } from './watch-fixtures.js';

export type Backend = 'pglite' | 'postgres';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
export const POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A schedule that does not fire during a run: probes are driven by the bench. */
const QUIET_SCHEDULE = '0 0 1 1 *';

/**
 * The change's commit time, taken by a deferred constraint trigger: it runs when the
 * transaction commits (after the change's findings and everything else in it), not when
 * the row is inserted. clock_timestamp() is the wall clock, the one the fixtures' send
 * times are read from (same host). Bench-only: it lives in the throwaway database.
 */
const COMMIT_CLOCK = [
  `create table bench_commits (change_id bigint primary key, server_id integer not null,
     committed_at timestamptz not null)`,
  `create function bench_note_commit() returns trigger language plpgsql as $$
     begin
       insert into bench_commits values (new.id, new.server_id, clock_timestamp());
       return null;
     end $$`,
  `create constraint trigger bench_change_committed after insert on changes
     deferrable initially deferred for each row execute function bench_note_commit()`,
];

/** dist/ must hold the current src/: `serve` runs from it. */
export function buildIfStale(): 'fresh' | 'built' {
  const newest = (dir: string, ext: string, pick: (a: number, b: number) => number) => {
    let found: number | undefined;
    for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith(ext)) continue;
      const mtime = statSync(path.join(dir, entry)).mtimeMs;
      found = found === undefined ? mtime : pick(found, mtime);
    }
    return found;
  };
  const sources = newest(path.join(ROOT, 'src'), '.ts', Math.max) ?? 0;
  let built: number | undefined;
  try {
    built = newest(path.join(ROOT, 'dist'), 'js', Math.min);
  } catch {
    built = undefined;
  }
  if (built !== undefined && built >= sources) return 'fresh';
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
    timeout: 180_000,
  });
  if (result.status !== 0)
    throw new Error('`npm run build` failed; the bench runs serve from dist/');
  return 'built';
}

/** Databases not dropped yet, for a bench interrupted by a signal or its deadline. */
const undropped = new Set<BenchDatabase>();

/** Drops every bench database still there (within a few seconds). */
export async function dropAll(): Promise<void> {
  const dropping = Promise.allSettled([...undropped].map((database) => database.drop()));
  await Promise.race([dropping, sleep(10_000)]);
}

/** A throwaway database with N fixture servers registered, and the commit clock installed. */
export class BenchDatabase {
  readonly backend: Backend;
  /** MCP_DRIFT_HOME of the serve child (its log goes here too). */
  readonly home: string;
  readonly url: string | undefined;
  private handle: DatabaseHandle | undefined;

  private constructor(backend: Backend, home: string, url: string | undefined) {
    this.backend = backend;
    this.home = home;
    this.url = url;
  }

  get db(): Database {
    if (!this.handle) throw new Error('the bench database is not open');
    return this.handle.db;
  }

  get location(): string {
    return this.backend === 'pglite' ? `PGlite in ${this.home}` : `PostgreSQL ${this.url}`;
  }

  static async create(backend: Backend, urls: string[]): Promise<BenchDatabase> {
    const home = mkdtempSync(path.join(tmpdir(), 'mcp-drift-bench-'));
    let url: string | undefined;
    if (backend === 'postgres') {
      const name = `mcp_drift_bench_${process.pid}_${Date.now().toString(36)}`;
      const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`create database ${name}`);
      } finally {
        await admin.end({ timeout: 5 });
      }
      url = POSTGRES_ADMIN_URL.replace(/\/postgres$/, `/${name}`);
    }
    const bench = new BenchDatabase(backend, home, url);
    undropped.add(bench);
    try {
      // PGlite: opened in this process to set it up, then handed to serve (see reopen).
      bench.handle = await openDatabase({ databaseUrl: url, home });
      for (const statement of COMMIT_CLOCK) await bench.db.execute(sql.raw(statement));
      for (let from = 0; from < urls.length; from += 250) {
        await bench.db.insert(servers).values(
          urls.slice(from, from + 250).map((url, k) => ({
            name: `bench-${String(from + k).padStart(4, '0')}`,
            transport: 'http' as const,
            url,
            schedule: QUIET_SCHEDULE,
            // Enabled once serve is up, so that its footprint without sessions is seen first.
            enabled: false,
          })),
        );
      }
      if (backend === 'pglite') {
        await bench.handle.close();
        bench.handle = undefined;
      }
    } catch (error) {
      await bench.drop();
      throw error;
    }
    return bench;
  }

  /** Registers more servers, disabled and on the quiet schedule, like the ones of create. */
  async addServers(rows: Array<Omit<typeof servers.$inferInsert, 'schedule' | 'enabled'>>) {
    const reopened = !this.handle;
    if (reopened) this.handle = await openDatabase({ databaseUrl: this.url, home: this.home });
    try {
      await this.db
        .insert(servers)
        .values(rows.map((row) => ({ ...row, schedule: QUIET_SCHEDULE, enabled: false })));
    } finally {
      if (reopened && this.backend === 'pglite') {
        await this.handle?.close();
        this.handle = undefined;
      }
    }
  }

  /** PGlite: once serve owns the database, this process reaches it through serve's socket. */
  async reopen(serve: ServeProcess, timeoutMs: number): Promise<void> {
    if (this.handle) return;
    // Until serve's socket is there, opening would take the embedded database from it.
    const socket = embeddedPaths(this.home).socket;
    const end = Date.now() + timeoutMs;
    while (!this.url && !existsSync(socket)) {
      if (!serve.running) throw new Error(`serve exited:\n${serve.logTail()}`);
      if (Date.now() > end) throw new Error(`serve did not open ${socket} in time`);
      await sleep(100);
    }
    this.handle = await openDatabase({ databaseUrl: this.url, home: this.home });
  }

  async enableAll(): Promise<void> {
    await this.db.update(servers).set({ enabled: true });
  }

  /** serve has beaten once: it is migrated, connected, and through its first tick. */
  async workerAlive(): Promise<boolean> {
    const [row] = await this.db.select({ n: sql<number>`count(*)::int` }).from(workers);
    return (row?.n ?? 0) > 0;
  }

  async serverRows(): Promise<ServerRow[]> {
    return this.db.select().from(servers).orderBy(servers.id);
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  /** Closes, then deletes the home directory and drops the PostgreSQL database. */
  async drop(): Promise<void> {
    undropped.delete(this);
    // Queries in flight (an interrupted run) must not hold up the drop, which ends them.
    await Promise.race([this.close().catch(() => {}), sleep(2_000)]);
    if (this.url) {
      const name = new URL(this.url).pathname.slice(1);
      const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end({ timeout: 5 });
      }
    }
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** A real `mcp-drift serve` (dist/cli/main.js), its logs in a file under the home directory. */
export class ServeProcess {
  readonly child: ChildProcess;
  readonly logFile: string;

  private constructor(child: ChildProcess, logFile: string) {
    this.child = child;
    this.logFile = logFile;
  }

  /** `nodeArgs` go before the script: flags NODE_OPTIONS refuses, such as --cpu-prof. */
  static start(
    database: BenchDatabase,
    settings: Record<string, string>,
    nodeArgs: string[] = [],
  ): ServeProcess {
    const logFile = path.join(database.home, 'serve.log');
    const log = openSync(logFile, 'a');
    // Only what serve needs: no DATABASE_URL or other setting leaks in from the bench's shell.
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? database.home,
      MCP_DRIFT_HOME: database.home,
      ...(database.url ? { DATABASE_URL: database.url } : {}),
      ...settings,
    };
    // cwd is the home directory so that no .env is read.
    const child = track(
      spawn(process.execPath, [...nodeArgs, CLI, 'serve'], {
        cwd: database.home,
        env,
        stdio: ['ignore', log, log],
      }),
    );
    closeSync(log);
    return new ServeProcess(child, logFile);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('serve did not start');
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** How long SIGTERM took to end it (ms), or null if it had exited already. */
  stop(graceMs = 15_000): Promise<number | null> {
    return stopChild(this.child, graceMs);
  }

  logTail(lines = 20): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

/** VmRSS and VmHWM (peak) of a process, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** CPU seconds (user + system) a process has used (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** RSS sampled once a second: median and maximum, and the CPU used meanwhile (% of a core). */
export async function sampleProcess(
  pid: number,
  seconds: number,
): Promise<{ rss: number; maxRss: number; cpuPercent: number }> {
  const samples: number[] = [];
  const cpuBefore = cpuSecondsOf(pid);
  const started = performance.now();
  for (let i = 0; i < seconds; i++) {
    await sleep(1_000);
    samples.push(memoryOf(pid).rss);
  }
  const cpu = cpuSecondsOf(pid) - cpuBefore;
  samples.sort((a, b) => a - b);
  return {
    rss: samples[Math.floor(samples.length / 2)]!,
    maxRss: samples[samples.length - 1]!,
    cpuPercent: (cpu / ((performance.now() - started) / 1000)) * 100,
  };
}

export function openFiles(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The soft limit on open files this process (and so its children) runs under. */
export function openFileLimit(): number | null {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const value = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
    return value === undefined || value === 'unlimited' ? null : Number(value);
  } catch {
    return null;
  }
}

export async function postgresReachable(): Promise<boolean> {
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await admin`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await admin.end({ timeout: 1 }).catch(() => {});
  }
}

/**
 * The backends a bench runs on, from its `BENCH_<NAME>_DB` setting: `pglite` or `postgres`
 * alone, `both` (failing where PostgreSQL is down), or, unset, PGlite and PostgreSQL when
 * it answers.
 */
export async function benchBackends(setting: string | undefined): Promise<Backend[]> {
  if (setting === 'pglite' || setting === 'postgres') return [setting];
  return setting === 'both' || (await postgresReachable()) ? ['pglite', 'postgres'] : ['pglite'];
}
