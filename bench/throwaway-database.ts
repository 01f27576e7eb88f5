import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase, type DatabaseHandle } from '../src/db/client.js';
import { POSTGRES_ADMIN_URL, type Backend } from './watch-monitor.js';

/** A migrated database of its own for one bench run: a PGlite directory or a PostgreSQL database. */
export async function openBench(
  backend: Backend,
  label: string,
): Promise<{ handle: DatabaseHandle; drop: () => Promise<void> }> {
  const home = mkdtempSync(path.join(tmpdir(), `mcp-drift-bench-${label}-`));
  if (backend === 'pglite') {
    const handle = await openDatabase({ home });
    return { handle, drop: async () => rmSync(home, { recursive: true, force: true }) };
  }
  const name = `mcp_drift_bench_${label}_${process.pid}`;
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const handle = await openDatabase({
    databaseUrl: POSTGRES_ADMIN_URL.replace(/\/postgres$/, `/${name}`),
    home,
  });
  return {
    handle,
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
