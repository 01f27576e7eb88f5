import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { REPO_ROOT } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';

// Every command here runs while `serve` holds the database, as an operator's would; the
// embedded database's direct path is exercised in serve-lifecycle.db.test.ts.
let database: TestDatabase;
let serve: RunningServe;
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: database.env, cwd: database.dir });

async function listNames(): Promise<string[]> {
  const result = await cli('server', 'list', '--json');
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { name: string }[]).map((server) => server.name);
}

beforeAll(async () => {
  database = await createTestDatabase();
  serve = await startServe({ env: database.env, cwd: database.dir });
});
afterAll(async () => {
  await serve?.stop();
  await database?.drop();
});

describe(`server registry through the CLI, serve running (${backend})`, () => {
  it('adds a stdio server and lists it', async () => {
    // serve watches what is registered: --cwd makes npx find the dev dependency locally
    // instead of fetching it, so the test stays on this machine.
    const added = await cli(
      'server',
      'add',
      'fs',
      '--cwd',
      REPO_ROOT,
      '--stdio',
      '--',
      'npx',
      '@modelcontextprotocol/server-filesystem',
      '/tmp',
    );
    expect(added.code, added.stderr).toBe(0);
    const listed = await cli('server', 'list', '--json');
    const [server] = JSON.parse(listed.stdout);
    expect(server).toMatchObject({
      name: 'fs',
      transport: 'stdio',
      command: 'npx',
      args: ['@modelcontextprotocol/server-filesystem', '/tmp'],
      cwd: REPO_ROOT,
      trust: 'untrusted',
      schedule: null,
      effectiveSchedule: '*/5 * * * *',
      held: false,
      enabled: true,
    });
  });

  it('adds an http server with a header reference, trust and schedule', async () => {
    const added = await cli(
      'server',
      'add',
      'web',
      '--url',
      'http://127.0.0.1:3001/mcp',
      '--header',
      'Authorization=Bearer ${TOKEN}',
      '--trust',
      'trusted',
      '--schedule',
      '*/2 * * * *',
      '--json',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      name: 'web',
      transport: 'http',
      url: 'http://127.0.0.1:3001/mcp',
      headers: { Authorization: 'Bearer ${TOKEN}' },
      trust: 'trusted',
      schedule: '*/2 * * * *',
      held: true,
    });
    expect(await listNames()).toEqual(['fs', 'web']);
  });

  it('never prints a literal header or env secret', async () => {
    const added = await cli(
      'server',
      'add',
      'secretive',
      '--url',
      'https://example.test/mcp',
      '--header',
      'X-Api-Key=sk-live-abc123',
      '--header',
      'Authorization=Bearer ${TOKEN}',
    );
    expect(added.code, added.stderr).toBe(0);
    // A password in the URL is refused (it would be stored), without being repeated.
    const withPassword = await cli(
      'server',
      'add',
      'creds',
      '--url',
      'https://user:hunter2@example.test/mcp',
    );
    expect(withPassword.code).toBe(2);
    expect(withPassword.stdout + withPassword.stderr).not.toContain('hunter2');
    const stdio = await cli(
      'server',
      'add',
      'envy',
      '--stdio',
      '--env',
      'API_KEY=sk-live-abc123',
      '--env',
      'REF=${HOME}',
      '--',
      'node',
      'x.js',
    );
    expect(stdio.code, stdio.stderr).toBe(0);
    for (const args of [
      ['server', 'list'],
      ['server', 'list', '--json'],
      ['server', 'show', 'secretive'],
      ['server', 'show', 'envy', '--json'],
    ]) {
      const result = await cli(...args);
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain('sk-live-abc123');
      expect(result.stdout + result.stderr).not.toContain('hunter2');
    }
    const shown = JSON.parse((await cli('server', 'show', 'envy', '--json')).stdout);
    expect(shown.env).toEqual({ API_KEY: '****', REF: '${HOME}' });
    await cli('server', 'remove', 'secretive', '--yes');
    await cli('server', 'remove', 'envy', '--yes');
  });

  it.each([
    [['server', 'add', 'web', '--url', 'http://127.0.0.1:9/mcp'], 3, /already exists/],
    [['server', 'add', 'bad name', '--url', 'http://x.test'], 2, /invalid server name "bad name"/],
    [['server', 'add', 'x', '--url', 'ftp://x'], 2, /scheme must be http or https, not ftp/],
    [
      ['server', 'add', 'x', '--url', 'http://x.test', '--schedule', '61 * * * *'],
      2,
      /invalid --schedule "61 \* \* \* \*"/,
    ],
    [
      ['server', 'add', 'x', '--url', 'http://x.test', '--trust', 'maybe'],
      2,
      /invalid --trust "maybe": use one of trusted, partial, untrusted/,
    ],
    [['server', 'add', 'x', '--stdio'], 2, /--stdio needs a command after --/],
    [['server', 'add', 'x', '--stdio', '--'], 2, /--stdio needs a command after --/],
    [
      ['server', 'add', 'x', '--url', 'http://x.test', '--notify', 'nobody'],
      2,
      /invalid --notify "nobody"/,
    ],
    [
      ['server', 'add', 'x', '--url', 'http://x.test', '--env', 'A=1'],
      2,
      /--env applies to --stdio servers/,
    ],
    [
      ['server', 'add', 'x', '--url', 'http://x.test', '--frobnicate'],
      2,
      /^mcp-drift: server add: unknown option '--frobnicate'/,
    ],
    [['server', 'add', 'x', '--url', 'http://x.test', '--stdio', '--', 'node'], 2, /not both/],
    [['server', 'remove', 'ghost', '--yes'], 3, /no server named "ghost"/],
    [['server', 'edit', 'ghost', '--trust', 'trusted'], 3, /no server named "ghost"/],
    [['server', 'frob'], 2, /^mcp-drift: server: unknown command 'frob'/],
  ])('rejects %j with exit %i and one line, writing nothing', async (args, code, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(await listNames()).toEqual(['fs', 'web']);
  });

  it('edits, disables, enables and removes', async () => {
    const edited = await cli(
      'server',
      'edit',
      'web',
      '--trust',
      'partial',
      '--transport',
      'sse',
      '--schedule',
      'default',
      '--json',
    );
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({
      transport: 'sse',
      trust: 'partial',
      schedule: null,
      headers: { Authorization: 'Bearer ${TOKEN}' },
    });
    const disabled = await cli('server', 'disable', 'fs', '--json');
    expect(JSON.parse(disabled.stdout).enabled).toBe(false);
    const enabled = await cli('server', 'enable', 'fs', '--json');
    expect(JSON.parse(enabled.stdout).enabled).toBe(true);
    const badEdit = await cli('server', 'edit', 'fs', '--header', 'A=b');
    expect(badEdit.code).toBe(2);
    expect(badEdit.stderr).toMatch(/--header applies to --url servers/);
    const removed = await cli('server', 'remove', 'fs', '--yes');
    expect(removed.code, removed.stderr).toBe(0);
    expect(await listNames()).toEqual(['web']);
  });

  it('takes --verbose before -- as its own, and everything after -- as the server command', async () => {
    const added = await cli(
      'server',
      'add',
      'chatty',
      '--verbose',
      '--stdio',
      '--json',
      '--',
      'node',
      'server.js',
      '--verbose',
      '--json',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      name: 'chatty',
      command: 'node',
      args: ['server.js', '--verbose', '--json'],
    });
    expect((await cli('server', 'remove', 'chatty', '--yes')).code).toBe(0);
  });

  it('reports an unreachable DATABASE_URL with exit 4 and the host it tried', async () => {
    const result = await runCli(['server', 'list'], {
      cwd: database.dir,
      env: { DATABASE_URL: 'postgres://nobody:pw@127.0.0.1:1/nothing' },
    });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(
      'mcp-drift: cannot reach PostgreSQL at 127.0.0.1:1/nothing (ECONNREFUSED); check DATABASE_URL',
    );
  });
});
