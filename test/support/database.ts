import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { databaseUrl } from './global-setup.js';

export type Backend = 'pglite' | 'postgres';
export const backend = (process.env.MCP_DRIFT_TEST_BACKEND ?? 'pglite') as Backend;

/**
 * A database of this test file's own, on the backend the project runs: a PostgreSQL
 * database cloned from the run's template, or an MCP_DRIFT_HOME with a copy of the
 * template PGlite data directory. `env` is what a CLI subprocess needs to use it.
 */
export interface TestDatabase {
  env: { DATABASE_URL?: string; MCP_DRIFT_HOME: string };
  /** The working directory for CLI subprocesses (holds MCP_DRIFT_HOME for PGlite). */
  dir: string;
  open(options?: { share?: boolean }): Promise<DatabaseHandle>;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-test-'));
  const home = path.join(dir, 'home');
  if (backend === 'postgres') {
    const adminUrl = process.env.TEST_DATABASE_URL!;
    const name = `${inject('runPrefix')}${randomBytes(4).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name} template ${inject('templateDatabase')}`);
    const url = databaseUrl(adminUrl, name);
    return {
      env: { DATABASE_URL: url, MCP_DRIFT_HOME: home },
      dir,
      open: (options) => openDatabase({ databaseUrl: url, home, ...options }),
      async drop() {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  // Private, as mcp-drift makes a home: an open one would be tightened, with a warning, by
  // the first command of every test.
  mkdirSync(home, { mode: 0o700 });
  cpSync(inject('templateDataDir'), path.join(home, 'db'), { recursive: true });
  return {
    env: { MCP_DRIFT_HOME: home },
    dir,
    open: (options) => openDatabase({ home, ...options }),
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
