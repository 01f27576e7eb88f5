import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import {
  deliveries,
  changes,
  heldSessions,
  observations,
  outages,
  servers,
} from '../../src/db/schema.js';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  closedLoopbackPort,
  fixturePath,
  startHttpFixture,
  type HttpFixture,
} from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitFor } from './ops-support.js';

/*
 * Acceptance 4 of the operations issue: no line mcp-drift writes to stderr, at any log
 * level, contains a secret given as a literal header or env value, or the password of
 * DATABASE_URL or SMTP_URL. The servers are built to push the secrets towards the logs:
 * one answers 401 to a wrong token, one prints its token on stderr and exits (the reason
 * quotes its stderr), one reports a secret as its version; an alert is sent to a mail
 * server that is not there.
 */

const token = (label: string) => `s3cr3t-${label}-${randomBytes(6).toString('hex')}`;
const secrets = {
  header: token('header'),
  wrongHeader: token('wrong-header'),
  env: token('env'),
  versionEnv: token('version'),
  smtpPassword: `pw-${token('smtp')}`,
  databasePassword: `pw-${token('database')}`,
};
const EVERY_2S = '*/2 * * * * *';

/**
 * A stdio "server" that answers every request with an error quoting its token, as a server
 * rejecting its credentials might: the client's error message, and so the observation's
 * reason, carries the token.
 */
const LEAKY_SERVER = `
  require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
    const { id } = JSON.parse(line);
    if (id === undefined) return;
    const message = 'my token is ' + process.env.LEAKY_TOKEN + ', which is not valid';
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message } }) + '\\n');
  });`;

/** POST /control to the fixture that wants the authorization header on every request. */
async function controlAuthorized(body: object): Promise<void> {
  const response = await fetch(`${fixture.baseUrl}/control`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secrets.header}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}
const YEARLY = '0 0 1 1 *';

let database: TestDatabase;
let env: Record<string, string>;
let serve: RunningServe | undefined;
let handle: DatabaseHandle;
let fixture: HttpFixture;
const outputs: { what: string; text: string }[] = [];

/** A CLI command at LOG_LEVEL=trace; its stderr joins what is checked for secrets. */
async function cli(...args: string[]): Promise<CliResult> {
  const result = await runCli(args, { env, cwd: database.dir });
  outputs.push({ what: `${args.slice(0, 2).join(' ')} stderr`, text: result.stderr });
  return result;
}

function expectNoSecrets(): void {
  for (const { what, text } of outputs) {
    for (const [name, secret] of Object.entries(secrets)) {
      const line = text.split('\n').find((candidate) => candidate.includes(secret));
      expect(line, `${what} shows the ${name} secret`).toBeUndefined();
    }
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  const smtpPort = await closedLoopbackPort();
  env = {
    ...database.env,
    LOG_LEVEL: 'trace',
    SMTP_URL: `smtp://mailer:${secrets.smtpPassword}@127.0.0.1:${smtpPort}`,
    ALERT_TO: 'ops@example.com',
    DIGEST_SECONDS: '0',
  };
  if (database.env.DATABASE_URL) {
    // The shared test server trusts every local connection, so any password gets in.
    const url = new URL(database.env.DATABASE_URL);
    url.password = secrets.databasePassword;
    env.DATABASE_URL = url.toString();
  }
  fixture = await startHttpFixture('sdk1-server.mjs', [
    '--require-header',
    `Authorization=Bearer ${secrets.header}`,
  ]);
});
afterAll(async () => {
  await handle?.close();
  await serve?.stop();
  await fixture?.stop();
  await database?.drop();
});

