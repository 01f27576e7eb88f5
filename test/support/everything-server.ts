import { spawn } from 'node:child_process';
import path from 'node:path';
import { closedLoopbackPort, REPO_ROOT } from './mcp-fixtures.js';

/*
 * The published `@modelcontextprotocol/server-everything` over HTTP, as tests run a
 * third-party server. It takes its port from PORT and cannot be told to pick one, so a free
 * loopback port is chosen first; a port taken in between is retried with another.
 */

export type EverythingHttpMode = 'streamableHttp' | 'sse';

export interface EverythingServer {
  /** The MCP endpoint: http://127.0.0.1:PORT/mcp, or /sse for the legacy transport. */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const ENTRY = path.join(
  REPO_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
/** What it prints on stderr once it listens, per mode. */
const READY = /listening on port|running on port/i;

function spawnOnce(mode: EverythingHttpMode, port: number): Promise<EverythingServer> {
  const child = spawn(process.execPath, [ENTRY, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`server-everything ${mode} did not listen within 15 s: ${stderr}`));
    }, 15_000);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (!READY.test(stderr)) return;
      clearTimeout(timer);
      const endpoint = mode === 'sse' ? 'sse' : 'mcp';
      resolve({ url: `http://127.0.0.1:${port}/${endpoint}`, pid: child.pid!, stop });
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`server-everything ${mode} exited before listening: ${stderr}`));
    });
  });
}

export async function startEverythingServer(mode: EverythingHttpMode): Promise<EverythingServer> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await spawnOnce(mode, await closedLoopbackPort());
    } catch (error) {
      const busy = error instanceof Error && /EADDRINUSE|already in use/.test(error.message);
      if (!busy || attempt >= 5) throw error;
    }
  }
}
