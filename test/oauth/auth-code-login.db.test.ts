import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../support/browser.js';
import { exited, runCli, spawnCli, waitForOutput, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startProtectedServer } from '../support/oauth-mcp-server.js';
import { authorizationUrlIn, loginInBrowser } from '../support/oauth-login.js';

/*
 * A server behind OAuth watched with a person's login (docs/oauth.md): `server add --oauth`
 * names only the URL; `server login` discovers the authorization server from the 401,
 * registers a client dynamically, and waits on a loopback redirect while headless Chromium
 * goes through the provider's real login and consent pages; `check` then lists the server
 * with the stored tokens, and `server show` says how the login stands.
 */

let database: TestDatabase;
let browser: Browser;
let protectedServer: Awaited<ReturnType<typeof startProtectedServer>>;
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: database.env, cwd: database.dir });

const haveChromium = chromiumAvailable();

beforeAll(async () => {
  database = await createTestDatabase();
  protectedServer = await startProtectedServer({ accessTokenTtl: 120 });
  if (haveChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await protectedServer?.stop();
  await database?.drop();
});

describe.runIf(haveChromium)(`authorization-code login (${backend})`, () => {
  it('check says a login is needed before any login', async () => {
    const added = await cli(
      'server',
      'add',
      'tracker',
      '--url',
      protectedServer.mcp.url,
      '--oauth',
    );
    expect(added.code, added.stderr).toBe(0);
    const before = protectedServer.mcp.counts.requests;
    const checked = await cli('check', 'tracker');
    expect(checked.code).toBe(4);
    expect(checked.stderr).toContain('login needed for tracker');
    expect(checked.stderr).toContain('mcp-drift server login tracker');
    // Nothing is sent to a server nobody has logged in to.
    expect(protectedServer.mcp.counts.requests).toBe(before);
  });

  it('server login in Chromium, then check lists the protected server', async () => {
    const login = spawnCli(['server', 'login', 'tracker'], {
      env: database.env,
      cwd: database.dir,
    });
    let stdout = '';
    login.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const stderr = await waitForOutput(login.stderr!, /\/auth\?\S+\n/);
    const url = authorizationUrlIn(stderr);
    expect(url, stderr).toBeDefined();
    const params = new URL(url!).searchParams;
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('resource')).toBe(protectedServer.mcp.url);
    expect(params.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    // An answer with another state is refused, and the login goes on waiting.
    const forged = await fetch(`${params.get('redirect_uri')}?code=x&state=forged`);
    expect(forged.status).toBe(400);

    const page = await loginInBrowser(browser, url!);
    expect(page).toContain('Logged in');
    expect(await exited(login)).toBe(0);
    expect(stdout).toMatch(/logged in to tracker; the access token expires at \S+Z/);
    const grants = protectedServer.provider.issued.map((grant) => grant.grantType);
    expect(grants).toContain('authorization_code');

    const checked = await cli('check', 'tracker', '--json');
    expect(checked.code, checked.stderr).toBe(0);
    const report = JSON.parse(checked.stdout) as { observation: { toolCount: number } };
    expect(report.observation.toolCount).toBe(2);

    const shown = await cli('server', 'show', 'tracker');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/oauth grant\s+authorization-code/);
    expect(shown.stdout).toMatch(/oauth state\s+authorized/);
    expect(shown.stdout).toMatch(/oauth authorization server\s+http:\/\/127\.0\.0\.1:\d+\n/);
    expect(shown.stdout).toMatch(/oauth token expires\s+\d{4}-\d\d-\d\dT/);

    for (const output of [checked, shown, { stdout, stderr }]) {
      const text = output.stdout + output.stderr;
      for (const token of [
        ...protectedServer.provider.accessTokens,
        ...protectedServer.provider.refreshTokens,
      ]) {
        expect(text).not.toContain(token);
      }
    }
  });

  it('server edit changes the login settings; --no-oauth drops them', async () => {
    const edited = await cli(
      'server',
      'edit',
      'tracker',
      '--oauth-client-id',
      'pre-registered',
      '--oauth-scope',
      'mcp',
      '--json',
    );
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({
      oauth: {
        grant: 'authorization_code',
        clientId: 'pre-registered',
        clientSecret: null,
        scopes: ['mcp'],
      },
    });
    const dropped = await cli('server', 'edit', 'tracker', '--no-oauth', '--json');
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(JSON.parse(dropped.stdout)).toMatchObject({ oauth: null });
    const login = await cli('server', 'login', 'tracker');
    expect(login.code).toBe(2);
    expect(login.stderr).toContain('not registered for a login');
  });
});
