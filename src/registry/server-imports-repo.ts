import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { serverImports, type ServerImportRow } from '../db/schema.js';

/** The server_imports table (see schema.ts): where an imported server came from. */

export type ImportRecord = Omit<ServerImportRow, 'importedAt'>;

export async function listImports(db: Database): Promise<ServerImportRow[]> {
  return db.select().from(serverImports);
}

/** Records (or replaces) the origin of a server just imported or updated from a host config. */
export async function saveImport(db: Database, record: ImportRecord): Promise<void> {
  await db
    .insert(serverImports)
    .values(record)
    .onConflictDoUpdate({
      target: serverImports.serverId,
      set: {
        host: record.host,
        sourcePath: record.sourcePath,
        entryName: record.entryName,
        entryHash: record.entryHash,
        importedAt: sql`now()`,
      },
    });
}
