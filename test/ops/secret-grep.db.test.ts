import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * Issue 12, acceptance: a 32-character secret, handed to servers that push it back (a
 * 403 quoting the Authorization header, a stdio server printing its env on stderr before
 * it exits, a URL with a password), appears nowhere afterwards: not in the database (a
 * pg_dump on PostgreSQL, every table's rows on PGlite), not in the logs, not in the .eml
 * outbox, not in any command's output.
 */

const SECRET = randomBytes(16).toString('hex');
const EVERY_2S = '*/2 * * * * *';
const YEARLY = '0 0 1 1 *';

/** Prints its environment's secret on stderr, as a server that dumps its config does, and exits. */
const LEAKY_SERVER = `process.stderr.write('config: LEAKY_TOKEN=' + process.env.LEAKY_TOKEN + '\\n'); process.exit(5);`;

let database: TestDatabase;
let env: Record<string, string>;
let serve: RunningServe | undefined;
let handle: DatabaseHandle | undefined;
let echo: HttpFixture;
let guarded: HttpFixture;
const outputs: { what: string; text: string }[] = [];

async function cli(...args: string[]): Promise<CliResult> {
  const result = await runCli(args, { env, cwd: database.dir });
  outputs.push({ what: `${args.join(' ')}`, text: `${result.stdout}\n${result.stderr}` });
  return result;
}

/** Every row of every table, as text: what pg_dump would show, for PGlite. */
async function dumpTables(db: DatabaseHandle['db']): Promise<string> {
  const tables = await db.execute<{ name: string }>(
    sql`select format('%I.%I', table_schema, table_name) as name from information_schema.tables
      where table_schema in ('public', 'drizzle') and table_type = 'BASE TABLE'`,
  );
  let text = '';
  for (const { name } of tables as unknown as { name: string }[]) {
    const rows = await db.execute(sql.raw(`select row_to_json(t)::text as row from ${name} t`));
    for (const row of rows as unknown as { row: string }[]) text += `${name}: ${row.row}\n`;
  }
  return text;
}

beforeAll(async () => {
  database = await createTestDatabase();
  env = {
    ...database.env,
    LOG_LEVEL: 'trace',
    ALERT_TO: 'ops@example.com',
    DIGEST_SECONDS: '0',
    TOKEN: SECRET,
  };
  [echo, guarded] = await Promise.all([
    startHttpFixture('hostile-server.mjs', ['--mode', 'echo-auth']),
    startHttpFixture('sdk1-server.mjs', ['--require-header', `Authorization=Bearer ${SECRET}`]),
  ]);
});
afterAll(async () => {
  await handle?.close();
  await serve?.stop();
  await Promise.all([echo?.stop(), guarded?.stop()]);
  await database?.drop();
});

describe(`a secret pushed back by servers (${backend})`, () => {
  it('is found nowhere: database, logs, outbox, command output', async () => {
    const header = ['--header', 'Authorization=Bearer ${TOKEN}'];
    const added = [
      await cli(
        'server',
        'add',
        'echo',
        '--url',
        `${echo.baseUrl}/mcp`,
        '--schedule',
        EVERY_2S,
        ...header,
      ),
      await cli(
        'server',
        'add',
        'guarded',
        '--url',
        `${guarded.baseUrl}/mcp`,
        '--schedule',
        YEARLY,
        ...header,
      ),
      await cli(
        'server',
        'add',
        'leaky',
        '--schedule',
        EVERY_2S,
        '--env',
        'LEAKY_TOKEN=${TOKEN}',
        '--stdio',
        '--',
        process.execPath,
        '-e',
        LEAKY_SERVER,
      ),
    ];
    for (const result of added) expect(result.code, result.stderr).toBe(0);
    // A password in a URL is refused, without repeating it.
    const withPassword = await cli(
      'server',
      'add',
      'creds',
      '--url',
      `http://monitor:${SECRET}@127.0.0.1:${guarded.port}/mcp`,
    );
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('carries credentials (user:password@)');

    const echoed = await cli('check', 'echo');
    expect(echoed.code).toBe(4);
    expect(echoed.stderr).toContain('you sent Authorization: ****');
    const leaked = await cli('check', 'leaky');
    expect(leaked.code).toBe(4);
    expect(leaked.stderr).toContain('LEAKY_TOKEN=****');
    expect((await cli('check', 'guarded')).code).toBe(0);

    serve = await startServe({ env, cwd: database.dir });
    handle = await database.open();
    // A change of the guarded server, so that an alert goes to the .eml outbox.
    await waitUntil('serve to hold the guarded server', () =>
      serve!.log().includes('"server":"guarded","msg":"held session up"'),
    );
    await fetch(`${guarded.baseUrl}/control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
      body: JSON.stringify({ relax: true, notify: true }),
    });
    const outbox = path.join(database.env.MCP_DRIFT_HOME, 'outbox');
    await waitUntil(
      'the alert in the outbox, and serve to have failed echo and leaky again',
      async () => {
        const failures = await handle!.db.execute<{ n: number }>(
          sql`select coalesce(sum(count), 0)::int as n from observations where outcome = 'error'`,
        );
        const n = (failures as unknown as { n: number }[])[0]?.n ?? 0;
        return existsSync(outbox) && readdirSync(outbox).length > 0 && n >= 6;
      },
      { timeoutMs: 60_000, describe: () => serve!.log().slice(-3000) },
    );
    for (const args of [
      ['history', 'echo', '--json'],
      ['history', 'leaky'],
      ['server', 'list', '--json'],
      ['server', 'show', 'echo'],
      ['changes', '--json'],
      ['alerts', 'list', '--json'],
      ['baseline', 'show', 'guarded'],
    ]) {
      const result = await cli(...args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    const history = outputs.find((output) => output.what === 'history echo --json')!.text;
    // The server's words are kept, its copy of the credentials is not.
    expect(history).toContain('you sent Authorization: ****');

    let dump: string;
    if (backend === 'postgres') {
      dump = execFileSync('pg_dump', [database.env.DATABASE_URL!], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
    } else {
      dump = await dumpTables(handle.db);
    }
    expect(dump).toContain('****'); // the reasons were stored, masked
    await handle.close();
    handle = undefined;
    await serve.stop();
    const places = [
      { what: 'database dump', text: dump },
      { what: 'serve log', text: serve.log() },
      ...readdirSync(outbox).map((file) => ({
        what: `outbox ${file}`,
        text: readFileSync(path.join(outbox, file), 'utf8'),
      })),
      ...outputs,
    ];
    serve = undefined;
    for (const { what, text } of places) {
      const line = text.split('\n').find((candidate) => candidate.includes(SECRET));
      expect(line, `${what} shows the secret`).toBeUndefined();
    }
  });
});
