import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { afterAll, beforeAll, expect } from 'vitest';
import { migratePglite, migratePostgres, migrationsFolder } from '../../src/db/migrate.js';
import { backend } from './database.js';
import { databaseUrl } from './global-setup.js';

// Migration tests: a database of this test's backend built as an earlier release left it
// (the shipped migrations up to one of them), to be filled as that release wrote it and
// then migrated to this release's schema.

/** The shipped migrations up to and including `last`, in a folder of their own. */
function migrationsUpTo(last: string): { folder: string; remove: () => void } {
  const folder = mkdtempSync(path.join(tmpdir(), 'mcp-drift-migrations-'));
  const journal = JSON.parse(
    readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: { tag: string }[] };
  const end = journal.entries.findIndex((entry) => entry.tag === last);
  expect(end).toBeGreaterThanOrEqual(0);
  const entries = journal.entries.slice(0, end + 1);
  mkdirSync(path.join(folder, 'meta'));
  writeFileSync(
    path.join(folder, 'meta', '_journal.json'),
    JSON.stringify({ ...journal, entries }),
  );
  for (const entry of entries) {
    copyFileSync(
      path.join(migrationsFolder, `${entry.tag}.sql`),
      path.join(folder, `${entry.tag}.sql`),
    );
  }
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

export type Query = (text: string) => Promise<Record<string, unknown>[]>;

export interface Subject {
  query: Query;
  migrate(folder?: string): Promise<void>;
  close(): Promise<void>;
}

async function openSubject(): Promise<Subject> {
  if (backend === 'pglite') {
    const pglite = await PGlite.create();
    return {
      query: async (text) => (await pglite.query<Record<string, unknown>>(text)).rows,
      migrate: (folder) => migratePglite(pglite, folder),
      close: () => pglite.close(),
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `mcp_drift_migration_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = databaseUrl(adminUrl, name);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  return {
    query: async (text) => [...(await sql.unsafe(text))] as Record<string, unknown>[],
    migrate: (folder) => migratePostgres(url, folder),
    async close() {
      await sql.end();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/**
 * The database of the migration test in this file, at `previousTag` (a migration's tag)
 * before its tests run and dropped after them: call it at the top of the test file.
 */
export function databaseAtMigration(previousTag: string): Omit<Subject, 'close'> {
  let subject: Subject | undefined;
  let previous: { folder: string; remove: () => void } | undefined;
  beforeAll(async () => {
    subject = await openSubject();
    previous = migrationsUpTo(previousTag);
    await subject.migrate(previous.folder);
  });
  afterAll(async () => {
    previous?.remove();
    await subject?.close();
  });
  return {
    query: (text) => subject!.query(text),
    migrate: (folder) => subject!.migrate(folder),
  };
}
