import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runCli, spawnCli, waitForOutput } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startServe } from '../support/serve.js';

let database: TestDatabase;
const options = () => ({ env: database.env, cwd: database.dir });

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe(`serve lifecycle (${backend})`, () => {
  // run-cli.ts ends a shutdown that passes its 5 s deadline with exit 1, so exit 0 means it
  // finished in time; no wall-clock assertion is needed.
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'logs JSON to stderr only and exits 0 on %s',
    async (signal) => {
      const serve = await startServe(options());
      const { code } = await serve.stop(signal);
      expect(code).toBe(0);
      // stdout: the one-time login link, and nothing else.
      expect(serve.output()).toMatch(
        /^console: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43} \([^\n]*\)\n$/,
      );
      const lines = serve
        .log()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      // Nobody is configured to hear of changes: serve says so, as a warning.
      expect(lines.map((line) => line.msg)).toEqual([
        'mcp-drift serving',
        expect.stringMatching(
          /^no alert destination: nobody will be told of changes; set ALERT_TO/,
        ),
        'shutting down',
        'stopped',
      ]);
      expect(lines[1]).toMatchObject({ level: 40 });
      expect(lines[0]).toMatchObject({
        level: 30,
        service: 'mcp-drift',
        backend: backend === 'postgres' ? 'postgres' : 'embedded',
      });
      expect(Date.parse(lines[0].time)).not.toBeNaN();
    },
  );

  it('lists every configuration problem at start and exits 2', async () => {
    const result = await runCli(['serve'], {
      ...options(),
      env: { ...database.env, LOG_LEVEL: 'loud', HTTP_PORT: 'eighty', ALERT_MIN_SEVERITY: 'huge' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^mcp-drift: invalid configuration: /);
    expect(result.stderr).toContain('ALERT_MIN_SEVERITY');
    expect(result.stderr).toContain('HTTP_PORT');
    expect(result.stderr).toContain('LOG_LEVEL');
  });
});

describe.runIf(backend === 'pglite')('the embedded database is never opened twice', () => {
  it('refuses a second serve on the same home with exit 4, naming the first', async () => {
    const first = await startServe(options());
    const second = await runCli(['serve'], options());
    expect(second.code).toBe(4);
    expect(second.stderr).toContain(`another mcp-drift serve (pid ${first.child.pid}) is running`);
    expect((await first.stop()).code).toBe(0);
  });

  it('recovers after serve is killed with SIGKILL', async () => {
    const serve = await startServe(options());
    const added = await runCli(
      ['server', 'add', 'before-crash', '--url', 'http://127.0.0.1:9/mcp'],
      options(),
    );
    expect(added.code, added.stderr).toBe(0);
    serve.child.kill('SIGKILL');
    await exited(serve.child);
    const home = database.env.MCP_DRIFT_HOME;
    expect(existsSync(path.join(home, 'db.lock'))).toBe(true);

    // Without a live serve the CLI opens the data directory itself, taking over the stale lock.
    const listed = await runCli(['server', 'list', '--json'], options());
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((s: { name: string }) => s.name)).toContain(
      'before-crash',
    );
    const removed = await runCli(['server', 'remove', 'before-crash', '--yes'], options());
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(path.join(home, 'db.lock'))).toBe(false);

    const again = await startServe(options());
    expect((await again.stop()).code).toBe(0);
  });

  it('starts on an empty MCP_DRIFT_HOME, creating and migrating the database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-fresh-'));
    try {
      const child = spawnCli(['serve'], { cwd: dir, env: {} });
      await waitForOutput(child.stderr!, /"msg":"mcp-drift serving"/, 60_000);
      // The default home is ./.mcp-drift in the working directory.
      expect(existsSync(path.join(dir, '.mcp-drift', 'db.sock'))).toBe(true);
      expect(Number(readFileSync(path.join(dir, '.mcp-drift', 'db.lock'), 'utf8'))).toBe(child.pid);
      const listed = await runCli(['server', 'list', '--json'], { cwd: dir, env: {} });
      expect(listed.stdout.trim()).toBe('[]');
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(existsSync(path.join(dir, '.mcp-drift', 'db.lock'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
