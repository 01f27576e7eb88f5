import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import postgres from 'postgres';
import { PGlite } from '@electric-sql/pglite';
import { migratePglite, migratePostgres } from '../../src/db/migrate.js';

/*
 * Builds one migrated template per run: a PostgreSQL database that each test file clones
 * with CREATE DATABASE … TEMPLATE, or a PGlite data directory that each test file copies.
 * Cloning keeps files isolated without paying for initdb and migrations every time.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    templateDataDir: string;
    /** Prefix of this run's per-file databases, so teardown finds its leftovers. */
    runPrefix: string;
  }
}

export function databaseUrl(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

export default async function setup(project: TestProject) {
  const backend = project.config.env.MCP_DRIFT_TEST_BACKEND;
  if (backend === 'postgres') {
    const adminUrl = project.config.env.TEST_DATABASE_URL!;
    const template = `mcp_drift_template_${process.pid}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${template} with (force)`);
    await admin.unsafe(`create database ${template}`);
    await migratePostgres(databaseUrl(adminUrl, template));
    project.provide('templateDatabase', template);
    project.provide('templateDataDir', '');
    project.provide('runPrefix', `mcp_drift_t_${process.pid}_`);
    return async () => {
      const leftovers = await admin<{ datname: string }[]>`
        select datname from pg_database where datname like ${`mcp_drift_t_${process.pid}_%`}`;
      for (const { datname } of leftovers)
        await admin.unsafe(`drop database if exists ${datname} with (force)`);
      await admin.unsafe(`drop database if exists ${template} with (force)`);
      await admin.end();
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-template-'));
  const dataDir = path.join(dir, 'db');
  const pglite = await PGlite.create(dataDir);
  await migratePglite(pglite);
  await pglite.close();
  project.provide('templateDatabase', '');
  project.provide('templateDataDir', dataDir);
  project.provide('runPrefix', '');
  return () => rmSync(dir, { recursive: true, force: true });
}
