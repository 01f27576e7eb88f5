import { existsSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { DriftError } from '../errors.js';
import { ensurePrivateDirectory, restrictUmask } from '../private-files.js';
import { readLockHolder, tryLock, type HomeLock } from './home-lock.js';
import { migratePglite, migratePostgres, migrationsPending } from './migrate.js';
import { keepPrivateModes } from './pglite-modes.js';
import { keepExchangesWhole } from './socket-queue.js';

/** What repositories take: the database itself or a transaction on it. */
export type Database = PgDatabase<PgQueryResultHKT>;

export interface DatabaseHandle {
  db: Database;
  /** `postgres`: DATABASE_URL; `embedded`: PGlite opened here; `embedded-socket`: through a running serve. */
  backend: 'postgres' | 'embedded' | 'embedded-socket';
  /** Where it is, without credentials, for logs and error messages. */
  location: string;
  /**
   * How many entries of an MCP_DRIFT_HOME that others could enter were made private on
   * opening it (0 on PostgreSQL): the command warns, since someone else may have read them.
   */
  madePrivate: number;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string | undefined;
  home: string;
  /**
   * `serve` owns the embedded database and shares it with CLI commands through a unix
   * socket in the home directory; other commands use that socket when it is live.
   */
  share?: boolean;
  /** How long to wait for another process that holds the embedded database briefly. */
  lockWaitMs?: number;
}

export function embeddedPaths(home: string) {
  const dir = path.resolve(home);
  return {
    dir,
    dataDir: path.join(dir, 'db'),
    socket: path.join(dir, 'db.sock'),
    lock: path.join(dir, 'db.lock'),
  };
}

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  return openEmbedded(options);
}

export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'an unparseable DATABASE_URL';
  }
}

/**
 * How long closing waits for queries still pending. Commands await their queries before
 * closing; only serve can have some left (a part that ran out of its grace at shutdown), and
 * run-cli's 5 s deadline must cover the close as well.
 */
const CLOSE_TIMEOUT_S = 1;

/** postgres.js prints notices to stdout by default, and stdout carries data only. */
const quiet = { onnotice: () => {} } as const;

async function openPostgres(url: string): Promise<DatabaseHandle> {
  const location = describePostgresUrl(url);
  const sql = postgres(url, { ...quiet, max: 10, connect_timeout: 5 });
  await reachOrThrow(sql, `PostgreSQL at ${location}`, 'check DATABASE_URL');
  const db = drizzlePostgres(sql);
  try {
    if (await migrationsPending(sql)) await migratePostgres(url);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return {
    db,
    backend: 'postgres',
    location,
    madePrivate: 0,
    close: () => sql.end({ timeout: CLOSE_TIMEOUT_S }),
  };
}

async function reachOrThrow(sql: postgres.Sql, what: string, hint: string): Promise<void> {
  try {
    await sql`select 1`;
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => {});
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    throw new DriftError('DATABASE_UNREACHABLE', `cannot reach ${what} (${reason}); ${hint}`, {
      cause: error,
    });
  }
}

