import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * Cross-server shadowing by a look-alike name under `serve`: two registered servers, one
 * listing `send_email`, the other the same tool as "sеnd_email" with a Cyrillic е. The
 * first is checked before serve starts, so that when serve's startup probe records the
 * second one's first listing the other server's tools are there to compare against.
 */

/** "send_email" with a Cyrillic е (U+0435) in place of the Latin e. */
const LOOKALIKE = 's\u0435nd_email';

let database: TestDatabase;
let mail: HttpFixture;
let notes: HttpFixture;
let serve: RunningServe | undefined;
let env: Record<string, string>;

const cli = (...args: string[]) => runCli(args, { env, cwd: database.dir });

interface FindingJson {
  tool: string | null;
  kind: string;
  severity: string;
  field?: string;
  explanation: string;
}

async function changesOf(server: string) {
  const listed = await cli('changes', '--server', server, '--json');
  expect(listed.code, listed.stderr).toBe(0);
  return (
    JSON.parse(listed.stdout) as {
      changes: { id: number; fromHash: string | null; severity: string }[];
    }
  ).changes;
}

async function findingsOf(changeId: number): Promise<FindingJson[]> {
  const shown = await cli('change', 'show', String(changeId), '--json');
  expect(shown.code, shown.stderr).toBe(0);
  return (JSON.parse(shown.stdout) as { findings: FindingJson[] }).findings;
}

async function add(name: string, fixture: HttpFixture): Promise<void> {
  const added = await cli(
    'server',
    'add',
    name,
    '--url',
    `${fixture.baseUrl}/mcp`,
    '--schedule',
    '0 0 1 1 *',
  );
  expect(added.code, added.stderr).toBe(0);
}

beforeAll(async () => {
  database = await createTestDatabase();
  mail = await startHttpFixture('sdk1-server.mjs');
  notes = await startHttpFixture('sdk1-server.mjs', ['--email-tool', LOOKALIKE]);
  env = { ...database.env, HTTP_PORT: '0' };
});
afterAll(async () => {
  await serve?.stop('SIGKILL');
  await notes?.stop();
  await mail?.stop();
  await database?.drop();
});

describe(`a look-alike of another server's tool under serve (${backend})`, () => {
  it('records tool_shadowing at high naming both servers and both tools', async () => {
    await add('mail', mail);
    const checked = await cli('check', 'mail');
    expect(checked.code, checked.stderr).toBe(0);
    await add('notes', notes);

    serve = await startServe({ env, cwd: database.dir });
    await waitUntil(
      'the look-alike to be recorded',
      async () => (await changesOf('notes')).length > 0,
      {
        timeoutMs: 60_000,
        describe: () => serve!.log().slice(-2000),
      },
    );
    const [change] = await changesOf('notes');
    expect(change).toMatchObject({ fromHash: null, severity: 'high' });
    const shadowing = (await findingsOf(change!.id)).filter((f) => f.kind === 'tool_shadowing');
    expect(shadowing.map(({ tool, severity, field }) => ({ tool, severity, field }))).toEqual([
      { tool: LOOKALIKE, severity: 'high', field: 'name' },
    ]);
    const text = shadowing[0]!.explanation;
    expect(text).toContain(`on server notes`);
    expect(text).toContain(LOOKALIKE);
    expect(text).toContain('send_email (server mail)');
    // The plain server's unchanged listing is no change.
    expect(await changesOf('mail')).toEqual([]);
  });
});
