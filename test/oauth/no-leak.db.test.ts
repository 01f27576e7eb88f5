import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startProtectedServer } from '../support/oauth-mcp-server.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * A server behind OAuth watched by serve with client credentials (probes and the held
 * session), until a change alerts. Then the client secret and every access token the
 * authorization server issued are searched for everywhere mcp-drift writes: the database
 * (a pg_dump on PostgreSQL, every table's rows and the raw data files on PGlite), serve's
 * log at trace level, the .eml outbox, and every command's output. Nothing is found.
 */

const EVERY_2S = '*/2 * * * * *';

let database: TestDatabase;
let env: Record<string, string>;
let serve: RunningServe | undefined;
let handle: DatabaseHandle | undefined;
let protectedServer: Awaited<ReturnType<typeof startProtectedServer>>;
const outputs: { what: string; text: string }[] = [];

async function cli(...args: string[]): Promise<CliResult> {
  const result = await runCli(args, { env, cwd: database.dir });
  outputs.push({ what: args.join(' '), text: `${result.stdout}\n${result.stderr}` });
  return result;
}

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

/** Every file under a folder, as latin1 text (tokens are ASCII, whatever else is binary). */
function filesUnder(folder: string): { what: string; text: string }[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(folder, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ what: `file ${file}`, text: readFileSync(file, 'latin1') }));
}

async function observationCount(outcome: 'ok' | 'error'): Promise<number> {
  const rows = await handle!.db.execute<{ n: number }>(
    sql`select coalesce(sum(count), 0)::int as n from observations where outcome = ${outcome}`,
  );
  return (rows as unknown as { n: number }[])[0]?.n ?? 0;
}

beforeAll(async () => {
  database = await createTestDatabase();
  protectedServer = await startProtectedServer({ accessTokenTtl: 60 });
  env = {
    ...database.env,
    LOG_LEVEL: 'trace',
    ALERT_TO: 'ops@example.com',
    DIGEST_SECONDS: '0',
    TRACKER_SECRET: protectedServer.provider.machineClient.clientSecret,
  };
});
afterAll(async () => {
  await handle?.close();
  await serve?.stop();
  await protectedServer?.stop();
  await database?.drop();
});

describe(`OAuth secrets and tokens (${backend})`, () => {
  it('are found nowhere: database, logs, outbox, command output', async () => {
    const added = await cli(
      'server',
      'add',
      'tracker',
      '--url',
      protectedServer.mcp.url,
      '--schedule',
      EVERY_2S,
      '--oauth-grant',
      'client-credentials',
      '--oauth-client-id',
      protectedServer.provider.machineClient.clientId,
      '--oauth-client-secret',
      '${TRACKER_SECRET}',
    );
    expect(added.code, added.stderr).toBe(0);
    expect((await cli('check', 'tracker')).code).toBe(0);

    serve = await startServe({ env, cwd: database.dir });
    handle = await database.open();
    await waitUntil('serve to hold the tracker', () =>
      serve!.log().includes('"server":"tracker","msg":"held session up"'),
    );
    protectedServer.mcp.relax();
    const outbox = path.join(database.env.MCP_DRIFT_HOME, 'outbox');
    await waitUntil(
      'the change alert in the outbox',
      () => existsSync(outbox) && readdirSync(outbox).length > 0,
      { timeoutMs: 90_000, describe: () => serve!.log().slice(-3000) },
    );
    expect(await observationCount('error')).toBe(0);
    for (const args of [
      ['history', 'tracker', '--json'],
      ['server', 'list', '--json'],
      ['server', 'show', 'tracker'],
      ['server', 'show', 'tracker', '--json'],
      ['changes', '--json'],
      ['alerts', 'list', '--json'],
    ]) {
      const result = await cli(...args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }

    const dump =
      backend === 'postgres'
        ? execFileSync('pg_dump', [database.env.DATABASE_URL!], {
            encoding: 'utf8',
            maxBuffer: 1 << 28,
          })
        : await dumpTables(handle.db);
    expect(dump).toContain('${TRACKER_SECRET}');
    await handle.close();
    handle = undefined;
    await serve.stop();
    const places = [
      { what: 'database dump', text: dump },
      { what: 'serve log', text: serve.log() },
      ...filesUnder(database.env.MCP_DRIFT_HOME),
      ...outputs,
    ];
    serve = undefined;
    const secrets = [
      protectedServer.provider.machineClient.clientSecret,
      ...protectedServer.provider.accessTokens,
      ...protectedServer.provider.refreshTokens,
    ];
    // Probes and the held session each took tokens; the search is not vacuous.
    expect(protectedServer.provider.accessTokens.length).toBeGreaterThan(1);
    expect(places.some(({ what }) => what.startsWith('file ') && what.includes('.eml'))).toBe(true);
    for (const { what, text } of places) {
      const found = secrets.find((secret) => text.includes(secret));
      expect(found === undefined ? undefined : `${what} holds ${found.slice(0, 12)}…`).toBe(
        undefined,
      );
    }
  });
});