describe(`secrets in logs (${backend})`, () => {
  it('never reach stderr, from serve or from CLI commands, at LOG_LEVEL=trace', async () => {
    const url = `${fixture.baseUrl}/mcp`;
    const added = [
      await cli(
        'server',
        'add',
        'authorized',
        '--url',
        url,
        '--schedule',
        EVERY_2S,
        '--header',
        `Authorization=Bearer ${secrets.header}`,
      ),
      await cli(
        'server',
        'add',
        'refused',
        '--url',
        url,
        '--schedule',
        YEARLY,
        '--header',
        `Authorization=Bearer ${secrets.wrongHeader}`,
      ),
      await cli(
        'server',
        'add',
        'leaky',
        '--schedule',
        EVERY_2S,
        '--env',
        `LEAKY_TOKEN=${secrets.env}`,
        '--stdio',
        '--',
        process.execPath,
        '-e',
        LEAKY_SERVER,
      ),
      await cli(
        'server',
        'add',
        'versioned',
        '--hold',
        '--schedule',
        YEARLY,
        '--env',
        `FIXTURE_SERVER_VERSION=${secrets.versionEnv}`,
        '--stdio',
        '--',
        process.execPath,
        fixturePath('sdk1-server.mjs'),
      ),
    ];
    for (const result of added) expect(result.code, result.stderr).toBe(0);
    const shown = await cli('server', 'show', 'authorized');
    const listed = await cli('server', 'list', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(listed.code, listed.stderr).toBe(0);
    outputs.push({ what: 'server show stdout', text: shown.stdout });
    outputs.push({ what: 'server list stdout', text: listed.stdout });

    // One-shot probes that fail with the secret in the server's answer or output.
    const refused = await cli('check', 'refused');
    expect(refused.code).toBe(4);
    const leaky = await cli('check', 'leaky');
    expect(leaky.code).toBe(4);
    expect(leaky.stderr).toContain('my token is ****');

    serve = await startServe({ env, cwd: database.dir });
    handle = await database.open();
    const ids = Object.fromEntries(
      (await handle.db.select({ id: servers.id, name: servers.name }).from(servers)).map((row) => [
        row.name,
        row.id,
      ]),
    );
    // The change must come after the first listing, which would otherwise take it in.
    await waitFor(
      'the authorized server to be listed',
      async () => {
        const [held] = await handle.db
          .select()
          .from(heldSessions)
          .where(eq(heldSessions.serverId, ids.authorized!));
        return held?.listingHash ?? undefined;
      },
      { context: () => serve!.log() },
    );
    await controlAuthorized({ relax: true, notify: true });
    // Everything that could carry a secret has happened: a change of the authorized server
    // (whose alert goes to the absent mail server), the refused server down, the leaky one
    // failing again under serve, the versioned one listed.
    let missing: string[] = [];
    await waitFor(
      'serve to have exercised every server',
      async () => {
        const rowsOf = async (
          table: typeof changes | typeof outages | typeof observations | typeof deliveries,
          name: string,
        ) => handle.db.select().from(table).where(eq(table.serverId, ids[name]!));
        const observed = (name: string, outcome: 'ok' | 'error') =>
          rowsOf(observations, name).then(
            // Attempts, not rows: a run of one outcome is one row.
            (rows) =>
              rows
                .filter((row) => 'outcome' in row && row.outcome === outcome)
                .reduce((sum, row) => sum + ('count' in row ? row.count : 0), 0),
          );
        missing = [
          ...((await rowsOf(changes, 'authorized')).length > 0 ? [] : ['a change of authorized']),
          ...((await rowsOf(outages, 'refused')).length > 0 ? [] : ['an outage of refused']),
          ...((await observed('leaky', 'error')) >= 3 ? [] : ['3 failures of leaky']),
          ...((await observed('versioned', 'ok')) > 0 ? [] : ['a listing of versioned']),
          ...((await rowsOf(deliveries, 'authorized')).some(
            (row) => 'attempts' in row && row.attempts > 0,
          )
            ? []
            : ['an attempt to send the alert']),
        ];
        return missing.length === 0 ? true : undefined;
      },
      { timeoutMs: 60_000, context: () => `${serve!.log()}\nmissing: ${missing.join(', ')}` },
    );
    // The secrets were really in play: the server's own words, masked.
    expect(serve.log()).toContain('my token is ****');
    const [versionedListing] = await handle.db
      .select({ serverInfo: observations.serverInfo })
      .from(observations)
      .where(eq(observations.serverId, ids.versioned!));
    expect(JSON.stringify(versionedListing?.serverInfo)).toContain(secrets.versionEnv);

    await handle.close();
    const stopped = await serve.stop();
    expect(stopped.code).toBe(0);
    outputs.push({ what: 'serve log', text: serve.log() });
    // Every line is JSON (node-cron's own console output included), with the server named
    // on every line about one.
    const lines = serve
      .log()
      .trim()
      .split('\n')
      .map((line) => {
        expect(() => JSON.parse(line), line).not.toThrow();
        return JSON.parse(line) as { server?: string; msg: string };
      });
    expect(
      lines.filter((line) => line.msg === 'listing failed').map((line) => line.server),
    ).toContain('leaky');
    serve = undefined;
    expectNoSecrets();
  });
});
