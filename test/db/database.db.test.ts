import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { listings, observations, servers } from '../../src/db/schema.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
let owner: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  owner = await database.open({ share: true });
});
afterAll(async () => {
  await owner?.close();
  await database?.drop();
});

describe(`the data model (${backend})`, () => {
  it('is migrated: every table exists', async () => {
    const result: unknown = await owner.db.execute(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    // postgres.js returns the rows; PGlite returns { rows }.
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
      table_name: string;
    }[];
    const names = rows.map((row) => row.table_name);
    expect(names).toEqual([
      'alerts',
      'baselines',
      'changes',
      'deliveries',
      'findings',
      'gateway_refusals',
      'gateway_tokens',
      'held_sessions',
      'listings',
      'oauth_tokens',
      'observation_counts',
      'observations',
      'operator_actions',
      'outages',
      'server_config_problems',
      'server_imports',
      'servers',
      'worker_leases',
      'workers',
    ]);
  });

  it('refuses a registration whose fields do not fit its transport', async () => {
    await expect(
      owner.db.insert(servers).values({ name: 'broken', transport: 'stdio', url: 'http://x.test' }),
    ).rejects.toThrow();
  });

  it('refuses an error observation that carries a listing, and an ok one without', async () => {
    const [server] = await owner.db
      .insert(servers)
      .values({ name: 'observed', transport: 'http', url: 'http://127.0.0.1:9/mcp' })
      .returning();
    await owner.db
      .insert(listings)
      .values({ hash: 'h1', body: '{"tools":[]}', toolHashes: {}, toolCount: 0, byteSize: 12 });
    const now = new Date();
    const base = {
      serverId: server!.id,
      startedAt: now,
      lastSeenAt: now,
      durationMs: 5,
      trigger: 'poll' as const,
    };
    await expect(
      owner.db.insert(observations).values({ ...base, outcome: 'ok' }),
    ).rejects.toThrow();
    await expect(
      owner.db
        .insert(observations)
        .values({ ...base, outcome: 'error', listingHash: 'h1', errorMessage: 'x' }),
    ).rejects.toThrow();
    await owner.db.insert(observations).values({
      ...base,
      outcome: 'error',
      errorCode: 'REMOTE_TIMEOUT',
      errorMessage: 'no answer in 30 s',
    });
    // Removing a server removes its history with it.
    await owner.db.delete(servers).where(eq(servers.id, server!.id));
    expect(await owner.db.select().from(observations)).toEqual([]);
  });
});

describe.runIf(backend === 'pglite')('sharing the embedded database with other processes', () => {
  it("keeps one client's open transaction apart from another client's statements", async () => {
    const other = await database.open();
    expect(other.backend).toBe('embedded-socket');
    try {
      const inTransaction = owner.db
        .transaction(async (tx) => {
          await tx
            .insert(servers)
            .values({ name: 'rolled-back', transport: 'http', url: 'http://a.test' });
          await sleep(300);
          tx.rollback();
        })
        .then(
          () => 'committed',
          (error: Error) => error.message,
        );
      await sleep(50);
      // Issued while the transaction above is open: it waits for it to end rather than
      // joining it and being rolled back with it.
      await other.db
        .insert(servers)
        .values({ name: 'kept', transport: 'http', url: 'http://b.test' });
      expect(await inTransaction).toBe('Rollback');
      const names = (await owner.db.select({ name: servers.name }).from(servers)).map(
        (row) => row.name,
      );
      expect(names).toContain('kept');
      expect(names).not.toContain('rolled-back');
    } finally {
      await other.close();
    }
  });

  it('keeps concurrent parameterized queries of several clients apart', async () => {
    const others = [await database.open(), await database.open()];
    try {
      // Different statements with different parameter counts, all at once, from three
      // connections: an exchange interleaved with another's would fail to bind.
      const queries = Array.from({ length: 60 }, (_, i) => {
        const client = i % 3 === 0 ? owner : others[i % 2]!;
        return i % 2 === 0
          ? client.db
              .select()
              .from(servers)
              .where(eq(servers.name, `none-${i}`))
          : client.db
              .select({ id: servers.id })
              .from(servers)
              .where(
                and(
                  eq(servers.name, `none-${i}`),
                  eq(servers.enabled, true),
                  eq(servers.hold, false),
                ),
              );
      });
      const results = await Promise.all(queries);
      expect(results.every((rows) => rows.length === 0)).toBe(true);
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
  });
});
