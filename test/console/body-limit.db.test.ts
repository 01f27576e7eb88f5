import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { RunningHttpServer } from '../../src/http/http-server.js';
import { MAX_BODY_BYTES } from '../../src/http/ops-server.js';
import { createLogger } from '../../src/log.js';
import { startConsoleServer } from '../support/console-server.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

/*
 * An endless upload costs the console nothing: 300 MB posted to the login form and to an
 * API route, streamed from here (one 64 KiB buffer sent over and over, never held whole),
 * are refused with 413 and leave this process's resident memory, which serves them, within
 * 50 MB of what it was before.
 */

const TOKEN = 'body-limit-test-token-0123456789';
const TOTAL = 300 * 1024 * 1024;
const MB = 1024 * 1024;
const logger = createLogger('silent');

let database: TestDatabase;
let handle: DatabaseHandle;
let http: RunningHttpServer;
let port: number;

/**
 * Streams `TOTAL` bytes of a form body to `path` with back-pressure, chunked or with the
 * length declared up front, until the answer comes or the server closes the connection.
 */
function upload(
  path: string,
  options: { declareLength: boolean; headers?: Record<string, string> },
): Promise<{ status: number; body: string; sent: number }> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  chunk.write('token=');
  return new Promise((resolve, reject) => {
    let sent = 0;
    let finished = false;
    const outgoing = request({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: `http://127.0.0.1:${port}`,
        ...(options.declareLength ? { 'content-length': String(TOTAL) } : {}),
        ...options.headers,
      },
    });
    const pump = () => {
      while (!finished && sent < TOTAL) {
        sent += chunk.length;
        if (!outgoing.write(chunk)) {
          outgoing.once('drain', pump);
          return;
        }
      }
      if (!finished) outgoing.end();
    };
    outgoing.on('response', (response) => {
      finished = true;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => (body += text));
      response.on('end', () => {
        outgoing.destroy();
        resolve({ status: response.statusCode!, body, sent });
      });
    });
    outgoing.on('error', (error) => {
      if (!finished) reject(error);
    });
    pump();
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await database.open({ share: true });
  ({ http, port } = await startConsoleServer(handle.db, { token: TOKEN, logger }));
});

afterAll(async () => {
  await http?.close();
  await handle?.close();
  await database?.drop();
});

describe(`request bodies (${backend})`, () => {
  it('refuses 300 MB posts with 413, keeping resident memory within 50 MB', async () => {
    // One small answered request first, so the server's lazily loaded parts are in memory.
    const small = await fetch(`${http.url}/login`, { method: 'POST', body: 'token=x' });
    expect(small.status).toBe(403);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    try {
      const bearer = { authorization: `Bearer ${TOKEN}` };
      const answers = [
        await upload('/login', { declareLength: false }),
        await upload('/login', { declareLength: true }),
        await upload('/api/v1/servers/notes/baseline', { declareLength: false, headers: bearer }),
        await upload('/api/v1/servers/notes/baseline', { declareLength: true, headers: bearer }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(413);
        expect(answer.body).toContain(`at most ${MAX_BODY_BYTES} bytes`);
      }
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    console.info(`rss ${Math.round(before / MB)} MB before, ${Math.round(peak / MB)} MB at most`);
    expect(
      (peak - before) / MB,
      `rss ${before / MB} MB before, ${peak / MB} MB at most`,
    ).toBeLessThan(50);
  });

  it('still takes a body under the limit', async () => {
    const answer = await fetch(`${http.url}/api/v1/servers/nobody/baseline`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ listing: 'a'.repeat(MAX_BODY_BYTES - 100) }),
    });
    // Read and judged (a 413 would come before any judging): the handler reads the body,
    // then finds no server of that name.
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(
      /nobody/,
    );
  });
});
