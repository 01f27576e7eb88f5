import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConnectSpec } from '../../src/mcp/index.js';

/*
 * Starting the MCP fixture servers in test/fixtures/servers/. They are plain .mjs files run
 * with the current `node` (process.execPath), which starts about twice as fast as tsx.
 * stdio fixtures are spawned by the code under test from a ConnectSpec; HTTP fixtures are
 * started here on 127.0.0.1 port 0 and announce `LISTENING http://127.0.0.1:PORT`.
 */

export const FIXTURE_SERVERS = fileURLToPath(new URL('../fixtures/servers/', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function fixturePath(script: string): string {
  return path.join(FIXTURE_SERVERS, script);
}

/** A stdio ConnectSpec that runs a fixture script with `args`. */
export function stdioFixture(
  script: string,
  args: string[] = [],
  extra: Partial<ConnectSpec> = {},
): ConnectSpec {
  return {
    name: script.replace(/\.mjs$/, ''),
    transport: 'stdio',
    command: process.execPath,
    args: [fixturePath(script), ...args],
    ...extra,
  };
}

export interface HttpFixture {
  /** e.g. http://127.0.0.1:43211 (append /mcp or /sse). */
  baseUrl: string;
  port: number;
  pid: number;
  /** SIGTERM (the fixture closes its connections and exits), SIGKILL after 3 s. */
  stop(): Promise<void>;
  /** SIGKILL at once, as a crash; resolves when the process is gone. */
  kill(): Promise<void>;
}

export interface HttpFixtureOptions {
  /** Listen on this port (e.g. a killed fixture's, to restart it in place); 0 = ephemeral. */
  port?: number;
}

/**
 * Starts an HTTP fixture on a loopback port (ephemeral unless `options.port`) and waits
 * until it listens. A fixed port that is still briefly taken is retried for a few seconds.
 */
export async function startHttpFixture(
  script: string,
  args: string[] = [],
  options: HttpFixtureOptions = {},
): Promise<HttpFixture> {
  const port = options.port ?? 0;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await spawnHttpFixture(script, args, port);
    } catch (error) {
      const busy = error instanceof Error && error.message.includes('EADDRINUSE');
      if (!busy || port === 0 || attempt >= 30) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function spawnHttpFixture(script: string, args: string[], port: number): Promise<HttpFixture> {
  const child = spawn(
    process.execPath,
    [fixturePath(script), '--transport', 'http', '--port', String(port), ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async () => {
    if (gone()) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  const kill = async () => {
    if (gone()) return;
    child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${script} did not announce its URL within 15 s; stderr: ${stderr}`));
    }, 15_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /LISTENING (http:\/\/\S+)/.exec(stdout);
      if (!match?.[1] || child.pid === undefined) return;
      clearTimeout(timer);
      const baseUrl = match[1];
      resolve({ baseUrl, port: Number(new URL(baseUrl).port), pid: child.pid, stop, kill });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with code ${code} before listening; stderr: ${stderr}`));
    });
  });
}

/** A `POST /control` body for sdk1-server.mjs / sdk2-server.mjs. */
export interface FixtureControl {
  /** Re-declare the destructive tool read-only (true) or back to its base annotations (false). */
  relax?: boolean;
  /** list_changed notifications to send: true = `--burst` (default 1), false/0 = silently. */
  notify?: boolean | number;
  /** Spread the notifications this far apart; default `--burst-gap-ms` (0: all at once). */
  burstGapMs?: number;
  /** sdk1 only: forget every Streamable HTTP session, as a restart or expiry would. */
  expireSessions?: boolean;
  /** Cut every open server-to-client stream (2025 GET streams, 2026 listen streams). */
  dropStreams?: boolean;
  /** Append this to a description (null: take it back): sdk1 search_notes', sdk2 (HTTP)
   * list_files'. */
  poison?: string | null;
  /** sdk2 over HTTP only: list an added `archive_tenant` tool (true) or not (false). */
  archive?: boolean;
  /** Re-read the `--surfaces` file and apply it to live sessions, with notifications. */
  surfaces?: boolean;
}

export interface FixtureControlAnswer {
  relaxed: boolean;
  notified: number;
  /** Live sessions the change reached (sdk2 over HTTP: 0, its instances live per request). */
  sessions: number;
  /** Open server-to-client streams after the request. */
  streams: number;
}

/**
 * Changes a running HTTP fixture's listing for every session at once (`POST /control`;
 * see test/fixtures/servers/README.md): `{ relax: true, notify: false }` re-declares the
 * destructive tool read-only without telling anyone. Resolves with the fixture's answer.
 */
export async function controlFixture(
  baseUrl: string,
  body: FixtureControl,
): Promise<FixtureControlAnswer> {
  const response = await fetch(`${baseUrl}/control`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    throw new Error(
      `POST ${baseUrl}/control answered ${response.status}: ${await response.text()}`,
    );
  }
  return (await response.json()) as FixtureControlAnswer;
}

/** A loopback port nothing listens on (bound, then released). */
export function closedLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/**
 * A file fixtures append their pid to (they read MCP_FIXTURE_PID_FILE), so a test can check
 * that every process the client started is gone, retries included.
 */
export function pidFile(): {
  path: string;
  env: Record<string, string>;
  pids(): number[];
  remove(): void;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-pids-'));
  const file = path.join(dir, 'pids');
  writeFileSync(file, '');
  return {
    path: file,
    env: { MCP_FIXTURE_PID_FILE: file },
    pids: () =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map(Number),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // Field 3 of /proc/PID/stat is the state; Z is a zombie, which is as good as gone.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
