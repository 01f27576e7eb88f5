import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * A registration whose header needs a variable serve's environment does not have: serve
 * says so once and does not probe it, since nothing can change until the registration is
 * edited or serve restarts. `steady`, on the same fixture and schedule, shows the ticks
 * went by; editing the reference to have a default makes the server watched, and held.
 */

const UNSET = 'MCP_DRIFT_TEST_UNSET_TOKEN';
const TOKEN = 't0k';

let database: TestDatabase;
let fixture: HttpFixture;
let serve: RunningServe;
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: { ...database.env, [UNSET]: undefined }, cwd: database.dir });

interface Listed {
  name: string;
  status: {
    state: string;
    down: { since: string; reason: string } | null;
    configProblem: { since: string; problem: string } | null;
  };
}

async function listed(name: string): Promise<Listed | undefined> {
  const result = await cli('server', 'list', '--json');
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as Listed[]).find((server) => server.name === name);
}

interface History {
  runs: { count: number; outcome: string; triggers: Record<string, string> }[];
}

async function history(name: string): Promise<History> {
  const result = await cli('history', name, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as History;
}

/** serve's warnings about one server, from its JSON log. */
function warningsAbout(server: string): { msg: string; variables?: string[] }[] {
  return serve
    .log()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; server?: string; msg: string })
    .filter((entry) => entry.level === 40 && entry.server === server);
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
  fixture = await startHttpFixture('sdk1-server.mjs', ['--require-header', `X-Token=${TOKEN}`]);
  for (const [name, header] of [
    ['needs-token', `X-Token=\${${UNSET}}`],
    ['steady', `X-Token=${TOKEN}`],
  ] as const) {
    const added = await cli(
      'server',
      'add',
      name,
      '--url',
      `${fixture.baseUrl}/mcp`,
      '--header',
      header,
      '--schedule',
      '*/2 * * * * *',
    );
    expect(added.code, added.stderr).toBe(0);
  }
  serve = await startServe({ env: { ...database.env, [UNSET]: undefined }, cwd: database.dir });
  // Four CLI processes and a serve on PGlite, each opening the data directory, on a busy machine.
}, 120_000);
afterAll(async () => {
  await serve?.stop();
  await fixture?.stop();
  await database?.drop();
});

describe(`a server whose variable serve does not have (${backend})`, () => {
  it('is misconfigured, named with its variable, and neither probed nor down', async () => {
    let needsToken: Listed | undefined;
    await waitUntil(
      'serve to note needs-token as misconfigured',
      async () => {
        needsToken = await listed('needs-token');
        return needsToken?.status.state === 'misconfigured';
      },
      { timeoutMs: 60_000, describe: () => JSON.stringify(needsToken?.status) },
    );
    const problem = needsToken!.status.configProblem!.problem;
    expect(problem).toBe(
      `environment variable not set: ${UNSET} (in header X-Token of server "needs-token"); ` +
        'set it in the service environment or change the server configuration',
    );

    // Several schedule ticks: steady's probes extend its run, needs-token gets none.
    await waitUntil(
      'steady to be probed three times',
      async () => ((await history('steady')).runs[0]?.count ?? 0) >= 4,
      { timeoutMs: 60_000, describe: async () => JSON.stringify((await history('steady')).runs) },
    );
    expect((await history('steady')).runs[0]).toMatchObject({ outcome: 'ok' });
    expect((await history('needs-token')).runs).toEqual([]);
    needsToken = await listed('needs-token');
    expect(needsToken!.status).toMatchObject({ state: 'misconfigured', down: null });

    const warnings = warningsAbout('needs-token');
    expect(warnings, serve.log()).toHaveLength(1);
    expect(warnings[0]!.variables).toEqual([UNSET]);
    expect(warnings[0]!.msg).toContain(UNSET);

    const text = await cli('server', 'list');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^needs-token\s+misconfigured\s/m);
    expect(text.stdout).toContain(`needs-token is misconfigured: ${problem}`);

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

    const fleet = await page('/?watch=misconfigured');
    const rows = fleet.match(/<tr[^>]*id="server-[^"]*"[^>]*>/g) ?? [];
    expect(rows, 'the filter keeps needs-token only').toEqual([
      expect.stringContaining('id="server-needs-token"'),
    ]);
    const row = /<tr[^>]*>(?:(?!<\/tr>)[\s\S])*>needs-token<(?:(?!<\/tr>)[\s\S])*<\/tr>/.exec(
      fleet,
    )?.[0];
    expect(row, 'the fleet has a row for needs-token').toBeDefined();
    expect(row).toContain('misconfigured since');
    expect(row).toContain(escapeHtml(problem));

    const server = await page('/servers/needs-token');
    expect(server).toContain('misconfigured since');
    expect(server).toContain(escapeHtml(problem));
    expect(server).toContain('No session is held: the server is misconfigured');
  });

  it('is watched, and held, once its reference is edited to have a default', async () => {
    const edited = await cli(
      'server',
      'edit',
      'needs-token',
      '--header',
      `X-Token=\${${UNSET}:-${TOKEN}}`,
    );
    expect(edited.code, edited.stderr).toBe(0);
    let needsToken: Listed | undefined;
    await waitUntil(
      'needs-token to be held',
      async () => {
        needsToken = await listed('needs-token');
        return needsToken?.status.state === 'held';
      },
      { timeoutMs: 60_000, describe: () => JSON.stringify(needsToken?.status) },
    );
    expect(needsToken!.status).toMatchObject({ configProblem: null, down: null });
    // The fixture answers 401 without the token: the default was sent.
    expect((await history('needs-token')).runs[0]).toMatchObject({ outcome: 'ok' });
    expect((await cli('server', 'list')).stdout).not.toContain('misconfigured');
    expect(warningsAbout('needs-token')).toHaveLength(1);
  });
});
