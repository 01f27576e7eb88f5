import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * A down server, as serve finds it: registered at a port nobody listens on, probed every two
 * seconds. `server list` (text and --json), the console's fleet row and the server page must
 * name the same state and the same reason, and the server page must not claim a held session.
 */

let database: TestDatabase;
let serve: RunningServe;
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: database.env, cwd: database.dir });

interface Listed {
  name: string;
  status: { state: string; down: { since: string; reason: string } | null };
}

async function listed(): Promise<Listed[]> {
  const result = await cli('server', 'list', '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Listed[];
}

/** A loopback port that was free a moment ago and has no listener now. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const escapeHtml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

beforeAll(async () => {
  database = await createTestDatabase();
  const port = await closedPort();
  const added = await cli(
    'server',
    'add',
    'gone',
    '--url',
    `http://127.0.0.1:${port}/mcp`,
    '--schedule',
    '*/2 * * * * *',
  );
  expect(added.code, added.stderr).toBe(0);
  serve = await startServe({ env: database.env, cwd: database.dir });
});
afterAll(async () => {
  await serve?.stop();
  await database?.drop();
});

describe(`a down server's state (${backend})`, () => {
  it('is named with the same reason by server list, the fleet row and the server page', async () => {
    let gone: Listed | undefined;
    await waitUntil(
      'serve to record gone as down',
      async () => {
        gone = (await listed()).find((server) => server.name === 'gone');
        return gone?.status.state === 'down';
      },
      { timeoutMs: 60_000, describe: () => JSON.stringify(gone?.status) },
    );
    const reason = gone!.status.down!.reason;
    expect(reason.length).toBeGreaterThan(0);

    const text = await cli('server', 'list');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^gone\s+down\s/m);
    expect(text.stdout).toContain(`gone is down since ${gone!.status.down!.since}: ${reason}`);

    // The console, logged in with the link serve printed.
    const link = /console: (http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]+)/.exec(
      serve.output(),
    );
    expect(link, serve.output()).not.toBeNull();
    const [, base, token] = link!;
    const login = await fetch(`${base}/?token=${token}`, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')?.split(';')[0];
    expect(cookie, `login answered ${login.status}`).toBeTruthy();
    const page = async (path: string) => {
      const answer = await fetch(`${base}${path}`, { headers: { cookie: cookie! } });
      expect(answer.status, path).toBe(200);
      return answer.text();
    };

    const fleet = await page('/');
    const row = /<tr[^>]*>(?:(?!<\/tr>)[\s\S])*>gone<(?:(?!<\/tr>)[\s\S])*<\/tr>/.exec(fleet)?.[0];
    expect(row, 'the fleet has a row for gone').toBeDefined();
    expect(row).toContain('down since');
    expect(row).toContain(escapeHtml(reason));

    const server = await page('/servers/gone');
    expect(server).toContain('down since');
    expect(server).toContain(escapeHtml(reason));
    expect(server).not.toContain('still holds listing');
    expect(server).toContain('No session is held: the server is down');
  });

  it('says disabled everywhere once the server is disabled', async () => {
    const disabled = await cli('server', 'disable', 'gone');
    expect(disabled.code, disabled.stderr).toBe(0);
    const [gone] = await listed();
    expect(gone!.status.state).toBe('disabled');
    expect((await cli('server', 'list')).stdout).toMatch(/^gone\s+disabled\s/m);
  });
});
