import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { fixturePath } from '../support/mcp-fixtures.js';
import { startServe, type RunningServe } from '../support/serve.js';
import { waitUntil } from '../support/wait.js';

/*
 * `--also-as` (docs/design.md §4): each probe also lists as another client identity. The
 * 1.x fixture hides delete_note from a client named claude-code (HIDE_TOOL_FROM_CLIENT);
 * checked as that identity too, its listing is a client_dependent_listing change, alerted;
 * checked as mcp-drift only, nothing is found.
 */

let database: TestDatabase;
let serve: RunningServe | undefined;
const env = () => ({ ...database.env, ALERT_TO: 'ops@example.org', DIGEST_SECONDS: '0' });
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: env(), cwd: database.dir });

function addHiding(name: string, ...flags: string[]) {
  return cli(
    'server',
    'add',
    name,
    ...flags,
    '--env',
    'HIDE_TOOL_FROM_CLIENT=claude-code:delete_note',
    '--stdio',
    '--',
    process.execPath,
    fixturePath('sdk1-server.mjs'),
  );
}

async function check(name: string) {
  const result = await cli('check', name, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await serve?.stop();
  await database?.drop();
});

describe(`a listing that depends on who asks (${backend})`, () => {
  it('without --also-as: nothing is found and nothing alerted', async () => {
    const added = await addHiding('plain');
    expect(added.code, added.stderr).toBe(0);
    const report = await check('plain');
    expect(report.observation.toolCount).toBe(4);
    expect(report.findings).toEqual([]);
    expect(report.change).toBeNull();
    const alerts = JSON.parse((await cli('alerts', 'list', '--json')).stdout).alerts;
    expect(alerts).toEqual([]);
  });

  it('with --also-as that client: client_dependent_listing is recorded and alerted', async () => {
    const added = await addHiding(
      'twofaced',
      '--also-as',
      'claude-code/2.1.0',
      '--also-as',
      'cursor',
    );
    expect(added.code, added.stderr).toBe(0);
    const shown = await cli('server', 'show', 'twofaced');
    expect(shown.stdout).toMatch(/also lists as\s+claude-code\/2\.1\.0, cursor/);
    expect(JSON.parse((await cli('server', 'show', 'twofaced', '--json')).stdout).alsoAs).toEqual([
      'claude-code/2.1.0',
      'cursor',
    ]);

    const report = await check('twofaced');
    // The main identity's listing is the one recorded.
    expect(report.observation.toolCount).toBe(4);
    expect(report.change).toMatchObject({ severity: 'high', fromHash: null });
    expect(report.findings).toEqual([
      expect.objectContaining({
        kind: 'client_dependent_listing',
        severity: 'high',
        tool: null,
        before: 'mcp-drift',
        after: { 'claude-code/2.1.0': ['tools missing: "delete_note"'] },
      }),
    ]);
    expect(report.findings[0].explanation).toContain(
      'as "claude-code/2.1.0": tools missing: "delete_note"',
    );

    const alerts = JSON.parse((await cli('alerts', 'list', '--json')).stdout).alerts;
    expect(alerts).toEqual([expect.objectContaining({ server: 'twofaced', severity: 'high' })]);

    // serve delivers it; without SMTP_URL the email is written to the .eml outbox.
    const running = await startServe({ env: env(), cwd: database.dir });
    serve = running;
    const outbox = path.join(database.env.MCP_DRIFT_HOME, 'outbox');
    await waitUntil(
      'the .eml file',
      () => existsSync(outbox) && readdirSync(outbox).some((f) => f.endsWith('.eml')),
      { describe: () => running.log().slice(-2000) },
    );
    const files = readdirSync(outbox).filter((name) => name.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const mail = await simpleParser(readFileSync(path.join(outbox, files[0]!)));
    expect(mail.subject).toMatch(/^\[mcp-drift\] HIGH twofaced: /);
    expect(mail.text).toContain('delete_note');

    // One flag for commander, as --hold/--no-hold: the last one given wins.
    const after = await cli(
      'server',
      'edit',
      'twofaced',
      '--no-also-as',
      '--also-as',
      'x',
      '--json',
    );
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).alsoAs).toEqual(['x']);
    const bad = await cli('server', 'edit', 'twofaced', '--also-as', 'claude code!');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --also-as "claude code!"');

    // --no-also-as clears the identities.
    const cleared = await cli('server', 'edit', 'twofaced', '--no-also-as', '--json');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout).alsoAs).toEqual([]);
  });
});
