import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startProtectedServer } from '../support/oauth-mcp-server.js';

/*
 * A server behind OAuth, watched with client credentials (docs/oauth.md): the registration
 * names only the server URL, the client id and a ${VAR} reference to the secret; the
 * authorization server is discovered from the server's 401 alone.
 */

let database: TestDatabase;
let protectedServer: Awaited<ReturnType<typeof startProtectedServer>>;
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, {
    env: { ...database.env, TRACKER_SECRET: protectedServer.provider.machineClient.clientSecret },
    cwd: database.dir,
  });

beforeAll(async () => {
  database = await createTestDatabase();
  protectedServer = await startProtectedServer({ accessTokenTtl: 60 });
});
afterAll(async () => {
  await protectedServer?.stop();
  await database?.drop();
});

describe(`client credentials (${backend})`, () => {
  it('registers the server, then check lists it through discovery from the 401', async () => {
    const { clientId } = protectedServer.provider.machineClient;
    const added = await cli(
      'server',
      'add',
      'tracker',
      '--url',
      protectedServer.mcp.url,
      '--oauth-grant',
      'client-credentials',
      '--oauth-client-id',
      clientId,
      '--oauth-client-secret',
      '${TRACKER_SECRET}',
      '--oauth-scope',
      'mcp',
    );
    expect(added.code, added.stderr).toBe(0);

    const checked = await cli('check', 'tracker', '--json');
    expect(checked.code, checked.stderr).toBe(0);
    const report = JSON.parse(checked.stdout) as {
      observation: { toolCount?: number; serverInfo?: { name: string } };
    };
    expect(report.observation).toMatchObject({
      toolCount: 2,
      serverInfo: { name: 'fixture-oauth' },
    });
    expect(protectedServer.mcp.counts.unauthorized).toBeGreaterThan(0);
    expect(
      protectedServer.provider.issued.filter((grant) => grant.grantType === 'client_credentials'),
    ).not.toHaveLength(0);

    const shown = await cli('server', 'show', 'tracker');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/oauth grant\s+client-credentials/);
    expect(shown.stdout).toMatch(/oauth client secret\s+\$\{TRACKER_SECRET\}/);
    expect(shown.stdout).toMatch(/oauth scopes\s+mcp/);
    for (const output of [added, checked, shown]) {
      expect(output.stdout + output.stderr).not.toContain(
        protectedServer.provider.machineClient.clientSecret,
      );
      for (const token of protectedServer.provider.accessTokens) {
        expect(output.stdout + output.stderr).not.toContain(token);
      }
    }
  });

  it('refuses a literal client secret, and a client-credentials grant without one', async () => {
    const literal = await cli(
      'server',
      'add',
      'literal',
      '--url',
      protectedServer.mcp.url,
      '--oauth-grant',
      'client-credentials',
      '--oauth-client-id',
      'x',
      '--oauth-client-secret',
      'hunter2-literal',
    );
    expect(literal.code).toBe(2);
    expect(literal.stderr).toContain('reference to an environment variable');
    expect(literal.stderr).not.toContain('hunter2-literal');
    const missing = await cli(
      'server',
      'add',
      'nosecret',
      '--url',
      protectedServer.mcp.url,
      '--oauth-grant',
      'client-credentials',
      '--oauth-client-id',
      'x',
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--oauth-client-secret');
  });

  it('says which variable is missing when the secret is not in the environment', async () => {
    const checked = await runCli(['check', 'tracker', '--json'], {
      env: database.env,
      cwd: database.dir,
    });
    expect(checked.code).not.toBe(0);
    expect(checked.stdout + checked.stderr).toContain('TRACKER_SECRET');
  });

  it('server edit --no-oauth drops the settings', async () => {
    const edited = await cli('server', 'edit', 'tracker', '--no-oauth', '--json');
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ oauth: null });
  });
});
