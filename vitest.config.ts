import net from 'node:net';
import { defineConfig } from 'vitest/config';

// Database tests (`*.db.test.ts`) run once per backend: the embedded PGlite always, the
// PostgreSQL server at TEST_DATABASE_URL when it answers. A newcomer without PostgreSQL
// still gets a passing `npm test`; CI (CI=true) insists on both.
const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 5432) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export default defineConfig(async () => {
  const havePostgres = await reachable(postgresUrl);
  if (!havePostgres && process.env.CI) {
    throw new Error(`CI requires PostgreSQL at ${postgresUrl}; none answered`);
  }
  if (!havePostgres) {
    console.warn(`PostgreSQL not reachable at ${postgresUrl}: database tests run on PGlite only`);
  }
  const dbProject = (backend: 'pglite' | 'postgres') => ({
    test: {
      name: `db-${backend}`,
      include: ['test/**/*.db.test.ts'],
      env: { MCP_DRIFT_TEST_BACKEND: backend, TEST_DATABASE_URL: postgresUrl },
      globalSetup: ['test/support/global-setup.ts'],
      // Each of these tests runs a dozen CLI processes and MCP servers, and on PGlite every
      // CLI process opens the data directory (about a second each on an idle machine).
      testTimeout: 180_000,
      hookTimeout: 60_000,
    },
  });
  return {
    test: {
      // Most files spawn CLI processes and MCP servers; two at a time suits two cores.
      maxWorkers: 2,
      projects: [
        {
          test: {
            name: 'unit',
            include: ['test/**/*.test.ts'],
            exclude: ['test/**/*.db.test.ts', 'node_modules/**'],
            testTimeout: 30_000,
          },
        },
        dbProject('pglite'),
        ...(havePostgres ? [dbProject('postgres')] : []),
      ],
    },
  };
});