function socketLive(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const done = (live: boolean) => {
      socket.destroy();
      resolve(live);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function socketClient(socketPath: string): postgres.Sql {
  // One connection: the socket server runs one statement at a time anyway, and a single
  // connection keeps a transaction's statements on the handler that opened it.
  return postgres({ ...quiet, path: socketPath, max: 1, database: 'postgres', user: 'postgres' });
}

async function openEmbedded(options: OpenOptions): Promise<DatabaseHandle> {
  const paths = embeddedPaths(options.home);
  // Before the lock and PGlite write anything: every file they make is the operator's alone.
  restrictUmask();
  const madePrivate = ensurePrivateDirectory(paths.dir);
  const deadline = Date.now() + (options.lockWaitMs ?? 15_000);
  for (;;) {
    if (!options.share) {
      const through = await openThroughSocket(paths.socket);
      if (through) return { ...through, madePrivate };
    }
    const served = options.share && (await socketLive(paths.socket));
    const attempt = served ? undefined : tryLock(paths.lock);
    if (attempt && 'lock' in attempt) {
      try {
        return { ...(await openPglite(paths, attempt.lock, options.share === true)), madePrivate };
      } catch (error) {
        attempt.lock.release();
        throw error;
      }
    }
    // Another serve is sharing the database: it will not let go, so there is no point in
    // waiting. Any other holder is a short command, worth waiting for.
    if (served || Date.now() >= deadline) {
      const holder = attempt?.heldBy ?? readLockHolder(paths.lock);
      const who = served
        ? `another mcp-drift serve (pid ${holder}) is running on this MCP_DRIFT_HOME`
        : `process ${holder} has it open and offers no socket`;
      throw new DriftError(
        'DATABASE_BUSY',
        `the embedded database in ${paths.dataDir} is busy: ${who}`,
      );
    }
    await sleep(100);
  }
}

/** What connecting to a socket no serve listens on fails with: no file, or a stale one. */
const NOT_SERVED = new Set(['ENOENT', 'ECONNREFUSED']);

/**
 * The embedded database through serve's socket, or undefined when no serve listens on it.
 * Connecting is the test: a separate probe first would cost a connection more at each
 * command, and a command's start is what a person at a terminal waits for.
 */
async function openThroughSocket(
  socketPath: string,
): Promise<Omit<DatabaseHandle, 'madePrivate'> | undefined> {
  if (!existsSync(socketPath)) return undefined;
  const sql = socketClient(socketPath);
  try {
    await reachOrThrow(
      sql,
      `the embedded database through ${socketPath}`,
      'is mcp-drift serve healthy?',
    );
  } catch (error) {
    const code = ((error as Error).cause as { code?: string } | undefined)?.code;
    if (NOT_SERVED.has(code ?? '')) return undefined;
    throw error;
  }
  return {
    db: drizzlePostgres(sql),
    backend: 'embedded-socket',
    location: socketPath,
    close: () => sql.end({ timeout: CLOSE_TIMEOUT_S }),
  };
}

/**
 * The embedded Postgres with 32 MB of shared buffers instead of 128 MB: it initializes all
 * of them at start, in the process's memory, and the OS page cache is behind its files
 * anyway. Measured on an existing data directory after a few queries: 334 MB RSS with the
 * default, 225 MB with 32 MB (16 MB: about 200 MB; 8 MB: about 170 MB).
 */
const PGLITE_SHARED_BUFFERS = ['-c', 'shared_buffers=32MB'];

/**
 * PGlite, its socket server and its drizzle driver are loaded here only: a command that
 * reaches PostgreSQL, or the embedded database through serve's socket, never loads them.
 */
async function openPglite(
  paths: ReturnType<typeof embeddedPaths>,
  lock: HomeLock,
  share: boolean,
): Promise<Omit<DatabaseHandle, 'madePrivate'>> {
  const [{ PGlite }, { PGLiteSocketServer }, { drizzle: drizzlePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-socket'),
    import('drizzle-orm/pglite'),
  ]);
  keepPrivateModes(paths.dataDir);
  const pglite = await PGlite.create(paths.dataDir, {
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SHARED_BUFFERS],
  });
  await migratePglite(pglite);
  if (!share) {
    return {
      db: drizzlePglite(pglite),
      backend: 'embedded',
      location: paths.dataDir,
      close: once(async () => {
        await pglite.close();
        lock.release();
      }),
    };
  }
  // A socket file left by a crashed serve would make listen() fail with EADDRINUSE; we
  // hold the lock, so nobody else is serving on it.
  rmSync(paths.socket, { force: true });
  const server = new PGLiteSocketServer({ db: pglite, path: paths.socket, maxConnections: 64 });
  keepExchangesWhole(server, pglite);
  await server.start();
  // serve goes through its own socket too: PGlite has one session, and only the socket
  // server keeps one client's open transaction from interleaving with another's queries.
  const sql = socketClient(paths.socket);
  return {
    db: drizzlePostgres(sql),
    backend: 'embedded',
    location: paths.dataDir,
    close: once(async () => {
      await sql.end({ timeout: CLOSE_TIMEOUT_S });
      await server.stop();
      await pglite.close();
      rmSync(paths.socket, { force: true });
      lock.release();
    }),
  };
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
