import net from 'node:net';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { Database } from '../../src/db/client.js';
import * as schema from '../../src/db/schema.js';
import type { RunningHttpServer } from '../../src/http/http-server.js';
import { startOpsServer } from '../../src/http/ops-server.js';
import { createLogger } from '../../src/log.js';
import { get } from './ops-support.js';

/*
 * A database that accepts connections and never answers (a hung server, a half-open
 * network path): the endpoint must still answer in time, from its own time limit, since
 * the driver would wait for its 30 s connect timeout.
 */

let blackHole: net.Server;
const sockets = new Set<net.Socket>();
let sql: postgres.Sql;
let server: RunningHttpServer;

beforeAll(async () => {
  blackHole = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  const { port } = blackHole.address() as net.AddressInfo;
  sql = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { onnotice: () => {} });
  server = await startOpsServer({
    db: drizzle(sql, { schema }) as unknown as Database,
    config: loadConfig({ HTTP_PORT: '0' }),
    logger: createLogger('silent'),
    workerId: 'test-worker',
  });
});
afterAll(async () => {
  await server?.close();
  for (const socket of sockets) socket.destroy();
  await sql?.end({ timeout: 0 }).catch(() => {});
  await new Promise((resolve) => blackHole?.close(resolve));
});

describe('the endpoint with a database that never answers', () => {
  // get() gives up after 5 s, so a pass means each answer came before that.
  it('answers /readyz 503 in time', async () => {
    const answer = await get(`${server.url}/readyz`);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toEqual({
      status: 'not ready',
      reason: 'database unreachable: the database took longer than 2000 ms',
    });
    expect(sockets.size).toBeGreaterThan(0);
  });

  it('answers /metrics 503 in time, and /healthz 200', async () => {
    const answer = await get(`${server.url}/metrics`);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatch(/took longer than 4000 ms/);
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
  });
});
