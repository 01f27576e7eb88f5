import { readFileSync } from 'node:fs';
import net from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { Database, DatabaseHandle } from '../../src/db/client.js';
import { DriftError } from '../../src/errors.js';
import type { RunningHttpServer } from '../../src/http/http-server.js';
import { startOpsServer } from '../../src/http/ops-server.js';
import { createLogger } from '../../src/log.js';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { get } from './ops-support.js';

/** The newest migration this build ships: the one the test takes back. */
const newestMigration = (
  JSON.parse(readFileSync('drizzle/meta/_journal.json', 'utf8')) as { entries: { tag: string }[] }
).entries.at(-1)!.tag;

/*
 * The health and metrics endpoint in-process, over real HTTP, on this file's own database.
 * States a running service should never be in (migrations missing) are made inside a
 * transaction that is rolled back, with the endpoint reading through that transaction.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
const logger = createLogger('silent');

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

function start(db: Database, env: Record<string, string> = {}): Promise<RunningHttpServer> {
  const config = loadConfig({ HTTP_PORT: '0', ...env });
  return startOpsServer({ db, config, logger, workerId: 'test-worker' });
}

/** Runs `fn` in a transaction and rolls it back, whatever `fn` changed. */
async function rolledBack(fn: (tx: Database) => Promise<void>): Promise<void> {
  const rollback = new Error('roll back');
  await expect(
    handle.db.transaction(async (tx) => {
      await fn(tx);
      throw rollback;
    }),
  ).rejects.toBe(rollback);
}

describe(`the health and metrics endpoint (${backend})`, () => {
  it('answers /healthz, /readyz and /metrics on 127.0.0.1 by default', async () => {
    const server = await start(handle.db);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await get(`${server.url}/healthz`)).toMatchObject({
        status: 200,
        body: '{"status":"ok"}\n',
      });
      expect(await get(`${server.url}/readyz`)).toMatchObject({
        status: 200,
        body: '{"status":"ready"}\n',
      });
      const metrics = await get(`${server.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(metrics.body).toContain('# TYPE mcp_drift_probe_duration_seconds histogram');
      expect(metrics.body).toContain('# TYPE mcp_drift_servers gauge');
      expect((await get(`${server.url}/other`)).status).toBe(404);
      const posted = await fetch(`${server.url}/readyz`, { method: 'POST' });
      expect(posted.status).toBe(405);
      expect(posted.headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await server.close();
    }
  });

  it('is not ready while a shipped migration is not applied', async () => {
    await rolledBack(async (tx) => {
      await tx.execute(sql`delete from drizzle.__drizzle_migrations
        where created_at = (select max(created_at) from drizzle.__drizzle_migrations)`);
      const server = await start(tx);
      try {
        const answer = await get(`${server.url}/readyz`);
        expect(answer.status).toBe(503);
        expect(JSON.parse(answer.body)).toEqual({
          status: 'not ready',
          reason: `1 migration(s) pending (${newestMigration}); run mcp-drift migrate`,
        });
      } finally {
        await server.close();
      }
    });
  });

  it('is not ready on a database that was never migrated', async () => {
    await rolledBack(async (tx) => {
      await tx.execute(sql`drop schema drizzle cascade`);
      const server = await start(tx);
      try {
        const answer = await get(`${server.url}/readyz`);
        expect(answer.status).toBe(503);
        expect(JSON.parse(answer.body).reason).toBe(
          'the database is not migrated; run mcp-drift migrate',
        );
      } finally {
        await server.close();
      }
    });
    // Rolled back: the same database is ready again.
    const server = await start(handle.db);
    try {
      expect((await get(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses a port in use with a configuration error naming the address', async () => {
    const first = await start(handle.db);
    const port = new URL(first.url).port;
    try {
      const second = start(handle.db, { HTTP_PORT: port });
      await expect(second).rejects.toBeInstanceOf(DriftError);
      await expect(second).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining(`cannot listen on 127.0.0.1:${port}`),
      });
    } finally {
      await first.close();
    }
  });

  // Last: it closes this file's handle, since on PGlite serve must own the database.
  it('makes serve exit 2 with a one-line message when its port is taken', async () => {
    await handle.close();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const result = await runCli(['serve'], {
        env: { ...database.env, HTTP_PORT: String(port), LOG_LEVEL: 'warn' },
        cwd: database.dir,
      });
      expect(result.code).toBe(2);
      // The holder is this test process; see test/ops/ops-port.test.ts for the message whole.
      expect(result.stderr).toMatch(
        new RegExp(
          `^mcp-drift: cannot listen on 127\\.0\\.0\\.1:${port} for health and metrics: the port is in use ` +
            `by pid ${process.pid} \\([^\\n]*\\); ` +
            'set HTTP_PORT to a free port \\(0 picks one\\) or HTTP_HOST to an address of this machine\\n$',
        ),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
