import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { closedLoopbackPort } from '../support/mcp-fixtures.js';

/*
 * A throwaway PostgreSQL cluster of one test's own, on a free loopback port, so that the
 * test can stop and start it without disturbing the shared server the other tests use.
 * PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user.
 */

const run = promisify(execFile);
const PG_ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin directory, e.g. /usr/lib/postgresql/15/bin. */
function binDir(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((version) => existsSync(path.join(PG_ROOT, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(PG_ROOT, versions[0], 'bin');
}

const asRoot = () => process.getuid?.() === 0;

/** Why a private cluster cannot be made here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (process.platform === 'win32') return 'PostgreSQL server binaries are looked up on Linux only';
  if (!binDir()) return `no PostgreSQL server binaries (initdb) under ${PG_ROOT}`;
  if (asRoot() && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    return 'running as root without runuser to start PostgreSQL as the postgres user';
  return undefined;
}

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust authentication). */
  url: string;
  /** `pg_ctl stop -m fast`: the server ends every connection and is gone. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it if running and deletes its files. */
  destroy(): Promise<void>;
}

export async function createPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  if (!bin) throw new Error(privatePostgresUnavailable());
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-pg-'));
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  if (asRoot()) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (program: string, args: string[]) =>
    asRoot()
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args])
      : run(path.join(bin, program), args);

  const port = await closedLoopbackPort();
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off`;
  const start = async () => {
    await pg('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
  };
  const stop = async () => {
    await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    async destroy() {
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
